"""The tournament service: every command on a tournament, its rounds, and its reads."""

from __future__ import annotations

from service.application.erasure import DELETED_NAME
from service.application.tournaments.entering import Entering
from service.application.tournaments.reading import Reading
from service.application.tournaments.rounds import Rounds
from service.common.errors import Refused
from service.storage.players import Player


class TournamentService(Entering, Rounds, Reading):
    """Every command on a tournament, its rounds, and its reads."""

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account withdraws from every tournament it is in (its seats played out by AIs), and its index
        goes.  Called before the account goes and again after: safe to repeat."""
        for tournament_id in self.tournament_index.of(player_id, count=1000):
            try:
                t = self.load(tournament_id)
                if player_id in t.entrants and t.finished is None:
                    self.withdraw(tournament_id, self.players.get(player_id) or Player(player_id, DELETED_NAME, ""))
            except Refused:
                continue  # over, or never entered: nothing to end
        self.tournament_index.forget(player_id)
