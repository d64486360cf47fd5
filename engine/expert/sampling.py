"""Dealing the cards the seat cannot see: one determinization per search iteration.

Why it exists.  Each iteration of the search needs a full game state that the
seat could not tell from the real one: its view exactly, with every unseen
card dealt uniformly at random to the places the seat cannot see, within what
:class:`~engine.expert.belief.Belief` pins down.  Kept apart from the belief
because the belief is read once per decision and a sample drawn many times.
"""

from __future__ import annotations

import random

from engine.cards import mask_of
from engine.expert.belief import Belief
from engine.state import GameState, Options, Phase, Turn
from engine.views import View


def sample_state(seen: View, belief: Belief, rng: random.Random) -> GameState:
    """One full game state the seat cannot tell from the real one, its hidden cards dealt at random."""
    me = seen.viewer
    assert me is not None and seen.hand is not None and seen.turn is not None
    pool = list(belief.unseen)
    rng.shuffle(pool)
    hands = []
    for info in seen.seats:
        if info.seat == me:
            hands.append(mask_of(seen.hand))
        elif info.in_round:
            mask = belief.known[info.seat]
            for _ in range(info.hand_size - mask.bit_count()):
                mask |= 1 << pool.pop()
            hands.append(mask)
        else:
            hands.append(0)
    deck = [card if card is not None else pool.pop() for card in belief.deck]
    n = seen.players
    return GameState(
        options=Options(n, seen.variant, seen.action_rules),
        seed=None,
        custom_deck=None,
        phase=Phase.TURN,
        round=seen.round,
        hands=hands,
        palettes=[mask_of(info.palette) for info in seen.seats],
        out=[0] * n,
        scored=[mask_of(info.scored) for info in seen.seats],
        in_round=[info.in_round for info in seen.seats],
        canvas=list(seen.canvas),
        deck=deck,
        turn=Turn(seen.turn.seat, seen.turn.played, seen.turn.pending),
        first_seat=None,
    )
