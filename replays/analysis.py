"""A finished game's decision analysis, read off its replay document (see :mod:`engine.analysis`).

Why here.  The analysis is judged from the game's engine events alone, which a
replay document holds in full once the game is over; reading them from the
document serves a game of this service and an imported replay file alike, and
keeps the result tied to the replay's steps: each decision names the stream
number (``n``) and the replay step (``step``) it starts at, which is what the
viewer seeks to.  The document's lobby events say which decisions were not the
player's: a turn its deadline took (``turn_timed_out``: a fold, or an AI's
turn) and every turn of a seat after its player resigned (``seat_resigned``: an
AI plays it).  Those are shown (``by``: ``timeout`` or ``ai``) but count for no
one's accuracy, labels or luck.  Pure: the job that runs it (``workers/jobs.py``)
stores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.analysis import DEFAULT_BUDGET, Budget, analyse, summarise
from engine.events import EVENT_TYPES
from service.domain.game import engine_event

#: The analysis seed of the service: fixed, so that the same events always give the same analysis.
ANALYSIS_SEED = 23


def _not_the_players(records: list[dict[str, Any]]) -> dict[int, str]:
    """The stream numbers of engine events decided for a seat rather than by its player: ``n`` -> ``timeout``/``ai``."""
    marked: dict[int, str] = {}
    resigned: set[int] = set()
    timed_out: int | None = None
    for record in records:
        kind = record["type"]
        if kind == "seat_resigned":
            resigned.add(record["seat"])
        elif kind == "turn_timed_out":
            timed_out = record["seat"]
        elif kind in EVENT_TYPES:
            seat = record.get("seat")
            if seat is not None and seat in resigned:
                marked[record["n"]] = "ai"
            elif timed_out is not None and seat == timed_out:
                marked[record["n"]] = "timeout"
            if kind in ("turn_started", "round_dealt", "game_finished"):
                timed_out = None
    return marked


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
    by = _not_the_players(document["events"])
    analysis = analyse(events, seed, budget, progress)
    players = [d for d in analysis.decisions if records[d.event]["n"] not in by]
    result = analysis.to_dict()
    result["players"] = [s.to_dict() for s in summarise(analysis.players, analysis.winner, players)]
    for decision in result["decisions"]:
        n = records[decision.pop("event")]["n"]
        decision["n"] = n
        decision["step"] = step_of.get(n)
        decision["by"] = by.get(n, "player")
    result["rounds"] = [result["decisions"][i]["step"] for i in result["rounds"]]
    return result
