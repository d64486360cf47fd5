"""A finished rated game as a ladder takes it: each seat's player and place, and whether the game counts at all.

The standing is the engine's order (docs/rules.md 20 and 25): in the basic game the round's winner, then the
others by how long they stayed in the round (the last one out second); in the advanced game by points, equal
points by the highest card in the score pile (rule 25), which only players who scored nothing can share.  A
player who resigned or let a turn time out is placed last, whatever the cards said; several such players share
the last place.  Places are numbered as competitions do: 1, 2, 2, 4.

The one predicate for whether a game counts is here (:func:`is_rated`), so that the view, the projection and the
rebuild cannot disagree on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.domain.game import Game
from service.domain.ratings.model import AI_PREFIX, ladder_of


@dataclass(frozen=True, slots=True)
class Placing:
    """A seat's outcome: who is rated for it, the place it finished in (1 is first), and whether it forfeited."""

    seat: int
    player: str
    name: str
    place: int
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """A finished rated game as a ladder takes it: when it finished, and each seat's placing (in seat order)."""

    game_id: str
    ladder: str
    finished_at: str  # the ISO time of the game_finished event: the order of the fold
    seats: tuple[Placing, ...]

    @property
    def finished_ms(self) -> int:
        return finished_ms(self.finished_at)

    @property
    def key(self) -> tuple[int, str]:
        """Where the game stands in its ladder's fold: the time it finished, then its id."""
        return (self.finished_ms, self.game_id)

    @property
    def players(self) -> list[str]:
        """The rated players, each once, in seat order."""
        return list(dict.fromkeys(p.player for p in self.seats))


def finished_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def is_rated(game: Game) -> bool:
    """Whether ``game`` counts for its players' ratings: created rated, finished (so every seat was filled), dealt
    at random (a creator who chose the seed or the deck could know every hand), and never aborted.

    The one predicate for it, beside :func:`counts` (a game that will count once finished).
    """
    return counts(game) and game.status == "finished" and not game.aborted


def counts(game: Game) -> bool:
    """Whether ``game`` will count for its players' ratings once finished (a view shows the seats' ratings then)."""
    return game.rated and game.dealing == "random" and game.status not in ("cancelled", "aborted")


def rated_player(game: Game, seat: int) -> tuple[str, str]:
    """Who is rated for a seat, and the name to show: the player who held it (even after resigning), or the AI."""
    held = game.seats[seat]
    if held.player_id is not None:
        return held.player_id, held.name or held.player_id
    level = held.level or "random"
    return AI_PREFIX + level, f"AI ({level})"


def standing(game: Game, history: Iterable[Mapping[str, Any]]) -> list[tuple[int, bool]]:
    """Each seat's place (1 is first; ties share it) and whether it forfeited, from the finished game and its
    decoded envelopes (the elimination order of the last round, resignations and time-outs are in the history)."""
    players = len(game.seats)
    forfeited = [False] * players
    out_order: list[int] = []  # seats in the order they left the last round dealt
    for data in history:
        kind = data.get("type")
        if kind == "round_dealt":
            out_order = []
        elif kind == "player_eliminated":
            out_order.append(int(data["seat"]))
        elif kind in ("seat_resigned", "turn_timed_out"):
            forfeited[int(data["seat"])] = True
    state = game.state
    if game.variant.value == "advanced":
        keys = [(0, state.score(s), state.scored[s].bit_length()) for s in range(players)]
    else:
        stayed = {seat: n for n, seat in enumerate(out_order)}  # later out: longer in
        keys = [(0, players if s == state.winner else stayed.get(s, -1), 0) for s in range(players)]
    keys = [(-1, 0, 0) if forfeited[s] else keys[s] for s in range(players)]
    return [(1 + sum(1 for other in keys if other > keys[s]), forfeited[s]) for s in range(players)]


def result_of(game: Game, history: Iterable[Mapping[str, Any]]) -> Result | None:
    """The ladder's view of a finished rated game, or ``None`` when it does not count (:func:`is_rated`, or fewer than
    two different players)."""
    if not is_rated(game):
        return None
    envelopes = list(history)
    finished = [data["at"] for data in envelopes if data.get("type") == "game_finished"]
    if not finished:
        return None
    places = standing(game, envelopes)
    seats = []
    for seat, (place, forfeited) in enumerate(places):
        player, name = rated_player(game, seat)
        seats.append(Placing(seat, player, name, place, forfeited))
    if len({p.player for p in seats}) < 2:
        return None
    return Result(game.id, ladder_of(game.variant.value == "advanced"), finished[-1], tuple(seats))
