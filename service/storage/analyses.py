"""A finished game's decision analysis, kept with the game: its state while it runs, its result once done.

One hash per game, on the game's slot (``game:{<id>}:analysis``, the same hash tag as its stream): ``status``
(``queued``, ``running``, ``done`` or ``failed``), ``done`` and ``total`` (decisions judged so far, of how many),
``version`` (of the analysis' method, ``engine.analysis.VERSION``), ``at`` (when it was queued or last made progress,
ms) and ``result`` (its JSON, once done).  A
finished game never changes, so a result is kept for good: it is the game's, as its events are.

An imported replay's analysis is a hash of its own (``replay-analysis:{<id>}``, on its own slot: an import's key
is not hash-tagged, and an import's keys are ``replay:<id>`` alone) that goes when the import goes: the claim writes
the import's time left as the hash's expiry, in the same transaction, so no analysis outlives the replay it is about.
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
    """Analyses of one kind of subject: ``game`` (a game of this service) or ``replay`` (an imported replay)."""

    def __init__(self, client: redis.Redis, prefix: str = "red7:", kind: str = "game") -> None:
        if kind not in ("game", "replay"):
            raise ValueError(f"analyses are of games or replays, not {kind!r}")
        self.redis = client
        self.prefix = prefix
        self.kind = kind
        self._update_script = client.register_script(_UPDATE)

    def key(self, game_id: str) -> str:
        if self.kind == "replay":
            return f"{self.prefix}replay-analysis:{{{game_id}}}"
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

    def claim(self, game_id: str, version: int, now_ms: int, stale_ms: int, *, ttl: int | None = None) -> bool:
        """Mark the analysis queued unless one is done at ``version``, or queued or running and heard of within
        ``stale_ms`` (a worker that died mid-analysis leaves it running: asked again later, it is queued again);
        whether it was.  ``ttl``: seconds the analysis is kept (``None``: for good)."""
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
                    if ttl is not None:
                        pipe.expire(key, max(1, ttl))
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def _update(self, game_id: str, fields: dict[str, Any]) -> None:
        """Write to an analysis that is still there: one whose claim expired with its import stays gone, rather than
        coming back as a hash with no expiry."""
        args = [part for pair in fields.items() for part in pair]
        self._update_script(keys=[self.key(game_id)], args=args)

    def progress(self, game_id: str, done: int, total: int, now_ms: int) -> None:
        self._update(game_id, {"status": "running", "done": done, "total": total, "at": now_ms})

    def finish(self, game_id: str, result: dict[str, Any]) -> None:
        self._update(game_id, {"status": "done", "result": json.dumps(result, sort_keys=True, separators=(",", ":"))})

    def fail(self, game_id: str) -> None:
        self._update(game_id, {"status": "failed"})


#: HSET on a key that exists, or nothing.
_UPDATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
