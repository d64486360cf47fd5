"""Quotas: how much of the service one player may hold at once — games in play, and AI seats in them.

A player's AI seats are work the workers do for them alone (an expert
thinks for a second a move), so without a limit one token could fill the
queue and slow every other table.  Counting is cheap in the usual case (the
size of the player's index of games in play); only a player near a limit
has their games loaded to count exactly (the index may still hold a game
that finished or whose creation failed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.common.errors import Refused
from service.domain.game import Game
from service.storage.players import Player, PlayerStore


@dataclass(frozen=True, slots=True)
class Quotas:
    """The limits (0: none) and how to read what a player holds now."""

    players: PlayerStore
    in_play: Callable[[Player], list[Game]]  # the player's games not finished, exactly
    max_games: int = 0
    max_ai_seats: int = 0

    def check_new_game(self, player: Player, ai_seats: int) -> None:
        """Refuse a new game the player would create with ``ai_seats`` AI seats, if it takes them over a limit."""
        games = self._games_in_play(player, fast=self.max_ai_seats == 0 or ai_seats == 0)
        if games is not None and self.max_games and len(games) >= self.max_games:
            raise self._too_many_games()
        if self.max_ai_seats and ai_seats:
            assert games is not None
            held = sum(sum(1 for s in g.seats if s.kind == "ai" and not s.resigned) for g in games if g.created_by == player.id)
            if held + ai_seats > self.max_ai_seats:
                raise Refused(
                    "ai_seat_limit_reached",
                    f"Your games in play hold {held} AI seats and this one would add {ai_seats}; a player may have "
                    f"{self.max_ai_seats} at once. Finish or call off a game first.",
                    limit=self.max_ai_seats,
                    held=held,
                )

    def check_join(self, player: Player) -> None:
        """Refuse a seat to a player who holds as many games in play as they may."""
        games = self._games_in_play(player, fast=True)
        if games is not None and self.max_games and len(games) >= self.max_games:
            raise self._too_many_games()

    def _games_in_play(self, player: Player, *, fast: bool) -> list[Game] | None:
        """The player's games in play, loaded only when it matters (``None``: surely under the game limit)."""
        if fast and (not self.max_games or self.players.count_games(player.id) < self.max_games):
            return None
        return self.in_play(player)

    def _too_many_games(self) -> Refused:
        return Refused(
            "game_limit_reached",
            f"You are in {self.max_games} games that have not finished; a player may be in {self.max_games} at once. "
            "Finish, leave or call off one first.",
            limit=self.max_games,
        )
