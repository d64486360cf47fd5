"""A replay as newline-delimited JSON: a header line, one line per step, and an end line.

The lines hold the same document as the JSON export (``document_from_lines`` puts it back together), so a
file in either format imports as the same replay.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


class NdjsonError(ValueError):
    """The lines are not a replay's lines; the message says which line and why."""


def iter_lines(document: dict[str, Any]) -> Iterator[str]:
    header = {k: v for k, v in document.items() if k not in ("steps", "events", "outcome", "hash")}
    yield json.dumps({"kind": "header", **header, "events": document["events"]}, separators=(",", ":")) + "\n"
    for step in document["steps"]:
        yield json.dumps({"kind": "step", **step}, separators=(",", ":")) + "\n"
    yield json.dumps({"kind": "end", "outcome": document["outcome"], "hash": document["hash"]}, separators=(",", ":")) + "\n"


def document_from_lines(data: bytes | str) -> dict[str, Any]:
    """The replay document that :func:`iter_lines` wrote as ``data`` (blank lines and a missing last newline are fine)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise NdjsonError("the lines are not UTF-8") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise NdjsonError(f"line {number} is not JSON") from None
        if not isinstance(row, dict) or row.get("kind") not in ("header", "step", "end"):
            raise NdjsonError(f'line {number} is not an object with "kind": "header", "step" or "end"')
        rows.append((number, row.pop("kind"), row))
    kinds = [kind for _, kind, _ in rows]
    if not rows or kinds[0] != "header" or kinds[-1] != "end" or set(kinds[1:-1]) - {"step"}:
        raise NdjsonError("a replay's lines are a header line, one step line per step, and an end line")
    document = dict(rows[0][2])
    document["steps"] = [row for _, _, row in rows[1:-1]]
    document.update({"outcome": rows[-1][2].get("outcome"), "hash": rows[-1][2].get("hash")})
    return document
