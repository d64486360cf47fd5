"""What the projections of finished games still owe (issue 41, item 1): the rated games not yet on their ladder (the
ratings projection's lag) and the over games not yet compacted (the compaction's backlog).

A sorted set each on the queue's Redis, member a game's id, score when it was owed (epoch ms): a rated game from its
finish, an over game from the end of its grace (``compact_after``).  The dispatcher writes them where it already
decides whether to watch a game's ``rate`` and ``compact`` jobs (:meth:`service.jobqueue.dispatch.Dispatcher._offer`):
owed while the ladder lacks the game or the store holds it uncompacted, settled once a look finds it done.  So an entry
costs a finished game one write at its end and one at the look after its job; a move costs nothing.  They are read
only when metrics are scraped (:class:`service.jobqueue.metrics.BacklogCollector`).  A queue Redis that lost them
finds them again as the ticker looks at the games again (the agenda rebuilt); meanwhile they read low.
"""

from __future__ import annotations

from typing import Any

import redis


class Backlog:
    """Games a projection owes (see the module)."""

    def __init__(self, connection: redis.Redis, key: str) -> None:
        self.redis = connection
        self.key = key

    def owed(self, game_id: str, since_ms: int) -> None:
        """``game_id`` is owed since ``since_ms`` (a game owed already keeps its time)."""
        self.redis.zadd(self.key, {game_id: since_ms}, nx=True)

    def settled(self, game_id: str) -> None:
        self.redis.zrem(self.key, game_id)

    def ask(self, client: Any, now_ms: int) -> None:
        """Ask, on a pipeline of this Redis, what :meth:`read` reads from its replies (three of them)."""
        client.zcard(self.key)
        client.zcount(self.key, "-inf", now_ms)
        client.zrange(self.key, 0, 0, withscores=True)

    @staticmethod
    def read(replies: list[Any], now_ms: int) -> tuple[int, int, float]:
        """How many games are owed, how many of them are owed already at ``now_ms``, and how long (s) the one owed
        longest has waited (0: none)."""
        owed, due, oldest = replies
        waited = max(0.0, (now_ms - int(oldest[0][1])) / 1000) if oldest else 0.0
        return int(owed), int(due), waited
