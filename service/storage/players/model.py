"""What the player's store deals in: a player, a token as the server knows it, a player's record and tag, the
refusals, and the ids and token digests it makes."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

TOKEN_PREFIX = "r7_"
MAX_TOKENS = 20  # per player: enough for every device, and a bound on what a stolen token can mint


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_id(kind: str) -> str:
    return f"{kind}_{secrets.token_hex(8)}"


def as_text(value: bytes | str) -> str:
    """A reply of the store's client, which decodes responses (``decode_responses=True``): a ``str`` already."""
    return value.decode() if isinstance(value, bytes) else value


def as_texts(fields: Mapping[bytes | str, bytes | str]) -> dict[str, str]:
    """A hash read with ``HGETALL``, as text (see :func:`as_text`)."""
    return {as_text(name): as_text(value) for name, value in fields.items()}


def stored_player(player_id: str, data: Mapping[str, str]) -> Player | None:
    """The player a record holds; ``None`` for none, or a deleted account's tombstone (it has no name)."""
    if "name" not in data or "deleted_at" in data:
        return None
    return Player(
        player_id,
        data["name"],
        data["created_at"],
        data.get("webhook_url") or None,
        data.get("webhook_secret") or None,
        data.get("handle") or None,
        data.get("language") or None,
        data.get("live_hidden") != "1",
    )


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as the server knows it (the token itself is never kept); only id, label and time are shown."""

    id: str
    label: str
    created_at: str
    digest: str  # the SHA-256, to tell which token a request came with; not for output
    scopes: tuple[str, ...] | None = None  # what it may do (service/domain/scopes.py); None: stored before scopes, all


@dataclass(frozen=True, slots=True)
class Grant:
    """Who a token speaks for and what it may do: ``scopes`` as stored with it (``None``: a token stored without any,
    before scopes existed or issued in full, which may do everything)."""

    player: Player
    scopes: tuple[str, ...] | None = None


def lookup_value(player_id: str, scopes: tuple[str, ...] | None) -> str:
    """What a token's lookup key holds: its player's id, then its scopes if it has a set (space-separated; a scope
    has no space).  A token stored before scopes holds the id alone, and so does a full one: both may do all."""
    return player_id if scopes is None else " ".join((player_id, *scopes)) if scopes else player_id + " "


def read_lookup(value: str) -> tuple[str, tuple[str, ...] | None]:
    """The player's id and the scopes a lookup key holds (:func:`lookup_value`)."""
    player_id, spaced, rest = value.partition(" ")
    return player_id, (tuple(rest.split()) if spaced else None)


class TooManyTokens(Exception):
    pass


class AccountGone(Exception):
    """The account was deleted (or never was): nothing of it is written, and a token issued as it went was unmade."""


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    created_at: str
    webhook_url: str | None = None
    webhook_secret: str | None = None
    handle: str | None = None
    language: str | None = None  # the language the player chose for the service's texts (service/common/texts.py)
    live_listed: bool = True  # their games in play may be listed as live games to watch (listLiveGames)


@dataclass(frozen=True, slots=True)
class PlayerTag:
    """What a table shows of the player in a seat: their handle, or that the account was deleted."""

    handle: str | None
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Record:
    """Finished games the player played and won; ``complete``: kept since sign-up, or rebuilt since."""

    played: int
    won: int
    complete: bool
