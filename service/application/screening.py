"""Screening what players write for others to read: a name or a handle with a listed word is refused.

The word lists and their matching are the domain's (:mod:`service.domain.wordfilter`); here they meet the operator's
words: the ``filter_words`` setting and those added with ``red7 mod words add`` (kept in Redis, so every process
sees them: each reads them again at most every :data:`REFRESH_SECONDS`).  A table-talk message will be screened by the
same :meth:`Screen.offending`, and held back rather than refused.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from service.common.errors import Refused
from service.common.texts import MESSAGES, Text, message
from service.domain.wordfilter import WordFilter, word_filter
from service.storage.moderation import ModerationStore

#: How stale the operator's stored words may be in a process, in seconds.
REFRESH_SECONDS = 5.0

NOT_ALLOWED = {
    "name": message("problem.name_not_allowed.detail", "Your name holds a word others may find offensive; choose another."),
    "handle": message("problem.handle_not_allowed.detail", "Your handle holds a word others may find offensive; choose another."),
}


def not_allowed(field: str) -> Refused:
    """The refusal of a name or handle (``field``) that holds a listed word: ``name_not_allowed``,
    ``handle_not_allowed`` (the word itself is not repeated back)."""
    code = NOT_ALLOWED[field]
    refused = Refused(
        f"{field}_not_allowed",
        MESSAGES[code].singular,
        errors=[{"field": field, "message": "holds a word that is not allowed", "location": "json"}],
    )
    refused.text = Text(code, {})
    return refused


class Screen:
    """The filter with the operator's words: the setting's, and the store's as last read."""

    def __init__(
        self,
        store: ModerationStore | None = None,
        words: Iterable[str] = (),
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.setting = tuple(words)
        self.clock = clock
        self._read_at = -REFRESH_SECONDS
        self._filter = word_filter(tuple(sorted(set(self.setting))))

    def filter(self) -> WordFilter:
        now = self.clock()
        if self.store is not None and now - self._read_at >= REFRESH_SECONDS:
            self._read_at = now
            self._filter = word_filter(tuple(sorted({*self.setting, *self.store.words()})))
        return self._filter

    def offending(self, text: str) -> str | None:
        return self.filter().offending(text)

    def check(self, *, name: str | None = None, handle: str | None = None) -> None:
        """Refuse a name (``name_not_allowed``) or a handle (``handle_not_allowed``) that holds a listed word."""
        if name and self.offending(name):
            raise not_allowed("name")
        if handle and self.offending(handle):
            raise not_allowed("handle")

    def operator_words(self) -> list[str]:
        """The setting's words and the stored ones."""
        return sorted({*self.setting, *(self.store.words() if self.store else ())})

    def change_words(self, words: list[str], *, add: bool) -> None:
        """Add (or remove) stored words: every process reads them within :data:`REFRESH_SECONDS`, this one at once."""
        if self.store is None:
            raise RuntimeError("no store to keep the words in")
        (self.store.add_words if add else self.store.remove_words)(words)
        self._read_at = float("-inf")
