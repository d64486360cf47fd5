"""Self-play bots that see only what their seat sees.

A bot gets the :class:`~engine.legal.Position` of its seat (its own hand,
the public palettes, the rule, the deck size — nothing hidden) and returns
the steps to send now: a whole turn where it can be planned, or the part of
it up to a 3's draw, after which it is asked again.

``RandomBot`` is uniform over the full turns that keep it in the round
(folding when none does): it picks a plan uniformly from the full search, so
each first step is chosen in proportion to the turns that start with it.
``GreedyBot`` scores every such turn with a one-turn heuristic.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from engine.cards import Color, iter_cards
from engine.expert import ExpertBot
from engine.legal import Outcome, Plan, Position, bars, finish, grants_draw, simple_turns, turn_steps, walk
from engine.rules import qualifying_mask, strength
from engine.steps import Discard, Fold, Step


class Bot(Protocol):
    name: str

    def plan(self, pos: Position) -> Sequence[Step]:
        """The steps to take now from ``pos`` (the bot's seat is to move)."""
        ...


def _keeps_in(pos: Position) -> list[Plan]:
    return [plan for plan in walk(pos, draw_choices=True) if plan.outcome is not Outcome.LOSE]


class RandomBot:
    """Uniform over the full turns that keep it in the round; folds when none does."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def plan(self, pos: Position) -> Sequence[Step]:
        quick = simple_turns(pos)
        if quick is not None:
            return turn_steps(self.rng.choice(quick)) if quick else (Fold(),)
        plans = _keeps_in(pos)
        return self.rng.choice(plans).steps if plans else (Fold(),)


class GreedyBot:
    """The turn that leaves the best position by a one-turn heuristic.

    It values, in this order of weight: cards kept in hand (they are the
    only way to answer the next rule change), the number of rules under
    which it would be winning after the turn (how hard it is to knock out),
    and in the advanced game the points its palette would score now.  A 3's
    gamble is valued as the position after the play, less a card.
    """

    name = "greedy"

    HAND = 10.0
    RULES = 4.0
    POINTS = 0.5
    DRAW = 6.0

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def plan(self, pos: Position) -> Sequence[Step]:
        plans = _keeps_in(pos)
        if not plans:
            return (Fold(),)
        best, best_value = [], float("-inf")
        for plan in plans:
            value = self.value(plan)
            if value > best_value + 1e-9:
                best, best_value = [plan], value
            elif value > best_value - 1e-9:
                best.append(plan)
        return self.rng.choice(best).steps

    def value(self, plan: Plan) -> float:
        end = finish(plan)
        value = self.HAND * end.hand.bit_count()
        last = plan.steps[-1]
        if plan.outcome is Outcome.UNKNOWN:
            value -= self.HAND
        elif isinstance(last, Discard) and last.draw and grants_draw(plan.before_last, last.card):
            value += self.DRAW
        mine, bar = end.palettes[end.seat], bars(end)
        value += self.RULES * sum(1 for color in Color if strength(mine, color) > bar[color])
        if end.advanced:
            value += self.POINTS * sum(card.number for card in iter_cards(qualifying_mask(mine, end.rule)))
        value += strength(mine, end.rule) / 1000.0
        return value


#: Every bot by name.  The expert plans from a view (``plan_view``), not a position; it may be
#: imported here because it imports nothing from this module (no cycle).
BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "expert": ExpertBot}
