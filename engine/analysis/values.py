"""What the end of a round is worth to a seat: its chance to win the match, and its share of places.

The place share beside the win chance.  A trailing seat's chance to win the
match is the product of its chances against every other seat, so it shrinks
towards zero, and every drop of it with it: a player who is far behind could
play anything at 100% accuracy, and at tables of mixed strength the weakest
player scored a higher accuracy than a stronger one.  So the same fresh deals
also measure the *place share* (:func:`place_share`): the expected share of the
other seats the mover finishes the match ahead of — the standing the ladders
rate (service/domain/ratings/results.py), which a player who can no longer win still plays
for.  Its drop ΔP is the best measured turn's lead in it (0 if none; the turns
measured are the leaders in win chance, so a turn best only for the place can
be missed).  With two players, and in the basic game, it is ΔW exactly.  Labels
stay in win chance, as a chess engine's do; accuracy reads ΔP
(:attr:`Evaluation.loss`): a first place given away for a second costs half what
a first given away for a last does, as the ladders' places have it.  (Reading
the larger of ΔW and ΔP instead ordered the levels less clearly: a contender's
accuracy then fell by its ΔW, a trailing player's only by its ΔP.)

The rollout (:mod:`engine.expert.rollout`) asks for one value at a round's end; :class:`Judge` gives it the win
chance and keeps the place share beside it, so that one rollout measures both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import FULL_MASK
from engine.expert.odds import _COLORS, _sum_numbers, game_odds
from engine.expert.rollout import _Rollout, _Sim
from engine.legal import Plan
from engine.rules import qualifying_mask
from engine.state import CARDS_PER_PLAYER, TARGET_SCORE


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """The match as an advanced round ends: each seat's scored cards (the winner's qualifying cards added), their
    scores, the target, and whether the game ends here (docs/rules.md 24).  What both values of a rollout read."""

    piles: list[int]
    scores: list[int]
    target: int
    over: bool

    @classmethod
    def of(cls, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int]) -> RoundEnd:
        piles = list(scored)
        piles[winner] |= qualifying_mask(palettes[winner], _COLORS[rule])
        players = len(piles)
        scores = [_sum_numbers(pile) for pile in piles]
        target = TARGET_SCORE[players]
        left = (FULL_MASK & ~sum(piles)).bit_count()
        return cls(piles, scores, target, max(scores) >= target or left < CARDS_PER_PLAYER * players)

    def key(self, seat: int) -> tuple[int, int]:
        """Who leads a game that ends here (docs/rules.md 25): the score, then the highest card."""
        return self.scores[seat], self.piles[seat].bit_length()

    def win_chance(self, me: int) -> float:
        players = len(self.piles)
        if self.over:
            return 1.0 if max(range(players), key=self.key) == me else 0.0
        odds = game_odds(self.target)
        strengths = []
        for seat in range(players):
            row = odds[self.scores[seat]]
            value = 1.0
            for other in range(players):
                if other != seat:
                    value *= row[self.scores[other]]
            strengths.append(value)
        total = sum(strengths)
        return strengths[me] / total if total > 0 else 1.0 / players

    def place_share(self, me: int) -> float:
        others = [seat for seat in range(len(self.piles)) if seat != me]
        if self.over:
            mine = self.key(me)
            return sum(1.0 if mine > self.key(o) else 0.5 if mine == self.key(o) else 0.0 for o in others) / len(others)
        row = game_odds(self.target)[self.scores[me]]
        return sum(row[self.scores[o]] for o in others) / len(others)


def win_chance(me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
    """The chance that ``me`` wins the match from the end of a round ``winner`` won under ``rule``.

    Basic variant: the round's winner wins the game (docs/rules.md 20).  Advanced:
    the winner scores (docs/rules.md 23); if the game ends (docs/rules.md 24) the
    leader wins (docs/rules.md 25); otherwise each seat's odds against every other
    (:func:`engine.expert.game_odds`) are multiplied and normalised over the seats,
    so that the chances of all seats sum to one.

    In the basic game the round decides it (no cards scored, no palettes read):

    >>> win_chance(0, 0, 0, [0, 0], [0, 0], advanced=False), win_chance(1, 0, 0, [0, 0], [0, 0], advanced=False)
    (1.0, 0.0)
    """
    if not advanced:
        return 1.0 if winner == me else 0.0
    return RoundEnd.of(winner, rule, palettes, scored).win_chance(me)


def place_share(me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
    """The expected share of the other seats ``me`` finishes the match ahead of, from the end of a round.

    1 is first, 0 last; with two players it is :func:`win_chance`.  It is the
    standing the ladders rate (service/domain/ratings/results.py), read as a score: a seat that
    can no longer win still plays for its place, and this still moves when the
    chance to win no longer does.  Advanced: a game that ends here is ranked as
    docs/rules.md 25 ranks it (a tie counts half); otherwise each other seat is
    raced with the game-odds table (:func:`engine.expert.game_odds`), the
    chance to finish ahead of it being the chance to reach the target first.
    Basic: the round's winner wins; the order the others left the round in is
    not kept by the rollout, so the share is the win chance there too.
    """
    if not advanced:
        return 1.0 if winner == me else 0.0
    return RoundEnd.of(winner, rule, palettes, scored).place_share(me)


class Judge:
    """The rollout's value at the end of a round: the win chance, with the place share kept beside it."""

    __slots__ = ("place",)

    def __init__(self) -> None:
        self.place: float | None = None

    def __call__(self, me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
        if not advanced:
            self.place = 1.0 if winner == me else 0.0
            return self.place
        end = RoundEnd.of(winner, rule, palettes, scored)  # read once for both values
        self.place = end.place_share(me)
        return end.win_chance(me)

    def measure(self, rollout: _Rollout, base: _Sim, plan: Plan) -> tuple[float, float]:
        """``plan`` played on ``base`` and the round played out: the win chance and the place share."""
        self.place = None
        won = rollout.evaluate(base, plan)
        # The basic game's rollout stops without a value once the mover is out: both are 0 then.
        return won, won if self.place is None else self.place
