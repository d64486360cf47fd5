"""A deleted account leaves its games: the waiting ones it created are called off, its seats in the others given up.

This is the games' part of deleting an account (:meth:`PlayerService.delete` calls every part that joined it,
each an :class:`~service.application.players.AccountDeleted`): a game still waiting that the player created is
called off (it leaves every list); a seat they hold in another waiting game opens again; in a game in play an AI
of :attr:`GameDepartures.level` plays their seat to the end, so the others play on.  Finished games stay as they
are: their streams keep the player's pseudonymous id, and their replays still verify.

It finds the games in the player's list on their slot, which every write that seats a player writes before the
game (:meth:`GameService.set_up`, ``create``, ``join``), and which keeps a game until the player's part in it is
over (:meth:`GameService.depart`): a game made or joined as the account went is found by the deletion's second
pass, or ends itself (a set-up reads its players' tombstones; a request, :meth:`PlayerService.still_there`).
"""

from __future__ import annotations

from service.application.games import GameService
from service.application.lobby_commands import DEPARTED_LEVEL


class GameDepartures:
    """The games' ``on_account_deleted``."""

    def __init__(self, games: GameService, level: str = DEPARTED_LEVEL) -> None:
        self.games = games
        self.level = level

    def on_account_deleted(self, player_id: str) -> None:
        """Leave (or call off) every game of the player's that is not over; safe to repeat."""
        for game_id in sorted(self.games.players.game_ids(player_id)):
            self.games.depart(game_id, player_id, self.level)
