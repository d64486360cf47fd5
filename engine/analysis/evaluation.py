"""One decision judged from the mover's knowledge alone: its drop in win chance (ΔW), in place share (ΔP), a label.

How a decision is evaluated (:func:`evaluate`).  The expert's belief
(:func:`engine.expert.read_belief`) says which cards the mover had not seen and
where they may be; ``worlds`` deals of them are sampled
(:func:`engine.expert.sample_state`).  Every candidate turn — the one played
and the best ``candidates`` of the turns that keep the mover in the round, as
the expert ranks them (:func:`engine.expert.plan_value`) — is played on the same
deals (paired) and the round is played out by the expert's rollout policy (the
playout the expert's own search uses, :mod:`engine.expert.rollout`).  The end of
the round is valued as the chance to win the match (:func:`win_chance`).  These
selection deals only choose which turns to measure (candidates clearly behind
the leader are dropped as the expert drops them, except the played one): the
two best besides the played turn, *even when the played turn leads there*.
They and the played turn are then measured on ``worlds`` *fresh* deals, paired
on each: on the deals that chose them, the leaders' lead is biased upwards (the
winner's curse), and a played turn that led there by luck would hide a better
one — the two analysis seeds then disagreed on which turn was best, and a label
flipped with it.  The best turn is the one of the two that does best on the
fresh deals (the larger of two fresh means: a small upward bias, at most about
half a standard error when the two are equal); ΔW is its lead over the played
turn.  While ΔW is within two standard errors of a label's threshold, more
fresh deals are added, up to ``refine`` times as many: a close call is where a
label depends on the seed.  A best turn that does no better on the fresh deals
is the played one (ΔW 0).

Labels (docs/rules.md has no word on them; they are the review's own): an
inaccuracy, mistake or blunder when ΔW is at least 5, 10 or 15 percentage
points *and* more than twice its standard error; a turn that went out of the
round (docs/rules.md 15, 17) when a turn staying in existed is always a blunder.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.analysis.decisions import DecisionPoint
from engine.analysis.values import Judge
from engine.expert.belief import read_belief
from engine.expert.policy import plan_value
from engine.expert.rollout import _Rollout, _Sim
from engine.expert.sampling import sample_state
from engine.expert.search import prune
from engine.legal import Outcome, Plan, position_from_view, walk
from engine.steps import Step, step_to_dict

#: What a label needs: ΔW (percentage points) at least this, and more than twice its standard error.
THRESHOLDS = (("blunder", 15.0), ("mistake", 10.0), ("inaccuracy", 5.0))
LABELS = ("inaccuracy", "mistake", "blunder")
#: Dropping candidates: as the expert's search does (engine.expert.search), never the played one.
_PRUNE_FROM = 8
_PRUNE_EVERY = 4
#: How many turns besides the played one are measured on fresh deals: the leaders of the selection deals.
_MEASURED = 2


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard each decision is looked at.

    ``worlds`` deals for every candidate, ``candidates`` turns besides the played
    one, and up to ``refine`` times the fresh deals for the played turn and the
    two it is measured against when ΔW is close to a label's threshold.  A close
    call that ends at the limit keeps a standard error, and another seed labels
    it the other way about half the time: 64 halves that error against 16 (and
    the flips with it) for about a third more time per game.
    """

    worlds: int = 48
    candidates: int = 8
    refine: int = 64

    def __post_init__(self) -> None:
        if self.worlds < 2:
            raise ValueError("at least two worlds are needed for a standard error")
        if self.refine < 1:
            raise ValueError("refine is a multiple of the worlds, at least 1")
        if self.candidates < 1:
            raise ValueError("at least one candidate besides the played turn")


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One decision judged: win chances in [0, 1]; ΔW, ΔP (place share) and their standard errors in percentage points."""

    number: int
    event: int
    seat: int
    round: int
    played: tuple[Step, ...]
    best: tuple[Step, ...]
    win: float
    best_win: float
    delta: float
    se: float
    label: str | None
    went_out: bool
    candidates: int
    forced: bool
    place_delta: float = 0.0
    place_se: float = 0.0

    @property
    def loss(self) -> float:
        """What the decision lost, for accuracy: the drop in place share, ΔP (ΔW with two players)."""
        return self.place_delta

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "event": self.event,
            "seat": self.seat,
            "round": self.round,
            "played": [step_to_dict(s) for s in self.played],
            "best": [step_to_dict(s) for s in self.best],
            "win": round(self.win, 4),
            "best_win": round(self.best_win, 4),
            "delta": round(self.delta, 2),
            "se": round(self.se, 2),
            "label": self.label,
            "went_out": self.went_out,
            "candidates": self.candidates,
            "forced": self.forced,
            "place_delta": round(self.place_delta, 2),
            "place_se": round(self.place_se, 2),
        }


def _label(delta: float, se: float) -> str | None:
    for name, threshold in THRESHOLDS:
        if delta >= threshold and delta > 2 * se:
            return name
    return None


def evaluate(point: DecisionPoint, seed: int, budget: Budget = DEFAULT_BUDGET) -> Evaluation:
    """Judge one decision from the mover's view and redacted history alone (see the module docstring)."""
    seen, me = point.seen, point.seat
    pos = position_from_view(seen)
    plans = walk(pos, losing=True, draw_choices=True)
    staying = [plan for plan in plans if plan.outcome is not Outcome.LOSE]
    played = next((plan for plan in plans if plan.steps == point.played), None)
    if played is None:  # a fold, or a turn walk does not list: played as it was
        played = Plan(point.played, Outcome.LOSE, pos)
    ranked = sorted(staying, key=plan_value, reverse=True)[: budget.candidates]
    candidates = [played, *(plan for plan in ranked if plan.steps != played.steps)]
    went_out = played.outcome is Outcome.LOSE and bool(staying)
    rng = random.Random(f"red7-analysis:{seed}:{point.number}")
    belief = read_belief(seen, point.history)
    judge = Judge()
    rollout = _Rollout.of_view(seen, me, judge)
    alive = list(range(len(candidates)))
    values: list[list[float]] = [[] for _ in candidates]
    for done in range(1, budget.worlds + 1):
        base = _Sim.of(sample_state(seen, belief, rng))
        for index in alive:
            values[index].append(rollout.evaluate(base, candidates[index]))
        if len(alive) > 2 and done >= _PRUNE_FROM and (done - _PRUNE_FROM) % _PRUNE_EVERY == 0:
            alive = prune(alive, values, always=(0,))
    # The selection deals only choose which turns to measure: the best ``_MEASURED`` besides the played one,
    # even when the played turn leads on them (a turn that leads there by luck must not hide a better one).
    leaders = sorted((i for i in alive if i != 0), key=lambda i: (-sum(values[i]), i))[:_MEASURED]
    win = statistics.fmean(values[0])
    best, delta, se, place_delta, place_se = 0, 0.0, 0.0, 0.0, 0.0
    if leaders:
        # ΔW on fresh deals, the played turn and the leaders paired on each: on the deals that chose them
        # their lead is biased upwards (the winner's curse).  More deals while the label is a close call.
        measured = [0, *leaders]
        wins: list[list[float]] = [[] for _ in measured]
        places: list[list[float]] = [[] for _ in measured]
        limit = budget.worlds * budget.refine
        while not wins[0] or (_close(delta, se) and len(wins[0]) < limit):
            for _ in range(min(budget.worlds, limit - len(wins[0]))):
                base = _Sim.of(sample_state(seen, belief, rng))
                for at, index in enumerate(measured):
                    won, placed = judge.measure(rollout, base, candidates[index])
                    wins[at].append(won)
                    places[at].append(placed)
            lead = max(range(1, len(measured)), key=lambda at: (sum(wins[at]), -at))
            best = measured[lead]
            delta, se = _difference(wins[lead], wins[0])
        win = statistics.fmean(values[0] + wins[0])
        if delta <= 0:  # on fresh deals the played turn did as well: it is the best found
            best, delta, se = 0, 0.0, 0.0
        ahead = max(range(1, len(measured)), key=lambda at: (sum(places[at]), -at))
        place_delta, place_se = _difference(places[ahead], places[0])
        if place_delta <= 0:
            place_delta, place_se = 0.0, 0.0
    label = "blunder" if went_out else _label(delta, se)
    return Evaluation(
        number=point.number,
        event=point.event,
        seat=me,
        round=point.round,
        played=point.played,
        best=candidates[best].steps,
        win=win,
        best_win=min(1.0, max(0.0, win + delta / 100)),
        delta=delta,
        se=se,
        label=label,
        went_out=went_out,
        candidates=len(candidates),
        forced=len(candidates) == 1,
        place_delta=place_delta,
        place_se=place_se,
    )


def _difference(best: Sequence[float], played: Sequence[float]) -> tuple[float, float]:
    """ΔW and its standard error in percentage points, from the paired values of two turns."""
    diffs = [b - p for b, p in zip(best, played, strict=True)]
    return 100 * statistics.fmean(diffs), 100 * statistics.stdev(diffs) / math.sqrt(len(diffs))


def _close(delta: float, se: float) -> bool:
    """Whether another seed could well give another label: ΔW within two standard errors of a threshold."""
    return any(abs(delta - threshold) < 2 * se for _, threshold in THRESHOLDS) or (delta >= 5 and abs(delta - 2 * se) < se)
