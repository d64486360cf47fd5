"""Each player's game: accuracy, counts per label and luck, from their decisions judged.

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
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.analysis.evaluation import LABELS, Evaluation


def move_accuracy(delta: float) -> float:
    """Lichess's accuracy of one move from its drop in win chance (percentage points), clamped 0–100.

    A move that lost nothing is perfect; ten points cost over a third of it:

    >>> move_accuracy(0.0), round(move_accuracy(10.0), 1), round(move_accuracy(30.0), 1)
    (100.0, 63.6, 24.8)
    """
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
