"""The handle rule: what a handle may be, which are reserved, and how a reference to a player is read.

A handle is 3 to 20 characters, each an ASCII letter, digit, ``_`` or ``-`` (:data:`HANDLE_PATTERN`), unique
without regard to case (stored as given, compared folded to lower case: :func:`~service.storage.handles.fold`).
Reserved, and refused (``handle_reserved``): the words in :data:`RESERVED`, which a player could use to pose as
the service, or which a path or a label already means (``me`` is ``/v1/players/me``; "deleted player" is how a
table names a deleted account), and anything shaped like a player's id (``p_`` and 16 hex digits), so that
``getPlayer`` tells an id from a handle by its shape alone.

A word is reserved in every spelling that reads as it (:func:`is_reserved`): what sets words apart (``_``, ``-``)
and digits are folded away (``support1``, ``admin_``, ``m-e``), and so are digits written for the letters they look
like (``adm1n``, ``5upport``).  The words the AIs and the staff go by (:data:`POSING`) are reserved as a word of a
handle too (``ai_random``, ``ai-random``, ``bob_admin``), and a handle may not start with a staff title or an AI's
name run together (:data:`STEMS`: ``adminbob``, ``airandom``).  A fan may still be ``Red7_fan``: only staff titles
and the AIs' names are read inside a handle.
Handles taken before the rule grew keep working: only a claim is checked (:func:`check_handle`).
"""

from __future__ import annotations

import re

from service.common.errors import Refused
from service.domain.lobby import AI_LEVELS
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

#: Words the AIs and the staff go by: reserved as any word of a handle, not only as the whole of it.
POSING = frozenset(
    {"ai", "bot", "admin", "administrator", "mod", "moderator", "staff", "support", "system", "official", "root", "sysop"}
)
#: What a handle (folded) may not start with: staff titles, and an AI's name run together (``airandom``).
STEMS = (
    "admin",
    "moderator",
    "support",
    "system",
    "official",
    *(f"{word}{level}" for word in ("ai", "bot") for level in (*AI_LEVELS, "bot", "ai")),
)
#: Digits written for the letters they look like (``adm1n``, ``r00t``, ``5upport``).
_LOOKALIKES = str.maketrans("013457", "oieast")
#: Digits touching a letter: written for letters (``adm1n``), unlike digits that stand apart (``bo_7``).
_IN_A_WORD = re.compile(r"(?<=[a-z])[0-9]+|[0-9]+(?=[a-z])")
_SEPARATORS = re.compile(r"[_-]+")
_DIGITS = re.compile(r"[0-9]+")
#: :data:`RESERVED` as handles are compared here: without separators.
_RESERVED_FOLDED = frozenset(_SEPARATORS.sub("", word) for word in RESERVED)

_HANDLE = re.compile(HANDLE_PATTERN)
#: A player's id, as :func:`~service.storage.players.new_id` makes them.
_PLAYER_ID = re.compile(r"^p_[0-9a-f]{16}$")


def _refused(code: str, detail: str, message: str) -> Refused:
    return Refused(code, detail, errors=[{"field": "handle", "message": message, "location": "json"}])


def _words(text: str) -> list[str]:
    """The letters of ``text``'s words: split where a separator or a digit stands, digits dropped."""
    return [word for word in _SEPARATORS.split(_DIGITS.sub("-", text)) if word]


def _as_letters(digits: re.Match[str]) -> str:
    return digits[0].translate(_LOOKALIKES)


def is_reserved(handle: str) -> bool:
    """Whether ``handle`` reads as a reserved word, a word the AIs or the staff go by, or a player's id (the module's
    docstring says in which spellings)."""
    folded = fold(handle)
    if _PLAYER_ID.fullmatch(folded) or _SEPARATORS.sub("", folded) in _RESERVED_FOLDED:  # "red-7", "deleted-player"
        return True
    for spelling in (folded, _IN_A_WORD.sub(_as_letters, folded)):  # as written, and digits in a word read as letters
        words = _words(spelling)
        core = "".join(words)
        if core in _RESERVED_FOLDED or POSING.intersection(words) or core.startswith(STEMS):
            return True
    return False


def check_handle(handle: str) -> None:
    """Refuse a handle that breaks the rule (``handle_invalid``) or is reserved (``handle_reserved``)."""
    if is_reserved(handle):  # first: "me" is reserved, whatever its length
        raise _refused("handle_reserved", f"The handle {handle!r} is reserved; choose another.", "is reserved")
    if not _HANDLE.fullmatch(handle):
        raise _refused("handle_invalid", f"A handle is {HANDLE_RULE}; not {handle!r}.", f"must be {HANDLE_RULE}")


def is_handle(text: str) -> bool:
    """Whether ``text`` could be someone's handle (by the rule; the words reserved from the start are nobody's, and a
    handle taken before :func:`is_reserved` grew is still found)."""
    return bool(_HANDLE.fullmatch(text)) and fold(text) not in RESERVED and not _PLAYER_ID.fullmatch(fold(text))


def is_player_id(text: str) -> bool:
    return bool(_PLAYER_ID.fullmatch(text))
