"""The games in play, as the stores know them: what a queue Redis that lost its data is rebuilt from.

The agenda, the jobs and the players' shares live on the queue's Redis (:mod:`service.jobqueue.agenda`), which may lose its
data (no persistence, ``appendfsync everysec`` and a host crash, a new server).  What a game needs to move on can be
found again from its stream; what cannot be found from the queue then is *which* games to look at.  This index
keeps them, on the stores:

- ``<prefix>inplay:{<n>}`` a set of game ids, for ``n`` in ``0 .. BUCKETS - 1`` (the bucket a stable hash of the
  game id names), so that a Redis Cluster spreads the index over several slots and no set grows without bound.

A game is entered *before* its first append (a crash between leaves an id whose game is not there, which a look
drops) and leaves once it is over and owes nothing more (the ticker finds it so), or when a look finds it gone.
An over game that comes to need something again (a rematch offered) is entered again.  An entry too many costs a
look; an entry missing would leave a game to its readers, so entries are written first and removed last.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import redis

#: How many sets the index is spread over (fixed: a game's bucket must not move).
BUCKETS = 16


def bucket_of(game_id: str) -> int:
    """The bucket a game's id is kept in: a stable hash (CRC-32), the same in every process and release."""
    return zlib.crc32(game_id.encode()) % BUCKETS


class GamesInPlay:
    """The index of games in play (see the module)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def key(self, bucket: int) -> str:
        return f"{self.prefix}inplay:{{{bucket}}}"

    def add(self, game_id: str) -> None:
        self.redis.sadd(self.key(bucket_of(game_id)), game_id)

    def discard(self, game_id: str) -> None:
        self.redis.srem(self.key(bucket_of(game_id)), game_id)

    def __contains__(self, game_id: object) -> bool:
        return isinstance(game_id, str) and bool(self.redis.sismember(self.key(bucket_of(game_id)), game_id))

    def scan(self, count: int = 500) -> Iterator[str]:
        """Every game in the index (SSCAN: a game entered or removed meanwhile may or may not be seen)."""
        for bucket in range(BUCKETS):
            for member in self.redis.sscan_iter(self.key(bucket), count=count):
                yield member.decode() if isinstance(member, bytes) else str(member)
