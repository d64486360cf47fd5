"""A deleted account leaves its games: the waiting ones it created are called off, its seats in the others given up.

This is the games' part of deleting an account (:meth:`PlayerService.delete` calls every part that joined it,
each an :class:`~service.application.players.AccountDeleted`): a game still waiting that the player created is
called off (it leaves every list); a seat they hold in another waiting game opens again; in a game in play an AI
of :attr:`GameDepartures.level` plays their seat to the end, so the others play on.  Finished games stay as they
are: their streams keep the player's pseudonymous id, and their replays still verify.
"""

from __future__ import annotations

import logging

from service.application.erasure import DELETED_NAME
from service.application.games import GameService
from service.errors import NotFound, Refused
from service.storage.players import Player

log = logging.getLogger("red7.players")

#: How often a departure from one game is decided again when the game moved on between its read and its write.
ATTEMPTS = 3


class GameDepartures:
    """The games' ``on_account_deleted``."""

    def __init__(self, games: GameService, level: str = "greedy") -> None:
        self.games = games
        self.level = level

    def on_account_deleted(self, player_id: str) -> None:
        """Leave (or call off) every game of the player's that is not over; safe to repeat."""
        player = Player(player_id, DELETED_NAME, "")
        for game_id in sorted(self.games.players.game_ids(player_id)):
            for _ in range(ATTEMPTS):
                try:
                    self._leave(game_id, player)
                    break
                except NotFound:
                    break
                except Refused as refused:  # the game moved on (it started, say): look at it again
                    log.info("game %s refused a deleted player's departure (%s); deciding again", game_id, refused.code)

    def _leave(self, game_id: str, player: Player) -> None:
        game = self.games.load(game_id)
        seat = game.seat_of(player.id)
        if game.status == "waiting" and game.created_by == player.id:
            self.games.cancel(game_id, player)
        elif game.status in ("waiting", "active") and seat is not None and not game.seats[seat].resigned:
            self.games.leave(game_id, player, self.level)
