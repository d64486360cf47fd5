"""Table talk in Redis: each game's messages, an append-only stream on the game's slot, apart from its events.

Keys (hash-tagged by the game, ``{<id>}``: the slot of its ``game:{<id>}:...`` keys, so a game's data moves together):

- ``<prefix>talk:{<id>}:messages`` a stream: one entry a message (field ``m``: its JSON), appended, never edited
- ``<prefix>talk:{<id>}:idem`` a hash: for each Idempotency-Key a player sent (``<player id>:<sha256 of the key,
  16 hex>``) → ``<fingerprint> <entry id>``; the hash lives a TTL after its last record

The keys are not under ``game:`` on purpose: a message is no change of the game (its version, its cached fold and
the watches that invalidate them stay as they are).  A game's events are kept for good, and so are its messages,
bounded by :data:`MAX_MESSAGES` a game.  One script (:data:`SAY`) checks the record, the bound, appends and records:
a retry answers the message the first attempt appended, never a second one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.storage.events import Idempotency, IdempotencyMismatch, short_fingerprint

#: The most messages a game's table keeps (past it: refused).
MAX_MESSAGES = 2000

#: KEYS: messages, idem.  ARGV: record field ('' without a key), fingerprint, ttl, bound, the message's JSON.
#: ``{0, record}``: answered before; ``{1, id}``: appended; ``{2}``: the table is full.
SAY = """
if ARGV[1] ~= '' then
  local record = redis.call('HGET', KEYS[2], ARGV[1])
  if record then return {0, record} end
end
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[4]) then return {2} end
local id = redis.call('XADD', KEYS[1], '*', 'm', ARGV[5])
if ARGV[1] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ' ' .. id)
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
end
return {1, id}
"""


class TableFull(Exception):
    """The game's table holds :data:`MAX_MESSAGES` already."""


@dataclass(frozen=True, slots=True)
class Said:
    """A stored message: its entry id, its fields, and whether a retry found it (``replayed``)."""

    id: str
    fields: dict[str, Any]
    replayed: bool = False


def messages_key(prefix: str, game_id: str) -> str:
    return f"{prefix}talk:{{{game_id}}}:messages"


def records_key(prefix: str, game_id: str) -> str:
    return f"{prefix}talk:{{{game_id}}}:idem"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _said(entry: Any) -> Said:
    entry_id, fields = entry
    raw = fields.get("m", fields.get(b"m"))
    return Said(_text(entry_id), json.loads(_text(raw)))


class TalkStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:", *, bound: int = MAX_MESSAGES) -> None:
        self.redis = client
        self.prefix = prefix
        self.bound = bound
        self._say = client.register_script(SAY)

    def say(self, game_id: str, author_id: str, fields: dict[str, Any], idempotency: Idempotency | None = None) -> Said:
        """Append a message (``fields``, JSON-able); with ``idempotency``, the one a first attempt appended, if any
        (:class:`IdempotencyMismatch`: the key named another request).  :class:`TableFull` past the bound."""
        record = ""
        if idempotency is not None:
            record = f"{author_id}:{hashlib.sha256(idempotency.key.encode()).hexdigest()[:16]}"
        args: list[str | int] = [
            record,
            short_fingerprint(idempotency.fingerprint) if idempotency else "",
            idempotency.ttl if idempotency else 0,
            self.bound,
            json.dumps(fields, separators=(",", ":"), ensure_ascii=False),
        ]
        reply = cast(
            "list[Any]", self._say(keys=[messages_key(self.prefix, game_id), records_key(self.prefix, game_id)], args=args)
        )
        status = int(reply[0])
        if status == 2:
            raise TableFull(game_id)
        if status == 1:
            return Said(_text(reply[1]), fields)
        assert idempotency is not None
        fingerprint, entry_id = _text(reply[1]).split(" ", 1)
        if not idempotency.same_request(fingerprint):
            raise IdempotencyMismatch("this Idempotency-Key was already used for a different request")
        found = self.get(game_id, entry_id)
        assert found is not None  # an entry is never removed
        return Said(found.id, found.fields, replayed=True)

    def get(self, game_id: str, entry_id: str) -> Said | None:
        try:
            entries = cast("list[Any]", self.redis.xrange(messages_key(self.prefix, game_id), entry_id, entry_id))
        except redis.ResponseError:  # not an entry id
            return None
        return _said(entries[0]) if entries else None

    def after(self, game_id: str, after: str | None, count: int) -> list[Said]:
        """Up to ``count`` messages after the entry ``after`` (``None``: from the first), oldest first."""
        start = "-" if after is None else f"({after}"
        entries = cast("list[Any]", self.redis.xrange(messages_key(self.prefix, game_id), start, "+", count=count))
        return [_said(entry) for entry in entries]

    def last_id(self, game_id: str) -> str | None:
        """The newest entry's id (``None``: no message yet): where a feed starts to follow the table."""
        entries = cast("list[Any]", self.redis.xrevrange(messages_key(self.prefix, game_id), "+", "-", count=1))
        return _text(entries[0][0]) if entries else None
