"""A finished game's decision analysis, kept with the game: its state while it runs, its result once done.

One hash per game, on the game's slot (``game:{<id>}:analysis``, the same hash tag as its stream): ``status``
(``queued``, ``running``, ``done`` or ``failed``), ``done`` and ``total`` (decisions judged so far, of how many),
``version`` (of the analysis' method, ``engine.analysis.VERSION``), ``at`` (when it was queued or last made progress,
ms) and ``result`` (its JSON, once done).  A
finished game never changes, so a result is kept for good: it is the game's, as its events are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis


@dataclass(frozen=True, slots=True)
class AnalysisRecord:
    status: str
    done: int
    total: int
    version: int
    result: dict[str, Any] | None


class AnalysisStore:
    def __init__(self, client: redis.Redis, prefix: str = "red7:") -> None:
        self.redis = client
        self.prefix = prefix

    def key(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:analysis"

    def get(self, game_id: str) -> AnalysisRecord | None:
        stored = self.redis.hgetall(self.key(game_id))
        if not stored:
            return None
        data = {_text(k): _text(v) for k, v in stored.items()}
        result = data.get("result")
        return AnalysisRecord(
            data.get("status", "queued"),
            int(data.get("done", 0)),
            int(data.get("total", 0)),
            int(data.get("version", 0)),
            json.loads(result) if result else None,
        )

    def claim(self, game_id: str, version: int, now_ms: int, stale_ms: int) -> bool:
        """Mark the analysis queued unless one is done at ``version``, or queued or running and heard of within
        ``stale_ms`` (a worker that died mid-analysis leaves it running: asked again later, it is queued again);
        whether it was."""
        key = self.key(game_id)
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                    status, stored, at = (
                        _text(v) if v is not None else None for v in pipe.hmget(key, ["status", "version", "at"])
                    )
                    alive = status == "done" or (status in ("queued", "running") and now_ms - int(at or 0) < stale_ms)
                    if alive and stored == str(version):
                        pipe.unwatch()
                        return False
                    pipe.multi()
                    pipe.delete(key)
                    pipe.hset(key, mapping={"status": "queued", "done": 0, "total": 0, "version": version, "at": now_ms})
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def progress(self, game_id: str, done: int, total: int, now_ms: int) -> None:
        self.redis.hset(self.key(game_id), mapping={"status": "running", "done": done, "total": total, "at": now_ms})

    def finish(self, game_id: str, result: dict[str, Any]) -> None:
        body = json.dumps(result, sort_keys=True, separators=(",", ":"))
        self.redis.hset(self.key(game_id), mapping={"status": "done", "result": body})

    def fail(self, game_id: str) -> None:
        self.redis.hset(self.key(game_id), "status", "failed")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
