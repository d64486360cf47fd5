"""Decision analysis of a game: each player's win chance, from what that player knew, and each step judged by it.

Why it exists.  A replay says what was played; this says whether it was a good
step.  The anchor is a chess engine's game analysis (a win chance per position,
an accuracy per move, labels by the drop in win chance), but Red7 hides hands
and the deck, and a judge that looked at them would blame players for what they
could not know.  So every decision is judged **only from the mover's knowledge**:
the mover's view and redacted history at that point (:func:`engine.projection.view`,
:func:`engine.projection.redact`), never the real hidden cards.

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

The place share beside the win chance.  A trailing seat's chance to win the
match is the product of its chances against every other seat, so it shrinks
towards zero, and every drop of it with it: a player who is far behind could
play anything at 100% accuracy, and at tables of mixed strength the weakest
player scored a higher accuracy than a stronger one.  So the same fresh deals
also measure the *place share* (:func:`place_share`): the expected share of the
other seats the mover finishes the match ahead of — the standing the ladders
rate (service/domain/ratings.py), which a player who can no longer win still plays
for.  Its drop ΔP is the best measured turn's lead in it (0 if none; the turns
measured are the leaders in win chance, so a turn best only for the place can
be missed).  With two players, and in the basic game, it is ΔW exactly.  Labels
stay in win chance, as a chess engine's do; accuracy reads ΔP
(:attr:`Evaluation.loss`): a first place given away for a second costs half what
a first given away for a last does, as the ladders' places have it.  (Reading
the larger of ΔW and ΔP instead ordered the levels less clearly: a contender's
accuracy then fell by its ΔW, a trailing player's only by its ΔP.)

Per player: accuracy by Lichess's formulas (``103.1668·e^(−0.04354·ΔP) − 3.1669``
per decision, clamped 0–100; the game's the mean of a volatility-weighted mean
and a harmonic mean, the volatility that of the win chance), counts per label,
and luck: the change in the player's win chance between the end of one of their
decisions and the start of their next (cards drawn, what the others did, what
came to light), and from their last decision to the result.  So
``result − first win chance = luck − Σ ΔW``.  Beside accuracy, ``win_accuracy``
is the same formulas on ΔW alone (the issue's first reading, and Lichess's):
with two players the two are equal; with more it shows what a player gave away
of winning the match, which for a seat that can no longer win is next to nothing.

Deterministic: each decision's deals come from ``random.Random`` seeded with the
analysis seed and the decision's number, so the same events and seed give the
same numbers, and the hidden cards the mover had not seen cannot change them.
Pure: no clock, no I/O.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import FULL_MASK
from engine.decision import decide_steps
from engine.events import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    DrawCause,
    Event,
    GameFinished,
    PlayerEliminated,
    RoundDealt,
    TurnStarted,
)
from engine.expert.belief import read_belief
from engine.expert.odds import _COLORS, _sum_numbers, game_odds
from engine.expert.policy import plan_value
from engine.expert.rollout import _Rollout, _Sim
from engine.expert.sampling import sample_state
from engine.expert.search import prune
from engine.legal import Outcome, Plan, position_from_view, position_of, walk
from engine.projection import redact, view
from engine.rules import qualifying_mask
from engine.state import CARDS_PER_PLAYER, TARGET_SCORE, GameState, Phase, apply_in_place
from engine.steps import Fold, Step, step_to_dict
from engine.views import View

#: What a label needs: ΔW (percentage points) at least this, and more than twice its standard error.
THRESHOLDS = (("blunder", 15.0), ("mistake", 10.0), ("inaccuracy", 5.0))
LABELS = ("inaccuracy", "mistake", "blunder")
#: Dropping candidates: as the expert's search does (engine.expert.search), never the played one.
_PRUNE_FROM = 8
_PRUNE_EVERY = 4
#: How many turns besides the played one are measured on fresh deals: the leaders of the selection deals.
_MEASURED = 2
#: The version of the analysis' method and shape: part of a cached result's key.
VERSION = 2


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
class _RoundEnd:
    """The match as an advanced round ends: each seat's scored cards (the winner's qualifying cards added), their
    scores, the target, and whether the game ends here (docs/rules.md 24).  What both values of a rollout read."""

    piles: list[int]
    scores: list[int]
    target: int
    over: bool

    @classmethod
    def of(cls, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int]) -> _RoundEnd:
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
    """
    if not advanced:
        return 1.0 if winner == me else 0.0
    return _RoundEnd.of(winner, rule, palettes, scored).win_chance(me)


