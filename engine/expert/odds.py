"""The expert's objective: what a finished round is worth to a seat (see :func:`round_value`).

The search ranks candidate turns by the value of the rounds they lead to, so
this is what the expert is trying to maximise.  It lives apart from the search
because it is a fixed model, not search logic: in the advanced game a round is
valued by the chance of going on to win the game, read from a table of game
odds (:func:`game_odds`) built once from points seen in self-play.  Another
objective can be handed to :class:`~engine.expert.ExpertBot` (``objective=``),
which is how the head-to-head tests behind :data:`MARGIN_WEIGHT` were run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from engine.cards import FULL_MASK, Color
from engine.rules import qualifying_mask
from engine.state import CARDS_PER_PLAYER, TARGET_SCORE

_COLORS = tuple(Color(c) for c in range(7))

#: How many points the winner of an advanced round scored, for 1..37 points, pooled over
#: 900 greedy self-play games (2-4 players, with and without the action rules).  Only
#: its shape matters: it feeds the game-odds table behind the advanced objective.
_ROUND_POINTS = (
    9,
    49,
    131,
    110,
    120,
    275,
    608,
    249,
    208,
    310,
    131,
    351,
    239,
    358,
    149,
    139,
    75,
    259,
    82,
    115,
    114,
    162,
    63,
    63,
    81,
    53,
    35,
    31,
    20,
    9,
    13,
    7,
    6,
    3,
    2,
    1,
    1,
)


def _sum_numbers(mask: int) -> int:
    """The sum of the numbers of the cards in ``mask``: what they score (docs/rules.md 23)."""
    total = 0
    while mask:
        top = mask.bit_length() - 1
        total += top // 7 + 1
        mask ^= 1 << top
    return total


@lru_cache(maxsize=8)
def game_odds(target: int) -> tuple[tuple[float, ...], ...]:
    """``odds[a][b]``: the chance to win a two-sided race to ``target`` from scores ``a`` and ``b``.

    The model is deliberately simple — each round is won by either side with
    equal chance and is worth points drawn from :data:`_ROUND_POINTS` — because
    all the search needs from it is the *shape*: how much a given number of
    points is worth at a given score, for the scorer and for the other side.
    """
    total = sum(_ROUND_POINTS)
    dist = [(x + 1, weight / total) for x, weight in enumerate(_ROUND_POINTS) if weight]
    odds = [[0.0] * target for _ in range(target)]
    for a in range(target - 1, -1, -1):
        row = odds[a]
        for b in range(target - 1, -1, -1):
            mine = sum(p * (1.0 if a + x >= target else odds[a + x][b]) for x, p in dist)
            theirs = sum(p * (0.0 if b + x >= target else row[b + x]) for x, p in dist)
            row[b] = 0.5 * (mine + theirs)
    return tuple(tuple(row) for row in odds)


#: Weight of the round's point margin (in targets) next to the game odds; see :func:`round_value`.
MARGIN_WEIGHT = 0.5


def round_value(me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
    """How good a finished round is for ``me``: mainly the chance to win the game from there.

    ``palettes`` are the palettes at the end of the round and ``scored`` the
    score piles before it.  Basic variant: the round winner wins the game
    (docs/rules.md 20).  Advanced: the winner scores (docs/rules.md 23), the game ends
    if the target is reached or too few cards are left (docs/rules.md 24) and is
    then decided by docs/rules.md 25 (1 or 0); otherwise the game-odds table values
    the scores against every opponent.  To that is added the round's point
    margin, ``MARGIN_WEIGHT`` times the points won (or conceded to the winner)
    over the target: the odds table is only a coarse model and flat where a
    game is nearly decided, and in head-to-head tests the pure odds were no
    stronger than the plain margin while the sum of the two was at least as
    strong as either.
    """
    if not advanced:
        return 1.0 if winner == me else 0.0
    piles = list(scored)
    won = qualifying_mask(palettes[winner], _COLORS[rule])
    piles[winner] |= won
    players = len(piles)
    scores = [_sum_numbers(pile) for pile in piles]
    target = TARGET_SCORE[players]
    margin = MARGIN_WEIGHT * _sum_numbers(won) / target * (1.0 if winner == me else -1.0)
    left = (FULL_MASK & ~sum(piles)).bit_count()
    if max(scores) >= target or left < CARDS_PER_PLAYER * players:
        leader = max(range(players), key=lambda s: (scores[s], piles[s].bit_length()))
        return (1.0 if leader == me else 0.0) + margin
    odds = game_odds(target)
    mine = odds[scores[me]]
    value = 1.0
    for seat in range(players):
        if seat != me:
            value *= mine[scores[seat]]
    return value + margin


#: The signature of an objective: how good a finished round is for a seat (see :func:`round_value`).
RoundValue = Callable[[int, int, int, Sequence[int], Sequence[int], bool], float]
