"""The rated games a player aborted, and when: what a suspension from rated play is decided from.

One sorted set on the player's slot, ``<prefix>player:{<id>}:rated_aborts``: game id -> when the abort was decided
(ms).  A game counts once however often its abort is decided again (``ZADD NX``: a retry after a conflict keeps the
first time), and what is older than the rules look back is dropped as an abort is noted.  The rules that read it
are :mod:`service.application.rated_play`'s.
"""

from __future__ import annotations

from typing import cast

import redis


class AbortLog:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def key(self, player_id: str) -> str:
        return f"{self.prefix}player:{{{player_id}}}:rated_aborts"

    def note(self, player_id: str, game_id: str, at_ms: int, keep_ms: int) -> None:
        """``player_id`` aborted rated game ``game_id`` at ``at_ms``; aborts older than ``keep_ms`` before it go (one
        transaction on the player's slot)."""
        key = self.key(player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {game_id: at_ms}, nx=True)
            pipe.zremrangebyscore(key, "-inf", f"({at_ms - keep_ms}")
            pipe.execute()

    def since(self, player_id: str, since_ms: int) -> list[int]:
        """When the player's aborts since ``since_ms`` were decided (ms), oldest first."""
        found = cast("list[tuple[str, float]]", self.redis.zrangebyscore(self.key(player_id), since_ms, "+inf", withscores=True))
        return [int(score) for _, score in found]

    def forget(self, player_id: str) -> None:
        self.redis.delete(self.key(player_id))
