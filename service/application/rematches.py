"""A rematch: the same seats and settings, the players moved round by one seat so that another sits first.

Seat ``n`` of the finished game is seat ``n - 1`` of the rematch, and seat 0 goes last: whoever sat second sits
first, and each player plays after the same neighbour as before.  Who starts each round is still the deal's to
say (docs/rules.md 13: the seat after the owner of the highest palette card), and the rematch is dealt afresh
(a new random seed: a seeded or custom-dealt game's rematch is dealt at random).  A seat that was an AI's, or became
one when its player resigned, is an AI of the same level; every other seat is taken by the player who held it.
The player on the rematch's first human seat is its creator: like any game's creator, they own its AI seats.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.application.commands import NewGame, SeatRequest
from service.domain.game import Game


@dataclass(frozen=True, slots=True)
class RematchPlan:
    """What the rematch of a finished game is: the request, its creator and the other players, by seat."""

    request: NewGame
    creator: tuple[str, str]  # (player id, name as the finished game knew it)
    seated: tuple[tuple[int, str, str], ...]  # (seat, player id, name)
    ai_seats: int

    @property
    def player_ids(self) -> list[str]:
        return [self.creator[0], *(player_id for _, player_id, _ in self.seated)]


def plan_rematch(game: Game) -> RematchPlan:
    """The rematch of ``game`` (finished, its rematch agreed on: at least one human seat is held)."""
    order = [*game.seats[1:], game.seats[0]]  # seat n goes to n - 1; seat 0 goes last
    request = NewGame(
        seats=[SeatRequest(seat.kind, seat.level if seat.kind == "ai" else None) for seat in order],
        variant=game.variant,
        action_rules=game.action_rules,
        turn_timeout=None if game.days_per_turn else game.turn_timeout,
        timeout_action=game.timeout_action,
        rated=game.rated,
        days_per_turn=game.days_per_turn,
        origin="rematch",
        rematch_of=game.id,
    )
    humans = [(n, seat.player_id, seat.name or "") for n, seat in enumerate(order) if seat.kind == "human" and seat.player_id]
    if not humans:
        raise ValueError(f"game {game.id} has no player left for a rematch")
    (_, creator_id, creator_name), *others = humans
    return RematchPlan(request, (creator_id, creator_name), tuple(others), sum(1 for seat in order if seat.kind == "ai"))
