"""A player's lists of games: those not finished (a set), and those finished (a sorted set, paged newest first).

A game lives on its own slot, so no write lists it atomically with its append: each list is written in the order
that leaves, after a crash, an entry too many (which readers drop: they check the seat in the game itself), never
a game missing from every list.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import cast

import redis

from service.storage.players.base import PlayerBase
from service.storage.players.keys import played_key, won_key
from service.storage.players.model import as_text


class GameLists(PlayerBase):
    """The games a player is in, and those they finished."""

    def add_game(self, player_id: str, game_id: str) -> None:
        """Index a game under a player *before* the game records the seat.

        Games live on their own cluster slots, so this cannot be atomic with
        the append; written first, a failed append leaves a harmless extra
        entry that readers drop (they check the seat in the game itself).
        """
        self.redis.sadd(self._games_key(player_id), game_id)

    def adding_game(self, player_id: str, game_id: str) -> Callable[[redis.client.Pipeline], object]:
        """:meth:`add_game` as a write for another transaction on the player's slot (an idempotency record's claim,
        :meth:`~service.storage.idempotency.CreateRecords.claim`), so the record and the listing land together."""
        listed = self._games_key(player_id)
        return lambda pipe: pipe.sadd(listed, game_id)

    def count_games(self, player_id: str) -> int:
        """How many games the player's index holds as not finished (it may hold a few too many; never too few)."""
        return int(self.redis.scard(self._games_key(player_id)))

    def game_ids(self, player_id: str) -> set[str]:
        """The player's games that were not finished when last seen."""
        return {as_text(game_id) for game_id in self.redis.smembers(self._games_key(player_id))}

    def forget_game(self, player_ids: set[str], game_id: str) -> None:
        """Unlist a game for these players (a cancelled one).

        Each player is on a slot of their own: one plain pipeline (no transaction) of single-slot writes, each
        safe to repeat, which a cluster client splits by node.
        """
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.srem(self._games_key(player_id), game_id)
            pipe.execute()

    def archive_game(
        self, player_ids: set[str], game_id: str, finished_ms: int, *, played: Collection[str] = (), won: Collection[str] = ()
    ) -> None:
        """Move a finished game from its players' open games to their finished ones, and count it in the records of
        those who ``played`` and ``won`` it (idempotent: a record is a set of games).

        As in :meth:`forget_game`, single-slot writes in a plain pipeline; for each player the game is listed as
        finished and counted before it leaves the open ones, so a write lost in between leaves it listed twice
        (readers check the game itself, and the next listing archives it again), never nowhere or uncounted.
        """
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(self._finished_key(player_id), {game_id: finished_ms})
                if player_id in played:
                    pipe.sadd(played_key(self.prefix, player_id), game_id)
                if player_id in won:
                    pipe.sadd(won_key(self.prefix, player_id), game_id)
                pipe.srem(self._games_key(player_id), game_id)
            pipe.execute()

    def finished_ids(self, player_id: str, before: tuple[int, str] | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` finished games, newest first, after the cursor ``before`` = (score, id) of the last one seen.

        Games finished at the same millisecond are ordered by id, descending
        (Redis's own order for equal scores), so the cursor never skips or repeats one.
        """
        key = self._finished_key(player_id)
        top: float | str = "+inf" if before is None else before[0]
        found: list[tuple[str, int]] = []
        offset = 0
        while len(found) < count:
            # WITHSCORES on the text client: (member, score) pairs; redis-py's type covers every form of the reply.
            reply = self.redis.zrevrangebyscore(key, top, "-inf", start=offset, num=count + 16, withscores=True)
            chunk = cast("list[tuple[str, float]]", reply)
            for game_id, score in chunk:
                if before is not None and int(score) == before[0] and game_id >= before[1]:
                    continue  # seen on an earlier page
                found.append((game_id, int(score)))
            if len(chunk) < count + 16:
                break
            offset += len(chunk)
        return found[:count]
