"""A message at a table as a reader gets it, in the request's language: one rendering for ``listTableTalk``,
``sayAtTable`` and the live feeds' ``talk`` events, so that they never disagree."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.application.talk import WORDS
from service.common.texts import Text
from service.domain.talk import Message
from service.http.locale import say


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def message_json(found: Message) -> dict[str, Any]:
    """A message as a reader gets it: the phrase's words in the request's language, or the text as written."""
    words = say(Text(WORDS[found.phrase])) if found.phrase is not None else found.text or ""
    return {
        "id": found.id,
        "seat": found.seat,
        "author_id": found.author_id,
        "phrase": found.phrase,
        "text": found.text,
        "words": words,
        "held": found.held,
        "at": _iso(found.at_ms),
    }
