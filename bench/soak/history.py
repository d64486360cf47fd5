"""The soak's history: every request and its answer, every acknowledged action, ticket and idempotent retry, and the
nemesis's log, recorded as the load runs (thread-safe), saved as JSON for :mod:`bench.soak.checker` to read again."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import requests

from tests.harness.deployment import Client


class History:
    """What the load clients were told, in the order they were told it."""

    def __init__(self, seed: int, minutes: float) -> None:
        self.lock = threading.Lock()
        self.data: dict[str, Any] = {
            "seed": seed,
            "minutes": minutes,
            "started": time.time(),
            "requests": [],
            "acks": [],
            "retries": [],
            "tickets": [],
            "games": [],
            "streams": [],
            "nemesis": [],
            "counts": Counter(),
            "stores": {},
        }

    def add(self, kind: str, entry: dict[str, Any]) -> None:
        with self.lock:
            self.data[kind].append(entry)

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.data["counts"][what] += n

    def request(self, who: str, method: str, path: str, status: int) -> None:
        self.add("requests", {"t": time.time(), "who": who, "method": method, "path": path, "status": status})

    def save(self, path: Path) -> None:
        with self.lock:
            path.write_text(json.dumps(self.data, default=_plain))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _plain(value: Any) -> Any:
    if isinstance(value, Counter):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


class Recorded(Client):
    """A :class:`Client` whose every request and answer goes into the history (bodies are not kept: the history of an
    hour would be too large; what a check needs, the load records itself)."""

    history: History | None = None

    def call(self, method: str, path: str, *, timeout: float = 30, **kwargs: Any) -> requests.Response | None:
        response = super().call(method, path, timeout=timeout, **kwargs)
        if self.history is not None:
            self.history.request(self.player_id or "-", method, _route(path), response.status_code if response is not None else 0)
        return response


def _route(path: str) -> str:
    """The path without its query (ids kept: an anomaly's example names the game)."""
    return path.split("?", 1)[0]
