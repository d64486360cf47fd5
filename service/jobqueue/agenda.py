"""The agenda: every game that waits on the service (an AI turn, scoring, a deadline) and when to look at it next.

A sorted set, member the game id, score the time in epoch milliseconds.  The
dispatcher writes it after every append — "look at this game at its deadline",
or "a few seconds from now, in case the job just queued never runs" — and
clears it when the game waits on nobody but its players.  The ticker
(:mod:`workers.ticker`) reads what has come due.  So a game moves on even
when nobody reads it and whatever happened to the job meant to move it.

It is written next to the append, never inside it, so that it can live on
another Redis than the game (the queue's) and a Redis Cluster never sees a
cross-slot write.  A lost write heals on the game's next read or append.

The queue's Redis may lose the agenda whole (no persistence, a crash under
``appendfsync everysec``, a new server): the stores keep which games are in
play (:mod:`service.storage.inplay`), and the ticker puts each back on the
agenda (:meth:`Agenda.seed`) when the agenda's marker does not name the
server it talks to — missing (the data was lost), or naming another run of it
(a restart, which may have lost the last second of writes, or a failover).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import redis

#: Set a game's next look only if nobody changed it since it was read (an append may have, meanwhile).
RESCHEDULE_SCRIPT = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


class Agenda:
    def __init__(self, connection: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = connection
        self.key = f"{prefix}agenda"
        #: Which run of the queue's Redis the agenda was last rebuilt on (its ``run_id``): see :meth:`seed`.
        self.marker_key = f"{prefix}agenda:seeded"
        self._reschedule = connection.register_script(RESCHEDULE_SCRIPT)

    def look_at(self, game_id: str, at_ms: int) -> None:
        self.redis.zadd(self.key, {game_id: at_ms})

    def forget(self, game_id: str) -> None:
        self.redis.zrem(self.key, game_id)

    def when(self, game_id: str) -> int | None:
        score = self.redis.zscore(self.key, game_id)
        return None if score is None else int(score)

    def due(self, now_ms: int, limit: int = 100) -> list[tuple[str, int]]:
        """Games whose time has come, earliest first, with the score each was read at."""
        return self.read_due(self.ask_due(self.redis, now_ms, limit))

    def ask_due(self, client: Any, now_ms: int, limit: int = 100) -> Any:
        """Ask for :meth:`due` on ``client`` (this agenda's Redis, or a pipeline of it: then :meth:`read_due` reads
        the reply ``execute`` gives)."""
        return client.zrangebyscore(self.key, "-inf", now_ms, start=0, num=limit, withscores=True)

    def ask_late(self, client: Any, before_ms: int) -> Any:
        """Ask how many games' looks were due before ``before_ms`` (on ``client``, or a pipeline of it)."""
        return client.zcount(self.key, "-inf", before_ms)

    @staticmethod
    def read_due(reply: Any) -> list[tuple[str, int]]:
        # WITHSCORES: (member, score) pairs; redis-py's type covers every form of the reply.
        found = cast("list[tuple[bytes | str, float]]", reply)
        return [(member.decode() if isinstance(member, bytes) else member, int(score)) for member, score in found]

    def reschedule(self, game_id: str, seen_ms: int, at_ms: int | None) -> bool:
        """Look at the game next at ``at_ms`` (``None``: no more), unless it was rescheduled since it was read."""
        return bool(self._reschedule(keys=[self.key], args=[game_id, seen_ms, "" if at_ms is None else at_ms]))

    def seed(self, game_ids: Sequence[str], at_ms: int) -> None:
        """Look at these games at ``at_ms`` at the latest (an earlier look already noted stays): the agenda rebuilt
        from the stores' games in play after the queue's Redis lost it, or some of it."""
        if game_ids:
            self.redis.zadd(self.key, dict.fromkeys(game_ids, at_ms), lt=True)

    def mark_seeded(self, run_id: str) -> None:
        """Note that the agenda holds every game in play on this run of the queue's Redis."""
        self.redis.set(self.marker_key, run_id)
