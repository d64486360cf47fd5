"""The index of open tables: listed games with a human seat open, newest first (what ``listOpenGames`` pages through).

Keys (one hash tag, ``{open}``, so the whole index is on one Redis Cluster slot and an entry goes down with its
facts in one transaction):

- ``<prefix>tables:{open}:recent`` a sorted set: game id -> when it was listed (epoch ms), newest read first
- ``<prefix>tables:{open}:facts``  a hash: game id -> JSON of what the list filters on (the game's settings: they
  never change), so that a filtered page loads only the games that match

An entry is written beside the game's appends, never inside them (a game lives on a slot of its own): it is entered
*before* the game's first append and leaves *after* the append that takes its last seat, calls it off or aborts it.
A crash between the two leaves an entry too many, never one missing; readers check each game itself and drop the
entries whose game is no longer an open listed table (:mod:`service.application.tables`).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, cast

import redis


@dataclass(frozen=True, slots=True)
class TableEntry:
    game_id: str
    listed_ms: int
    #: What the list filters on, as entered; ``None`` if the facts were lost (the reader loads the game to know).
    facts: dict[str, Any] | None


class TableIndex:
    """The open tables in Redis (see the module)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.recent_key = f"{prefix}tables:{{open}}:recent"
        self.facts_key = f"{prefix}tables:{{open}}:facts"

    def enter(self, game_id: str, listed_ms: int, facts: dict[str, Any]) -> None:
        """List a table (again: entering twice keeps one entry, listed at the later time)."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(self.recent_key, {game_id: listed_ms})
            pipe.hset(self.facts_key, game_id, json.dumps(facts, separators=(",", ":")))
            pipe.execute()

    def leave(self, game_ids: Collection[str]) -> None:
        """Unlist tables (those not listed are no matter)."""
        if not game_ids:
            return
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self.recent_key, *game_ids)
            pipe.hdel(self.facts_key, *game_ids)
            pipe.execute()

    def listed(self, game_id: str) -> bool:
        return self.redis.zscore(self.recent_key, game_id) is not None

    def page(self, after: tuple[int, str] | None, count: int) -> list[TableEntry]:
        """Up to ``count`` entries, newest first, after the cursor ``after`` = (listed ms, id) of the last one seen.

        Tables listed at the same millisecond are ordered by id, descending (Redis's own order for equal scores), so
        the cursor never skips or repeats one.
        """
        top: float | str = "+inf" if after is None else after[0]
        found: list[tuple[str, int]] = []
        offset = 0
        while len(found) < count:
            # WITHSCORES on the text client: (member, score) pairs; redis-py's type covers every form of the reply.
            reply = self.redis.zrevrangebyscore(self.recent_key, top, "-inf", start=offset, num=count + 16, withscores=True)
            chunk = cast("list[tuple[str, float]]", reply)
            for game_id, score in chunk:
                if after is not None and int(score) == after[0] and game_id >= after[1]:
                    continue  # seen on an earlier page
                found.append((game_id, int(score)))
            if len(chunk) < count + 16:
                break
            offset += len(chunk)
        found = found[:count]
        if not found:
            return []
        texts = self.redis.hmget(self.facts_key, [game_id for game_id, _ in found])
        return [
            TableEntry(game_id, ms, json.loads(text) if text else None) for (game_id, ms), text in zip(found, texts, strict=True)
        ]