def place_share(me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
    """The expected share of the other seats ``me`` finishes the match ahead of, from the end of a round.

    1 is first, 0 last; with two players it is :func:`win_chance`.  It is the
    standing the ladders rate (service/domain/ratings.py), read as a score: a seat that
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
    return _RoundEnd.of(winner, rule, palettes, scored).place_share(me)


class _Judge:
    """The rollout's value at the end of a round: the win chance, with the place share kept beside it."""

    __slots__ = ("place",)

    def __init__(self) -> None:
        self.place: float | None = None

    def __call__(self, me: int, winner: int, rule: int, palettes: Sequence[int], scored: Sequence[int], advanced: bool) -> float:
        if not advanced:
            self.place = 1.0 if winner == me else 0.0
            return self.place
        end = _RoundEnd.of(winner, rule, palettes, scored)  # read once for both values
        self.place = end.place_share(me)
        return end.win_chance(me)

    def measure(self, rollout: _Rollout, base: _Sim, plan: Plan) -> tuple[float, float]:
        """``plan`` played on ``base`` and the round played out: the win chance and the place share."""
        self.place = None
        won = rollout.evaluate(base, plan)
        # The basic game's rollout stops without a value once the mover is out: both are 0 then.
        return won, won if self.place is None else self.place


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """One decision of a game: where it starts, who made it, what they knew, and what they did.

    ``seen`` and ``history`` are all an evaluation may read of the game: the
    mover's view and redacted history.  ``played`` are the mover's steps, and
    ``events`` how many events they made.
    """

    number: int
    event: int
    seat: int
    round: int
    seen: View
    history: tuple[Event, ...]
    played: tuple[Step, ...]
    events: int


_STEP_EVENTS = (CardPlayed, CardDiscarded, CardTaken, CardPlaced, PlayerEliminated)


def decision_points(events: Sequence[Event]) -> list[DecisionPoint]:
    """Every decision of the game in ``events``: a turn, or the rest of a turn after a 3's draw.

    The played steps are found among the legal turns of the real position by
    deciding each and comparing its events with the recorded ones; a stretch
    that matches no turn (a step the service took, such as a timeout) is
    skipped and not judged.
    """
    state = GameState()
    points: list[DecisionPoint] = []
    fresh = False
    i = 0
    while i < len(events):
        event = events[i]
        turn = state.turn
        if (
            fresh
            and state.phase is Phase.TURN
            and turn is not None
            and isinstance(event, _STEP_EVENTS)
            and event.seat == turn.seat
        ):
            fresh = False
            found = _played(state, events, i)
            if found is not None:
                steps, count = found
                seat = turn.seat
                points.append(
                    DecisionPoint(
                        number=len(points),
                        event=i,
                        seat=seat,
                        round=state.round,
                        seen=view(state, seat),
                        history=tuple(redact(e, seat) for e in events[:i]),
                        played=steps,
                        events=count,
                    )
                )
        apply_in_place(state, event)
        if isinstance(event, TurnStarted | RoundDealt) or (isinstance(event, CardDrawn) and event.cause is DrawCause.THREE):
            fresh = True
        elif isinstance(event, _STEP_EVENTS):
            fresh = False
        i += 1
    return points


def _played(state: GameState, events: Sequence[Event], start: int) -> tuple[tuple[Step, ...], int] | None:
    """The legal turn whose events are the recorded ones from ``start``, and how many events it made."""
    turn = state.turn
    assert turn is not None
    plans = [plan.steps for plan in walk(position_of(state), losing=True, draw_choices=True)]
    plans.append((Fold(),))
    first = events[start]
    for steps in plans:
        try:
            made, _ = decide_steps(state, steps, turn.seat)
        except Exception:
            continue
        if made and made[0] == first and list(events[start : start + len(made)]) == made:
            return steps, len(made)
    return None


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
    judge = _Judge()
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


# --- per player ------------------------------------------------------------------------


def move_accuracy(delta: float) -> float:
    """Lichess's accuracy of one move from its drop in win chance (percentage points), clamped 0–100."""
    if delta <= 0:
        return 100.0
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * delta) - 3.1669))


