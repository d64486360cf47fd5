"""A finished game's decision analysis, read off its replay document (see :mod:`engine.analysis`).

Why here.  The analysis is judged from the game's engine events alone, which a
replay document holds in full once the game is over; reading them from the
document serves a game of this service and an imported replay file alike, and
keeps the result tied to the replay's steps: each decision names the stream
number (``n``) and the replay step (``step``) it starts at, which is what the
viewer seeks to.  Pure: the job that runs it (``workers/jobs.py``) stores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.analysis import DEFAULT_BUDGET, Budget, analyse
from engine.events import EVENT_TYPES
from service.game import engine_event

#: The analysis seed of the service: fixed, so that the same events always give the same analysis.
ANALYSIS_SEED = 23


def analyse_document(
    document: dict[str, Any],
    *,
    seed: int = ANALYSIS_SEED,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The analysis of the finished game ``document`` records (a full replay), as JSON."""
    if not document.get("complete"):
        raise ValueError("only a finished game's full replay is analysed")
    records = [e for e in document["events"] if e["type"] in EVENT_TYPES]
    events = [engine_event(e) for e in records]
    step_of = {step["n"]: step["index"] for step in document["steps"]}
    result = analyse(events, seed, budget, progress).to_dict()
    for decision in result["decisions"]:
        n = records[decision.pop("event")]["n"]
        decision["n"] = n
        decision["step"] = step_of.get(n)
    result["rounds"] = [result["decisions"][i]["step"] for i in result["rounds"]]
    return result
