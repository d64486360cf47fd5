"""A replay as newline-delimited JSON: a header line, one line per step, and an end line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def iter_lines(document: dict[str, Any]) -> Iterator[str]:
    header = {k: v for k, v in document.items() if k not in ("steps", "events", "outcome", "hash")}
    yield json.dumps({"kind": "header", **header, "events": document["events"]}, separators=(",", ":")) + "\n"
    for step in document["steps"]:
        yield json.dumps({"kind": "step", **step}, separators=(",", ":")) + "\n"
    yield json.dumps({"kind": "end", "outcome": document["outcome"], "hash": document["hash"]}, separators=(",", ":")) + "\n"
