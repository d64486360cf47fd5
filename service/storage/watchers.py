"""Who is watching a game now: one lease per open spectator feed, in a sorted set per game, each scored by when it ends.

A counter (INCR as a stream opens, DECR as it closes) leaks for good when a process dies between the two, and it
cannot tell a long-poll that will come back from one that will not.  A lease cannot leak: a feed that closes takes
its lease away, and one whose process died (or whose client stopped polling) is no longer counted once its time is
up, whatever happened.  The count is the number of leases not yet over.

- ``<prefix>watchers:{<game_id>}`` a sorted set: member a lease's id, score when it ends (ms since the epoch).
  The key expires a while after the last lease taken or renewed (longer than any lease), so a game nobody
  watches leaves nothing behind.

Each write touches one key (one slot); a count of several games asks each game's key apart (a pipeline without a
transaction, which a Redis Cluster client splits by node).
"""

from __future__ import annotations

from collections.abc import Sequence

import redis

#: The longest a lease may be taken for (ms); a longer one asked is cut to it.
LONGEST_LEASE_MS = 600_000
#: How long a game's set lives after its last write (ms): longer than any lease in it.
KEY_TTL_MS = LONGEST_LEASE_MS + 60_000


class WatcherLeases:
    """The leases of the spectators of each game (see the module)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def key(self, game_id: str) -> str:
        return f"{self.prefix}watchers:{{{game_id}}}"

    def hold(self, game_id: str, lease: str, until_ms: int, now_ms: int) -> None:
        """Take or renew ``lease`` until ``until_ms``; leases over by ``now_ms`` are swept out on the way."""
        key = self.key(game_id)
        with self.redis.pipeline(transaction=True) as pipe:  # one key: one slot
            pipe.zremrangebyscore(key, "-inf", now_ms)
            pipe.zadd(key, {lease: min(until_ms, now_ms + LONGEST_LEASE_MS)})
            pipe.pexpire(key, KEY_TTL_MS)
            pipe.execute()

    def release(self, game_id: str, lease: str) -> None:
        """The feed closed: its lease goes now (a lease already gone is no error)."""
        self.redis.zrem(self.key(game_id), lease)

    def count(self, game_ids: Sequence[str], now_ms: int) -> dict[str, int]:
        """How many leases of each game are not over at ``now_ms``."""
        if not game_ids:
            return {}
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.zcount(self.key(game_id), f"({now_ms}", "+inf")
            found = pipe.execute()
        return {game_id: int(n) for game_id, n in zip(game_ids, found, strict=True)}
