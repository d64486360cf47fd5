"""The expert bot itself: candidate turns, samples, paired comparison and pruning.

Why it exists.  This is the search the package docstring describes
(:mod:`engine.expert`): it takes the candidates from the legal search
(:func:`engine.legal.walk`), ranks and cuts them with the greedy heuristic,
then spends its budget — time from the injected clock, or a fixed number of
samples for reproducible decisions — on the candidates still close to the
leader.  Everything it knows of the game comes through the parts around it:
the belief, the samples, the rollouts and the objective.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.events import Event
from engine.expert.belief import check_inputs, read_belief
from engine.expert.odds import RoundValue, round_value
from engine.expert.policy import plan_value
from engine.expert.rollout import _Rollout, _Sim
from engine.expert.sampling import sample_state
from engine.legal import Outcome, Plan, position_from_view, walk
from engine.steps import Fold, Step
from engine.views import View

#: Safety stop for a clock that never advances.
_MAX_TIMED_ITERATIONS = 100_000
#: Prune only after this many samples, then every few samples.
_PRUNE_FROM = 8
_PRUNE_EVERY = 4
#: How many standard errors behind the leader a candidate must be to be dropped.
_PRUNE_Z = 2.5


@dataclass(slots=True)
class SearchReport:
    """What the last decision did; for benchmarks and curious callers, never for the decision itself."""

    candidates: int = 0
    iterations: int = 0
    rollouts: int = 0
    chosen_mean: float | None = None


class ExpertBot:
    """A determinized Monte Carlo search over full turns, planning from the seat's view alone."""

    name = "expert"

    def __init__(
        self,
        rng: random.Random,
        *,
        seconds: float = 1.0,
        iterations: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        candidates: int = 24,
        objective: RoundValue = round_value,
    ) -> None:
        if iterations is not None and iterations < 0:
            raise ValueError("iterations must be 0 or more")
        if candidates < 1:
            raise ValueError("at least one candidate turn must be searched")
        self.rng = rng
        self.seconds = seconds
        self.iterations = iterations
        self.clock = clock
        self.candidates = candidates
        self.objective = objective
        self.report = SearchReport()

    def plan_view(self, seen: View, history: Sequence[Event]) -> Sequence[Step]:
        """The steps to take now: a full turn, or the part of it up to a 3's draw.

        ``seen`` must be ``engine.projection.view(state, seat)`` on the seat's
        turn and ``history`` the seat's redacted events (``redact(e, seat)``).
        """
        check_inputs(seen, history)
        # The budget covers the whole decision, from here: a caller waits for all of it.
        deadline = self.clock() + self.seconds if self.iterations is None else None
        pos = position_from_view(seen)
        plans = [plan for plan in walk(pos, draw_choices=True) if plan.outcome is not Outcome.LOSE]
        self.report = SearchReport(candidates=len(plans))
        if not plans:
            return (Fold(),)
        if len(plans) == 1:
            return plans[0].steps
        ranked = sorted(plans, key=plan_value, reverse=True)[: self.candidates]
        if self.iterations == 0:
            return ranked[0].steps
        return ranked[self._search(seen, history, ranked, deadline)].steps

    def _search(self, seen: View, history: Sequence[Event], plans: list[Plan], deadline: float | None) -> int:
        """The index of the plan with the best mean over the samples; see the package docstring (engine.expert)."""
        belief = read_belief(seen, history)
        me = seen.viewer
        assert me is not None
        rollout = _Rollout.of_view(seen, me, self.objective)
        timed = deadline is not None  # with an iteration budget the clock is never read: deterministic
        end = math.inf if deadline is None else deadline
        limit = _MAX_TIMED_ITERATIONS if self.iterations is None else self.iterations
        clock = self.clock
        alive = list(range(len(plans)))
        values: list[list[float]] = [[] for _ in plans]
        done = rollouts = 0
        while done < limit and len(alive) > 1:
            if timed and clock() >= end:
                break
            base = _Sim.of(sample_state(seen, belief, self.rng))
            row = []
            for index in alive:
                row.append(rollout.evaluate(base, plans[index]))
                rollouts += 1
                if timed and len(row) < len(alive) and clock() >= end:
                    break
            if len(row) < len(alive):
                break  # out of time mid-sample: keep the comparison on equal samples
            for index, value in zip(alive, row, strict=True):
                values[index].append(value)
            done += 1
            if done >= _PRUNE_FROM and (done - _PRUNE_FROM) % _PRUNE_EVERY == 0:
                alive = prune(alive, values)
        self.report.iterations = done
        self.report.rollouts = rollouts
        if done == 0:
            return 0
        best = max(alive, key=lambda i: (sum(values[i]), -i))
        self.report.chosen_mean = sum(values[best]) / done
        return best


def prune(alive: list[int], values: list[list[float]], always: tuple[int, ...] = ()) -> list[int]:
    """Drop the candidates clearly behind the leader on paired differences (same samples); ``always``: candidates kept
    whatever their values (the decision analysis keeps the step played)."""
    leader = max(alive, key=lambda i: (sum(values[i]), -i))
    ahead = values[leader]
    m = len(ahead)
    kept = []
    for index in alive:
        if index == leader or index in always:
            kept.append(index)
            continue
        diffs = [a - b for a, b in zip(ahead, values[index], strict=True)]
        mean = sum(diffs) / m
        var = sum((d - mean) ** 2 for d in diffs) / (m - 1)
        if mean <= 0 or mean * math.sqrt(m) <= _PRUNE_Z * math.sqrt(var):
            kept.append(index)
    return kept
