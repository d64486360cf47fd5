"""The handle rule: what a handle may be, which are reserved, and how a reference to a player is read.

A handle is 3 to 20 characters, each an ASCII letter, digit, ``_`` or ``-`` (:data:`HANDLE_PATTERN`), unique
without regard to case (stored as given, compared folded to lower case: :func:`~service.storage.handles.fold`).
Reserved, and refused (``handle_reserved``): the words in :data:`RESERVED`, which a player could use to pose as
the service, or which a path or a label already means (``me`` is ``/v1/players/me``; "deleted player" is how a
table names a deleted account), and anything shaped like a player's id (``p_`` and 16 hex digits), so that
``getPlayer`` tells an id from a handle by its shape alone.
"""

from __future__ import annotations

import re

from service.errors import Refused
from service.storage.handles import fold

#: The handle rule, as the OpenAPI document states it (ECMAScript and Python read it alike).
HANDLE_PATTERN = r"^[A-Za-z0-9_-]{3,20}$"
#: A prefix to search handles by: what a handle may start with.
PREFIX_PATTERN = r"^[A-Za-z0-9_-]{1,20}$"
HANDLE_RULE = "3 to 20 characters, each an ASCII letter, a digit, _ or -"

#: Handles nobody may take (compared folded).
RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "ai",
        "anonymous",
        "api",
        "bot",
        "deleted",
        "deleted-player",
        "deleted_player",
        "everyone",
        "guest",
        "help",
        "me",
        "mod",
        "moderator",
        "nobody",
        "none",
        "null",
        "official",
        "player",
        "players",
        "red7",
        "root",
        "server",
        "service",
        "staff",
        "support",
        "system",
        "undefined",
        "www",
    }
)

_HANDLE = re.compile(HANDLE_PATTERN)
#: A player's id, as :func:`~service.storage.players.new_id` makes them.
_PLAYER_ID = re.compile(r"^p_[0-9a-f]{16}$")


def _refused(code: str, detail: str, message: str) -> Refused:
    return Refused(code, detail, errors=[{"field": "handle", "message": message, "location": "json"}])


def check_handle(handle: str) -> None:
    """Refuse a handle that breaks the rule (``handle_invalid``) or is reserved (``handle_reserved``)."""
    if fold(handle) in RESERVED or _PLAYER_ID.fullmatch(fold(handle)):  # first: "me" is reserved, whatever its length
        raise _refused("handle_reserved", f"The handle {handle!r} is reserved; choose another.", "is reserved")
    if not _HANDLE.fullmatch(handle):
        raise _refused("handle_invalid", f"A handle is {HANDLE_RULE}; not {handle!r}.", f"must be {HANDLE_RULE}")


def is_handle(text: str) -> bool:
    """Whether ``text`` could be someone's handle (by the rule; reserved ones are nobody's)."""
    return bool(_HANDLE.fullmatch(text)) and fold(text) not in RESERVED and not _PLAYER_ID.fullmatch(fold(text))


def is_player_id(text: str) -> bool:
    return bool(_PLAYER_ID.fullmatch(text))
