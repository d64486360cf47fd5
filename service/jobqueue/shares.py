"""Fair shares of the workers: how many AI turns one player's games may have on their way at once.

The games' queue is first come, first served.  A player with many games
against AIs (up to their AI-seat quota) would fill it: every one of their
games queues a turn, an expert thinks a second a move, and another player's
AI turn waits behind all of them.  So each player — the creator of a game,
who chose its AI seats — holds at most ``per_player`` AI turns queued or
running.  A turn over that share is not queued: its game waits in the
player's line, and the job that frees a place offers the earliest game of
that line (:meth:`Shares.waiting`).  Then whoever else needs a worker finds
one at once, as long as there are more workers than the share; a busy
player's games go on as fast as their share lets them, one at a time by
default, in the order they asked.

A job that dies with its worker (``kill -9``, Redis lost under it) never says
it is done.  Its place is taken back as soon as a turn of that player is refused
and the dispatcher finds the holder is no longer on its way (its worker stopped
pulsing, or it fell out of RQ: the same test that queues a lost job again), and
at the latest when its hold lapses (:data:`HOLD_MS`).

With several queue shards (:mod:`service.jobqueue.shards`) each shard keeps its own shares, of the player's games it serves:
a player then has at most ``per_player`` turns on their way on each shard.

Keys, hash-tagged by player so that each script touches one slot:
``<prefix>ai-turns:{<player>}`` (a sorted set: the ids of the player's AI-turn
jobs on their way, scored by when their hold lapses, so that a job whose worker
died gives its place back) and ``<prefix>ai-line:{<player>}`` (a sorted set:
the games waiting for a place, scored by when they began to wait).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import redis
from redis.exceptions import NoScriptError

#: How long a place is held for a job that never says it is done (its worker killed), in ms.  A healed job
#: (queued again under the same id) keeps its place, so this bounds only how long a crash can hold one.
HOLD_MS = 60_000

#: A line nobody touched for this long (ms) is dropped: every game in it has long been looked at again by the ticker.
LINE_KEPT_MS = 24 * 3600 * 1000

#: KEYS: the player's turns, their line.  ARGV: job id, game id, now (ms), hold until (ms), the share, the prefix
#: of the game's AI-turn job ids, and how long each key is kept.  A game's next turn, queued by its running turn
#: (two AIs in a row), takes over that turn's place when no other game of the player waits; when one does, it
#: queues behind it.  A free place goes to whoever asks first (the line's first game is offered each place that a
#: job gives back, and the ticker looks at every waiting game every few seconds, so a lost hand-over costs seconds).
ADMIT_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local function hold()
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 1
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return hold() end
local others = redis.call('ZCARD', KEYS[2]) - (redis.call('ZSCORE', KEYS[2], ARGV[2]) and 1 or 0) > 0
if not others then
  for _, held in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.sub(held, 1, #ARGV[6]) == ARGV[6] then
      redis.call('ZREM', KEYS[1], held)
      return hold()
    end
  end
end
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[5]) then return hold() end
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[8])
return 0
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Shares:
    def __init__(self, connection: redis.Redis, prefix: str = "red7:", per_player: int = 1) -> None:
        self.redis = connection
        self.prefix = prefix
        self.per_player = per_player
        self._admit = connection.register_script(ADMIT_SCRIPT)

    def _turns_key(self, player_id: str) -> str:
        return f"{self.prefix}ai-turns:{{{player_id}}}"

    def _line_key(self, player_id: str) -> str:
        return f"{self.prefix}ai-line:{{{player_id}}}"

    def limits(self, player_id: str) -> bool:
        """Whether the player's AI turns are held to a share at all (never with no share, nor for a game nobody made)."""
        return self.per_player > 0 and bool(player_id)

    def admit(self, player_id: str, job_id: str, game_id: str, game_jobs: str, now_ms: int) -> bool:
        """Whether the job may be queued now (it takes a place); if not, its game waits in the player's line.

        ``game_jobs``: the prefix of every AI-turn job id of the game (see :data:`ADMIT_SCRIPT`).
        """
        if not self.limits(player_id):
            return True
        return bool(self._admit(*self._admit_call(player_id, job_id, game_id, game_jobs, now_ms)))

    def admit_on(
        self, pipe: redis.client.Pipeline, player_id: str, job_id: str, game_id: str, game_jobs: str, now_ms: int
    ) -> Callable[[Any], bool]:
        """:meth:`admit`, queued on ``pipe`` (this Redis's) beside other commands, for a player :meth:`limits`; the
        function returned reads the answer from the script's reply.

        The script goes by its digest alone: redis-py sends ``SCRIPT EXISTS``, a round trip of its own, before any
        pipeline carrying a registered script.  A Redis that does not know it yet (new, restarted, flushed) answers
        NOSCRIPT; the ask is then made again alone, which loads it, and the other commands' replies stand.
        """
        keys, args = self._admit_call(player_id, job_id, game_id, game_jobs, now_ms)
        pipe.evalsha(self._admit.sha, len(keys), *keys, *args)

        def answer(reply: Any) -> bool:
            if isinstance(reply, NoScriptError):
                return self.admit(player_id, job_id, game_id, game_jobs, now_ms)
            if isinstance(reply, Exception):
                raise reply
            return bool(reply)

        return answer

    def _admit_call(
        self, player_id: str, job_id: str, game_id: str, game_jobs: str, now_ms: int
    ) -> tuple[list[str], list[str | int]]:
        """The admit script's keys and arguments."""
        keys = [self._turns_key(player_id), self._line_key(player_id)]
        args: list[str | int] = [job_id, game_id, now_ms, now_ms + HOLD_MS, self.per_player, game_jobs, 2 * HOLD_MS, LINE_KEPT_MS]
        return keys, args

    def holders(self, player_id: str) -> list[tuple[str, int]]:
        """The jobs holding the player's places, each with when it was admitted (epoch ms)."""
        # WITHSCORES: (member, score) pairs; redis-py's type covers every form of the reply.
        held = cast("list[tuple[bytes | str, float]]", self.redis.zrange(self._turns_key(player_id), 0, -1, withscores=True))
        return [(_text(job_id), int(until) - HOLD_MS) for job_id, until in held]

    def release(self, player_id: str, job_id: str) -> None:
        """Take back the place of a job that will not give it back (it stopped with its worker, or was lost)."""
        self.redis.zrem(self._turns_key(player_id), job_id)

    def done(self, player_id: str, job_id: str, limit: int = 10) -> list[str]:
        """The job gives its place back; the games waiting in the player's line, earliest first."""
        if self.per_player <= 0 or not player_id:
            return []
        with self.redis.pipeline(transaction=False) as pipe:  # one round trip; the two need not be atomic
            pipe.zrem(self._turns_key(player_id), job_id)
            pipe.zrange(self._line_key(player_id), 0, limit - 1)
            _, waiting = pipe.execute()
        return [_text(g) for g in waiting]

    def leave_line(self, player_id: str, game_id: str) -> None:
        """The game needs no AI turn any more (it moved on, or finished) and waits for nothing."""
        if player_id:
            self.redis.zrem(self._line_key(player_id), game_id)
