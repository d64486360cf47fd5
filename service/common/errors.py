"""Refusals: what the application answers when it will not do what it was asked, with a stable ``code``.

A refusal says *what* went wrong, for programs (``code`` and its facts) and
for people (``detail``); nothing here knows HTTP.  The entry points decide
how to answer one: ``service/http/problems.py`` maps each code to a status
and an RFC 9457 problem, a job logs it.  The engine's refusals
(:class:`engine.RuleViolation`) keep the engine's own codes.

Callers catch the type, never compare a code: :class:`NotFound`,
:class:`Conflict` (the game moved on since the version a write was decided
on), :class:`NotConfirmed` (stored, but not yet on enough replicas).
"""

from __future__ import annotations

from typing import Any

from service.common.texts import Text, message

CONFLICT = message(
    "problem.version_conflict.detail",
    "You sent version %(expected)s but the game is at version %(current)s; reload it and try again.",
)


class Refused(Exception):
    """A request the service turns down: ``code`` (stable, for programs), ``detail`` (for people), ``facts`` (extra
    members of the answer, e.g. ``limit``); ``text``: the detail as a text of the catalogs (:mod:`service.common.texts`), when
    it has one, so that it reads in every language."""

    text: Text | None = None

    def __init__(self, code: str, detail: str | None = None, **facts: Any) -> None:
        self.code = code
        self.detail = detail or code.replace("_", " ").capitalize()
        self.facts = facts
        super().__init__(self.detail)


class NotFound(Refused):
    """What was asked for does not exist (``game_not_found``, ``token_not_found`` ...)."""


class Conflict(Refused):
    """A write decided on ``expected`` while the game is at ``current``: decide again on the game as it is now."""

    def __init__(self, expected: int, current: int, detail: str | None = None) -> None:
        self.expected, self.current = expected, current
        super().__init__(
            "version_conflict",
            detail or f"You sent version {expected} but the game is at version {current}; reload it and try again.",
            current_version=current,
        )
        if detail is None:
            self.text = Text(CONFLICT, {"expected": expected, "current": current})


class NotConfirmed(Refused):
    """Stored (as ``version``, if known) but confirmed by fewer replicas than asked for in time: it could be lost."""

    def __init__(self, version: int | None, replicas: int, wanted: int) -> None:
        self.version, self.replicas, self.wanted = version, replicas, wanted
        stored = f"stored as version {version}" if version else "stored"
        super().__init__(
            "store_unavailable",
            f"Your action was {stored}, but only {replicas} of {wanted} Redis replicas confirmed it in time, "
            "so it could still be lost; reload the game, or retry with the same Idempotency-Key.",
        )


def bad_cursor(detail: str = "The cursor is not one this server gave out; pass next_cursor as it came.") -> Refused:
    """A page's cursor no page gave out: one refusal wherever a list is paged (games, open tables, challenges,
    players, mistakes)."""
    return Refused(
        "invalid_request",
        detail,
        errors=[{"field": "cursor", "message": "not a cursor from next_cursor", "location": "query"}],
    )
