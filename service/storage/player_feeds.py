"""Each player's feed of notices: one Redis stream per player, on the player's slot, trimmed by length and age.

Every notice a webhook or a push carries is first written here (``service.application.player_feeds``), so the
stream entry's id is the notice's id everywhere: the feed's ``Last-Event-ID``, the inbox's cursor, and the
``notification_id`` a webhook and a push carry so that an app told twice keeps one.

- ``<prefix>player:{<id>}:feed`` the stream; each entry the notice's code and what it is about (``k`` its kind,
  ``s`` the game or challenge, ``v`` its version, ``g`` the game a challenge or a match made), never a text
- ``<prefix>player:{<id>}:feed:read`` the id of the newest notice read (on every device of the player)

Both keys share the player's hash tag (one Redis Cluster slot: an append and its trim go in one transaction, the
unread count in one script).  A stream keeps at most :data:`MAX_NOTICES` notices, none older than
:data:`KEEP_SECONDS` (trimmed at each append; an idle feed's keys expire that long after its last notice).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis

from service.storage.events.waiting import Waiter, block_slice, read_blocking
from service.storage.players.keys import feed_key, feed_read_key

#: The most notices a player's feed keeps (the oldest go first).
MAX_NOTICES = 500
#: How long a notice is kept (seconds): 30 days.
KEEP_SECONDS = 30 * 24 * 3600

#: Marks notices read up to an id (never back, never past the newest notice); answers how many are unread after.
_MARK_READ = """
local function after(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
local upto = ARGV[1]
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #newest == 0 then return {redis.call('GET', KEYS[2]) or '0-0', 0} end
if after(upto, newest[1][1]) then upto = newest[1][1] end
local read = redis.call('GET', KEYS[2]) or '0-0'
if after(upto, read) then
  read = upto
  redis.call('SET', KEYS[2], read, 'EX', ARGV[2])
end
return {read, #redis.call('XRANGE', KEYS[1], '(' .. read, '+', 'COUNT', ARGV[3])}
"""

#: Appends a notice unless one of the newest few is the same (a notify repeated: a retried request, a second look);
#: trims by length and age; keeps the key for the age.  Answers the notice's id (the earlier one's, if repeated).
_APPEND = """
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ARGV[7])
for _, entry in ipairs(newest) do
  local f = {}
  for i = 1, #entry[2], 2 do f[entry[2][i]] = entry[2][i + 1] end
  if f['k'] == ARGV[1] and f['s'] == ARGV[2] and f['v'] == ARGV[3] and (f['g'] or '') == ARGV[4] then
    return entry[1]
  end
end
local id
if ARGV[4] == '' then
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], '*', 'k', ARGV[1], 's', ARGV[2], 'v', ARGV[3])
else
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], '*', 'k', ARGV[1], 's', ARGV[2], 'v', ARGV[3], 'g', ARGV[4])
end
redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[8])
return id
"""

#: The newest notices an append compares a new one with (a repeat comes at once, or not at all).
REPEAT_WITHIN = 8

#: How many notices came after the one read last.
_UNREAD = """
local read = redis.call('GET', KEYS[2]) or '0-0'
return #redis.call('XRANGE', KEYS[1], '(' .. read, '+', 'COUNT', ARGV[1])
"""


@dataclass(frozen=True, slots=True)
class StoredNotice:
    """A notice as the feed keeps it: its id (``<ms>-<n>``), kind, subject, version and the game it names."""

    id: str
    kind: str
    subject_id: str
    version: int
    game_id: str | None


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _notice(entry_id: bytes | str, fields: Mapping[bytes | str, bytes | str]) -> StoredNotice:
    got = {_text(k): _text(v) for k, v in fields.items()}
    return StoredNotice(_text(entry_id), got["k"], got["s"], int(got["v"]), got.get("g") or None)


class PlayerFeedStore:
    """The players' feeds (see the module)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:", waits: redis.Redis | None = None) -> None:
        """``waits``: the client of the blocking reads (``service.storage.connections.waiting_client``: a socket
        timeout a heartbeat long, so that an idle feed blocks in one read), default ``client``."""
        self.redis, self.prefix = client, prefix
        self.waits = waits if waits is not None else client
        self._block_slice = block_slice(self.waits)
        self._append = client.register_script(_APPEND)
        self._mark = client.register_script(_MARK_READ)
        self._unread = client.register_script(_UNREAD)

    def key(self, player_id: str) -> str:
        return feed_key(self.prefix, player_id)

    def append(self, player_id: str, kind: str, subject_id: str, version: int, game_id: str | None) -> str:
        """Write one notice to the player's feed, trimmed by length and age in the same script; its id (the earlier
        one's, when one of the newest :data:`REPEAT_WITHIN` is the same notice: a notify repeated is one notice)."""
        oldest = int((time.time() - KEEP_SECONDS) * 1000)
        args: list[str | int] = [
            kind,
            subject_id,
            version,
            game_id or "",
            MAX_NOTICES,
            f"{oldest}-0",
            REPEAT_WITHIN,
            KEEP_SECONDS,
        ]
        return _text(self._append(keys=[self.key(player_id)], args=args))

    def after(self, player_id: str, after: str, count: int) -> list[StoredNotice]:
        """The notices after ``after`` (oldest first), at most ``count``."""
        found: Any = self.redis.xrange(self.key(player_id), f"({after}", "+", count=count)
        return [_notice(i, f) for i, f in found]

    def before(self, player_id: str, before: str | None, count: int) -> list[StoredNotice]:
        """The notices before ``before`` (all of them without it), newest first, at most ``count``."""
        found: Any = self.redis.xrevrange(self.key(player_id), f"({before}" if before else "+", "-", count=count)
        return [_notice(i, f) for i, f in found]

    def newest_id(self, player_id: str) -> str:
        """The id of the newest notice (``0-0``: none)."""
        found: Any = self.redis.xrevrange(self.key(player_id), "+", "-", count=1)
        return _text(found[0][0]) if found else "0-0"

    def wait(self, player_id: str, after: str, timeout: float, waiter: Waiter | None = None) -> bool:
        """Block up to ``timeout`` seconds until the feed holds a notice after ``after`` (``False``: none came, or
        ``waiter`` stopped the wait)."""
        return read_blocking(self.waits, {self.key(player_id): after}, timeout, waiter, self._block_slice)

    def read_up_to(self, player_id: str) -> str:
        found = self.redis.get(feed_read_key(self.prefix, player_id))
        return _text(found) if found else "0-0"

    def mark_read(self, player_id: str, upto: str) -> tuple[str, int]:
        """Mark the notices up to ``upto`` read; the newest read and how many are unread now."""
        keys = [self.key(player_id), feed_read_key(self.prefix, player_id)]
        read, unread = self._mark(keys=keys, args=[upto, KEEP_SECONDS, MAX_NOTICES])
        return _text(read), int(unread)

    def unread(self, player_id: str) -> int:
        keys = [self.key(player_id), feed_read_key(self.prefix, player_id)]
        return int(self._unread(keys=keys, args=[MAX_NOTICES]))

    def forget(self, player_id: str) -> None:
        """A deleted account's feed goes with it."""
        self.redis.delete(self.key(player_id), feed_read_key(self.prefix, player_id))


def valid_id(text: str) -> bool:
    """Whether ``text`` reads as a notice's id (``<ms>-<n>``)."""
    ms, dash, seq = text.partition("-")
    return bool(dash) and ms.isdigit() and seq.isdigit() and len(text) <= 41


__all__ = ["KEEP_SECONDS", "MAX_NOTICES", "PlayerFeedStore", "StoredNotice", "valid_id"]
