"""Moderation in Redis: the operator's words, the moderators, each player's standing, and the audit log.

``<prefix>mod:words``                a set: the words an operator added to the filter (``red7 mod words add``)
``<prefix>mod:moderators``           a set: the ids of the players who hold the moderator role
``<prefix>player:{<id>}:standing``   a hash on the player's slot: ``terms`` (the version they accepted), ``sanction``
                                     (JSON: kind, until, reason: a suspension or a ban), ``mute`` (the same, for a
                                     mute).  Written only when there is something to keep, so a player nobody acted
                                     on and who signed up without terms has no such key.
``<prefix>player:{<id>}:notices``    a list on the player's slot: what moderation told them (newest first, 50 kept)
``<prefix>mod:log``                  a stream: the audit log, appended to, never edited (``XADD``; nothing trims it).

Each write is one command on one key (so one slot): nothing here needs a transaction across players.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.storage.players.keys import player_key

#: How many notices a player keeps (the newest).
NOTICES_KEPT = 50


def standing_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:standing"


@dataclass(frozen=True, slots=True)
class Sanction:
    """What a moderator decided that still holds: ``kind`` (``mute``, ``suspend``, ``ban``), ``until`` (ISO 8601 UTC;
    ``None``: for good), ``reason`` (the report's reason or a moderator's words), ``at`` (when decided)."""

    kind: str
    until: str | None
    reason: str
    at: str


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's standing: the terms' version accepted (``""``: none), a suspension or a ban, a mute."""

    terms: str = ""
    sanction: Sanction | None = None  # a suspension or a ban
    mute: Sanction | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One audit record: its id (the stream's, ordered by time), who acted (a player's id or ``operator``), on whom,
    what, why, when, and the report it answers (``None``: acted without one)."""

    id: str
    by: str
    player_id: str
    action: str
    reason: str
    at: str
    report_id: str | None
    until: str | None


class ModerationStore:
    """The keys above, each read or written in one command."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix

    # --- the operator's words --------------------------------------------------------------

    def words(self) -> frozenset[str]:
        return frozenset(self.redis.smembers(f"{self.prefix}mod:words"))  # type: ignore[arg-type]

    def add_words(self, words: list[str]) -> None:
        if words:
            self.redis.sadd(f"{self.prefix}mod:words", *words)

    def remove_words(self, words: list[str]) -> None:
        if words:
            self.redis.srem(f"{self.prefix}mod:words", *words)

    # --- the moderators --------------------------------------------------------------------

    def is_moderator(self, player_id: str) -> bool:
        return bool(self.redis.sismember(f"{self.prefix}mod:moderators", player_id))

    def set_moderator(self, player_id: str, granted: bool) -> None:
        key = f"{self.prefix}mod:moderators"
        self.redis.sadd(key, player_id) if granted else self.redis.srem(key, player_id)

    def moderators(self) -> list[str]:
        return sorted(self.redis.smembers(f"{self.prefix}mod:moderators"))  # type: ignore[arg-type]

    # --- a player's standing ---------------------------------------------------------------

    def standing(self, player_id: str) -> Standing:
        fields: dict[str, str] = self.redis.hgetall(standing_key(self.prefix, player_id))  # type: ignore[assignment]
        sanction = json.loads(fields["sanction"]) if fields.get("sanction") else None
        mute = json.loads(fields["mute"]) if fields.get("mute") else None
        return Standing(
            terms=fields.get("terms", ""),
            sanction=Sanction(**sanction) if sanction else None,
            mute=Sanction(**mute) if mute else None,
        )

    def accept_terms(self, player_id: str, version: str) -> None:
        self.redis.hset(standing_key(self.prefix, player_id), "terms", version)

    def sanction(self, player_id: str, sanction: Sanction | None, field: str = "sanction") -> None:
        """Keep ``sanction`` as the player's ``field`` (``sanction``: a suspension or a ban; ``mute``), or lift it."""
        key = standing_key(self.prefix, player_id)
        if sanction is None:
            self.redis.hdel(key, field)
        else:
            fields = {"kind": sanction.kind, "until": sanction.until, "reason": sanction.reason, "at": sanction.at}
            self.redis.hset(key, field, json.dumps(fields))

    # --- what a player is told -------------------------------------------------------------

    def tell(self, player_id: str, notice: dict[str, Any]) -> None:
        """Keep a notice for the player (the newest :data:`NOTICES_KEPT`)."""
        key = f"{player_key(self.prefix, player_id)}:notices"
        self.redis.lpush(key, json.dumps(notice))
        self.redis.ltrim(key, 0, NOTICES_KEPT - 1)

    def notices(self, player_id: str) -> list[dict[str, Any]]:
        """The player's notices, newest first."""
        key = f"{player_key(self.prefix, player_id)}:notices"
        return [json.loads(item) for item in cast("list[str]", self.redis.lrange(key, 0, NOTICES_KEPT - 1))]

    # --- the audit log ---------------------------------------------------------------------

    def log(self, entry: dict[str, Any]) -> str:
        """Append one record; its id (the stream's: the records are in the order they were written)."""
        fields = {name: "" if value is None else str(value) for name, value in entry.items()}
        return str(self.redis.xadd(f"{self.prefix}mod:log", fields))  # type: ignore[arg-type]

    def read_log(self, after: str = "-", count: int = 50) -> list[LogEntry]:
        """Up to ``count`` records after the one with id ``after`` (``-``: from the first), oldest first."""
        start = "-" if after == "-" else f"({after}"
        rows = cast("list[tuple[str, dict[str, str]]]", self.redis.xrange(f"{self.prefix}mod:log", start, "+", count=count))
        return [
            LogEntry(
                id=str(entry_id),
                by=fields.get("by", ""),
                player_id=fields.get("player_id", ""),
                action=fields.get("action", ""),
                reason=fields.get("reason", ""),
                at=fields.get("at", ""),
                report_id=fields.get("report_id") or None,
                until=fields.get("until") or None,
            )
            for entry_id, fields in rows
        ]
