"""A running game's places at its round's deadline: the rule :class:`~.decision.SettleRound` states, as code.

A correspondence round with a deadline cannot wait for its slowest game, and a game cut short must still give every
seat a place, or its players would score nothing for a game they may have been winning.  The places it gets are
those of its *current standing*, read as the ladders read a finished game
(:func:`service.domain.ratings.results.standing`), so the same position never scores two ways:

- the advanced game: by points scored so far, equal points broken by the highest card scored (rule 25), which only
  players who scored nothing can share;
- the basic game: the players still in the round ahead of those out of it, who are placed by how long they stayed
  (the later out, the better); the players still in share their place (nobody has won yet);
- a seat that resigned or let a turn time out is last, whatever the cards say; such seats share the last place.

Places are numbered as competitions do (1, 2, 2, 4).  A game that has finished is placed by its standing as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from service.domain.game import Game
from service.domain.ratings.results import standing


def current_places(game: Game, history: Iterable[Mapping[str, Any]]) -> tuple[int, ...]:
    """The places ``game`` is settled with now (the module states the rule), from the game and its decoded
    envelopes."""
    envelopes = list(history)
    if game.status == "finished":
        return tuple(place for place, _ in standing(game, envelopes))
    players = len(game.seats)
    forfeited = [False] * players
    out_order: list[int] = []  # seats in the order they left the round being played
    for data in envelopes:
        kind = data.get("type")
        if kind == "round_dealt":
            out_order = []
        elif kind == "player_eliminated":
            out_order.append(int(data["seat"]))
        elif kind in ("seat_resigned", "turn_timed_out"):
            forfeited[int(data["seat"])] = True
    state = game.state
    keys: list[tuple[int, int, int]]
    if game.variant.value == "advanced" and state.scored:
        keys = [(0, state.score(s), state.scored[s].bit_length()) for s in range(players)]
    else:
        stayed = {seat: n for n, seat in enumerate(out_order)}  # later out: longer in
        keys = [(0, stayed.get(s, players), 0) for s in range(players)]
    keys = [(-1, 0, 0) if forfeited[s] else keys[s] for s in range(players)]
    return tuple(1 + sum(1 for other in keys if other > keys[s]) for s in range(players))
