"""A game's analysis as one report: every decision judged, each player summarised, under the method's version."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.analysis.accuracy import PlayerSummary, summarise
from engine.analysis.decisions import decision_points
from engine.analysis.evaluation import DEFAULT_BUDGET, Budget, Evaluation, evaluate
from engine.events import Event, GameFinished

#: The version of the analysis' method and shape: part of a cached result's key.
VERSION = 2


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