def game_accuracy(wins: Sequence[float], deltas: Sequence[float]) -> float | None:
    """Lichess's game accuracy: the mean of a volatility-weighted mean and a harmonic mean of the move accuracies.

    ``wins`` are the player's win chances in percent before each decision and
    after the last (one more than ``deltas``).  The weights are the standard
    deviations of windows of ``wins`` (the size a tenth of the moves, 2 to 8),
    clamped to 0.5–12, as in lila's ``AccuracyPercent.gameAccuracy``.
    """
    if not deltas:
        return None
    accuracies = [move_accuracy(d) for d in deltas]
    size = min(8, max(2, len(deltas) // 10))
    head = list(wins[:size])
    windows = [head] * (size - 2) + [list(wins[i : i + size]) for i in range(len(wins) - size + 1)]
    weights = [min(12.0, max(0.5, statistics.pstdev(w) if len(w) > 1 else 0.0)) for w in windows][: len(accuracies)]
    while len(weights) < len(accuracies):
        weights.append(0.5)
    weighted = sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1 / max(a, 1.0) for a in accuracies)
    return (weighted + harmonic) / 2


@dataclass(slots=True)
class PlayerSummary:
    seat: int
    accuracy: float | None = None
    win_accuracy: float | None = None  # the same formulas on ΔW alone: what a player gave away of winning
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    luck: float = 0.0
    decisions: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "win_accuracy": None if self.win_accuracy is None else round(self.win_accuracy, 1),
            "counts": dict(self.counts),
            "luck": round(self.luck, 2),
            "decisions": self.decisions,
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's decisions judged, and each player's summary."""

    seed: int
    budget: Budget
    players: int
    winner: int | None
    decisions: tuple[Evaluation, ...]
    summaries: tuple[PlayerSummary, ...]
    rounds: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "seed": self.seed,
            "budget": {"worlds": self.budget.worlds, "candidates": self.budget.candidates, "refine": self.budget.refine},
            "players": [s.to_dict() for s in self.summaries],
            "winner": self.winner,
            "rounds": list(self.rounds),
            "decisions": [d.to_dict() for d in self.decisions],
        }


def summarise(players: int, winner: int | None, decisions: Sequence[Evaluation]) -> tuple[PlayerSummary, ...]:
    """Per player: accuracy, counts per label, luck (see the module docstring)."""
    summaries = []
    for seat in range(players):
        mine = [d for d in decisions if d.seat == seat]
        summary = PlayerSummary(seat, decisions=len(mine))
        for d in mine:
            if d.label is not None:
                summary.counts[d.label] += 1
        if mine:
            wins = [100 * d.best_win for d in mine] + [100 * mine[-1].win]
            summary.accuracy = game_accuracy(wins, [d.loss for d in mine])
            summary.win_accuracy = game_accuracy(wins, [max(0.0, d.delta) for d in mine])
            luck = sum(100 * (nxt.best_win - prev.win) for prev, nxt in itertools.pairwise(mine))
            if winner is not None:
                luck += 100 * ((1.0 if winner == seat else 0.0) - mine[-1].win)
            summary.luck = luck
        summaries.append(summary)
    return tuple(summaries)


def analyse(
    events: Sequence[Event],
    seed: int = 0,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Every decision of the game in ``events`` judged, with ``progress(done, total)`` after each."""
    points = decision_points(events)
    players = next((e.players for e in events if hasattr(e, "players")), 0)
    winner = next((e.winner for e in events if isinstance(e, GameFinished)), None)
    judged = []
    for point in points:
        judged.append(evaluate(point, seed, budget))
        if progress is not None:
            progress(len(judged), len(points))
    rounds = []
    last_round = None
    for d in judged:
        if d.round != last_round:
            rounds.append(d.number)
            last_round = d.round
    return Analysis(seed, budget, players, winner, tuple(judged), summarise(players, winner, judged), tuple(rounds))
