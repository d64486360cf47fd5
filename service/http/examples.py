"""The document's examples: bodies this service really sent or accepted, recorded from a seeded game.

``examples.json`` is written by ``python3 dev.py examples`` (tests/harness/examples.py; rerun it when a schema changes
shape, tests/service/http/test_examples.py fails until then); tests/service/http/test_openapi.py checks every example
of the document against its schema and sends the request examples to a server, so the docs page never again offers a
body the API refuses.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from service.http.problems import SERVICE_PROBLEMS, problem

_FILE = Path(__file__).with_name("examples.json")

#: The replay document is large: it is one component (components.examples.Replay) that its operations refer to.
REPLAY_REF = {"finished": {"$ref": "#/components/examples/Replay"}}


@cache
def _recorded() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_FILE.read_text(encoding="utf-8"))
    return loaded


def example(name: str) -> Any:
    """The recorded body ``name`` (a schema's component name: ``GameView``, ``Action``, ...)."""
    return _recorded()[name]


def replay_component() -> dict[str, Any]:
    return {"summary": "a finished game, from the full perspective", "value": example("Replay")}


def ndjson_example() -> str:
    """``Accept: application/x-ndjson``: a header line, one line per step, an end line (here the first step only)."""
    replay = example("Replay")
    header = {k: v for k, v in replay.items() if k not in ("events", "steps", "outcome", "hash")}
    lines = [{"kind": "header", **header}, {"kind": "step", **replay["steps"][0]}]
    lines.append({"kind": "end", "outcome": replay["outcome"], "hash": replay["hash"]})
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


#: The problem shown for each status: a code of that status, with the members it carries.
_PROBLEM_EXTRAS: dict[str, dict[str, Any]] = {
    "invalid_request": {
        "detail": "steps.0.card: not a card; write a colour letter (ROYGBIV) and 1-7, e.g. R7",
        "errors": [
            {
                "field": "steps.0.card",
                "message": "not a card; write a colour letter (ROYGBIV) and 1-7, e.g. R7",
                "location": "json",
            }
        ],
    },
    "version_conflict": {"detail": "The game is at version 14, not 12.", "current_version": 14},
    "rate_limited": {"detail": "Too many requests: 600 per 1 minute"},
}


def problem_example(status: int) -> dict[str, Any]:
    code = next(c for c, (s, _) in SERVICE_PROBLEMS.items() if s == status and (s != 422 or c == "invalid_request"))
    if status == 409:
        code = "version_conflict"
    extra = dict(_PROBLEM_EXTRAS.get(code, {}))
    detail = extra.pop("detail", None) or SERVICE_PROBLEMS[code][1] + "."
    return problem(code, status, detail, **extra)
