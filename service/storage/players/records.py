"""A player's record: the finished games they played and won, kept as sets on their slot (a game counts once).

What counts, and the rebuild of a record from the player's finished games, is :mod:`service.application.records`;
a finished game is counted as it is archived (:meth:`~service.storage.players.game_lists.GameLists.archive_game`).
"""

from __future__ import annotations

from service.storage.players.base import PlayerBase
from service.storage.players.keys import played_key, won_key
from service.storage.players.model import Record


class Records(PlayerBase):
    """A player's record of games played and won."""

    def record(self, player_id: str) -> Record:
        with self.redis.pipeline(transaction=True) as pipe:  # the player's slot
            pipe.scard(played_key(self.prefix, player_id))
            pipe.scard(won_key(self.prefix, player_id))
            pipe.hget(self._player_key(player_id), "record")
            played, won, complete = pipe.execute()
        return Record(int(played), int(won), bool(complete))

    def add_to_record(self, player_id: str, played: set[str], won: set[str], *, complete: bool = False) -> None:
        """Add games to the player's record (each counts once, however often it is added); ``complete``: the record
        now holds every game it should (a rebuild's last step), so it is not rebuilt again."""
        with self.redis.pipeline(transaction=True) as pipe:  # the player's slot
            if played:
                pipe.sadd(played_key(self.prefix, player_id), *sorted(played))
            if won:
                pipe.sadd(won_key(self.prefix, player_id), *sorted(won))
            if complete:
                pipe.hset(self._player_key(player_id), "record", "1")
            pipe.execute()
