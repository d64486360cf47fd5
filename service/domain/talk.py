"""Table talk: what a seated player may say at a game's table, and who reads it (pure: no I/O, no clock of its own).

A message is a preset phrase (:data:`PHRASES`, a code each reader sees in their own language) or free text up to
:data:`MAX_TEXT` characters.  Free text that holds a listed word is *held*: its author sees it (marked held), nobody
else does, and it waits for a moderator's review.  Talk is no part of the game's event stream: a replay, its hash and
the game's version never change because of it.

Who reads a message (:func:`readable_by`): its author always; another seated player unless they muted or blocked the
author (or the author blocked them: a block keeps both apart), or their reach (``talk_from``) turns the author away
(``nobody``; ``opponents``: every seated player is an opponent at Red7, so the default lets the table talk).
Spectators and players with no seat read nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from service.common.errors import Refused

#: The preset phrases: a code each reader sees in their own language (the catalogs' ``talk.<code>``).
PHRASES = ("good_luck", "well_played", "your_move", "thinking")
#: The longest free text a message may hold, in characters.
MAX_TEXT = 200


@dataclass(frozen=True, slots=True)
class Message:
    """One message at a table: its id (the stream entry's), author, seat, phrase or text, whether held, when (ms)."""

    id: str
    author_id: str
    seat: int
    phrase: str | None
    text: str | None
    held: bool
    at_ms: int

    def json(self) -> dict[str, Any]:
        """The message as evidence keeps it (a report copies this, so a later edit cannot change it)."""
        return {
            "id": self.id,
            "author_id": self.author_id,
            "seat": self.seat,
            "phrase": self.phrase,
            "text": self.text,
            "held": self.held,
            "at_ms": self.at_ms,
        }


def checked(phrase: str | None, text: str | None) -> tuple[str | None, str | None]:
    """A message's phrase or text, one of the two: ``invalid_request`` otherwise (the schema checks this first)."""
    text = text.strip() if text is not None else None
    if (phrase is None) == (not text):
        raise Refused("invalid_request", "A message is a phrase or a text, one of the two.", field="text")
    if phrase is not None and phrase not in PHRASES:
        raise Refused("invalid_request", f"phrase is one of {', '.join(PHRASES)}.", field="phrase")
    if text is not None and len(text) > MAX_TEXT:
        raise Refused("invalid_request", f"A message holds at most {MAX_TEXT} characters.", field="text")
    return phrase, text or None


@dataclass(frozen=True, slots=True)
class Hearing:
    """What decides what one reader receives: their seat's players, those they keep away (muted, blocked or blocking
    them) and their ``talk_from``."""

    reader_id: str
    seated: Collection[str]
    kept_away: Collection[str]
    talk_from: str


def readable_by(message: Message, hearing: Hearing) -> bool:
    """Whether the reader ``hearing`` describes receives ``message`` (see the module)."""
    if message.author_id == hearing.reader_id:
        return True
    if hearing.reader_id not in hearing.seated or message.held:
        return False
    if message.author_id in hearing.kept_away or hearing.talk_from == "nobody":
        return False
    return hearing.talk_from == "everyone" or message.author_id in hearing.seated
