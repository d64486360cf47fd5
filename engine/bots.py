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
from functools import lru_cache
from operator import gt
from typing import Protocol

from engine.cards import iter_cards
from engine.expert import ExpertBot
from engine.legal import Outcome, Plan, Position, bars, grants_draw, simple_turns, turn_steps, walk
from engine.rules import qualifying_mask, strengths
from engine.steps import Discard, Fold, Step


class Bot(Protocol):
    name: str

    def plan(self, pos: Position) -> Sequence[Step]:
        """The steps to take now from ``pos`` (the bot's seat is to move)."""
        ...


def _keeps_in(pos: Position) -> list[Plan]:
    return walk(pos, draw_choices=True)  # without ``losing``, the walk leaves out every turn that ends out of the round


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
        # The bar depends only on the other seats' palettes, which only a take changes: most plans share the root's.
        seat, root = pos.seat, pos.palettes
        bars_of = {root[:seat] + root[seat + 1 :]: bars(pos)}
        nodes: dict[int, tuple[tuple[int, ...], float]] = {}
        best, best_value = [], float("-inf")
        for plan in plans:
            value = self._value(plan, bars_of, nodes)
            if value > best_value + 1e-9:
                best, best_value = [plan], value
            elif value > best_value - 1e-9:
                best.append(plan)
        return self.rng.choice(best).steps

    def value(self, plan: Plan) -> float:
        return self._value(plan, {}, {})

    def _value(
        self, plan: Plan, bars_of: dict[tuple[int, ...], tuple[int, ...]], nodes: dict[int, tuple[tuple[int, ...], float]]
    ) -> float:
        """:meth:`value`, with what plans share computed once: the bars, by the other seats' palettes (``bars_of``),
        and the mover's strengths and rules term, by the position before the last step (``nodes``, by ``id``: every
        plan that ends from one node holds it, so no id is reused while the plans are scored).  Both filled in here.

        It runs for every plan of every greedy turn, so it reads the end of the plan without building its
        position (:func:`~engine.legal.finish` spelled out) and sums its terms in the order it always did: the
        same floats, the same ties, the same choices.
        """
        last, before = plan.steps[-1], plan.before_last
        if isinstance(last, Discard):
            hand, rule = before.hand ^ (1 << last.card), last.card.color
        else:
            hand, rule = before.hand, before.rule
        value = self.HAND * hand.bit_count()
        if plan.outcome is Outcome.UNKNOWN:
            value -= self.HAND
        elif isinstance(last, Discard) and last.draw and grants_draw(before, last.card):
            value += self.DRAW
        mine = before.palettes[before.seat]
        node = nodes.get(id(before))
        if node is None:
            seat, palettes = before.seat, before.palettes
            others = palettes[:seat] + palettes[seat + 1 :]
            bar = bars_of.get(others)
            if bar is None:
                bar = bars_of[others] = bars(before)
            own = strengths(mine)
            rules_won: int = sum(map(gt, own, bar))  # the rules it would be winning under
            node = nodes[id(before)] = (own, self.RULES * rules_won)
        own, rules_term = node
        value += rules_term
        if before.advanced:
            value += self.POINTS * _points(qualifying_mask(mine, rule))
        value += own[rule] / 1000.0
        return value


@lru_cache(maxsize=1 << 16)
def _points(mask: int) -> int:
    """The sum of the numbers of the cards in ``mask`` (what they would score)."""
    return sum(card.number for card in iter_cards(mask))


#: Every bot by name.  The expert plans from a view (``plan_view``), not a position; it may be
#: imported here because it imports nothing from this module (no cycle).
BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "expert": ExpertBot}
