"""A finished game's decision analysis, kept with the game: its state while it runs, its result once done.

One hash per game, on the game's slot (``game:{<id>}:analysis``, the same hash tag as its stream): ``status``
(``queued``, ``running``, ``done`` or ``failed``), ``done`` and ``total`` (decisions judged so far, of how many),
``version`` (of the analysis' method, ``engine.analysis.VERSION``), ``at`` (when it was queued or last made progress,
ms) and ``result`` (its JSON, once done).  A
finished game never changes, so a result is kept for good: it is the game's, as its events are.

Who asked for it (``by``, a player id) and when (``asked``, ms) are kept with it: the analyses' queue serves players in
turn (``service/jobqueue/analysis_queue.py``), and when the queue's Redis loses its data the analyses asked for and not done are
put back in their players' turns from here.  Which those are is an index, like the games in play's
(:mod:`service.storage.inplay`): ``<prefix>analyses-pending:{<kind>-<n>}``, sets of ids over :data:`BUCKETS`
buckets, an id entered before its claim is written and removed after its result (or failure) is; an id whose
analysis is done, or gone, is dropped when the index is read.

An imported replay's analysis is a hash of its own (``replay-analysis:{<id>}``, on its own slot: an import's key
is not hash-tagged, and an import's keys are ``replay:<id>`` alone) that goes when the import goes: the claim writes
the import's time left as the hash's expiry, in the same transaction, so no analysis outlives the replay it is about.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

#: How many sets the index of analyses asked for and not done is spread over (fixed: an id's bucket must not move).
BUCKETS = 16


@dataclass(frozen=True, slots=True)
class AnalysisRecord:
    status: str
    done: int
    total: int
    version: int
    result: dict[str, Any] | None
    #: Who asked for it (a player id; ``""`` for a record written before it was kept), and when (ms).
    by: str = ""
    asked: int = 0


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
            data.get("by", ""),
            int(data.get("asked", 0) or 0),
        )

    def claim(self, game_id: str, version: int, now_ms: int, stale_ms: int, *, by: str = "", ttl: int | None = None) -> bool:
        """Mark the analysis queued, asked for ``by`` a player, unless one is done at ``version``, or queued or running
        and heard of within ``stale_ms`` (one the queue lost, with nothing to put it back, is queued again when asked
        for later); whether it was.  ``ttl``: seconds the analysis is kept (``None``: for good)."""
        key = self.key(game_id)
        with self.redis.pipeline(transaction=True) as pipe:  # said: a cluster client's default is no transaction
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
                    pipe.hset(
                        key,
                        mapping={
                            "status": "queued",
                            "done": 0,
                            "total": 0,
                            "version": version,
                            "at": now_ms,
                            "by": by,
                            "asked": now_ms,
                        },
                    )
                    if ttl is not None:
                        pipe.expire(key, max(1, ttl))
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def pending_key(self, bucket: int) -> str:
        return f"{self.prefix}analyses-pending:{{{self.kind}-{bucket}}}"

    def _bucket(self, game_id: str) -> str:
        return self.pending_key(zlib.crc32(game_id.encode()) % BUCKETS)

    def enter(self, game_id: str) -> None:
        """Index the analysis as asked for and not done, before its claim is written."""
        self.redis.sadd(self._bucket(game_id), game_id)

    def leave(self, game_id: str) -> None:
        """The analysis is done, failed or gone: out of the index, after its record says so."""
        self.redis.srem(self._bucket(game_id), game_id)

    def pending(self, count: int = 500) -> Iterator[str]:
        """Every id in the index (SSCAN: one entered or removed meanwhile may or may not be seen)."""
        for bucket in range(BUCKETS):
            for member in self.redis.sscan_iter(self.pending_key(bucket), count=count):
                yield _text(member)

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

    def done_among(self, game_ids: list[str], version: int) -> set[str]:
        """Which of these subjects have an analysis done at ``version`` (one pipeline; a key each, on its own slot):
        what an archive's filter on analysed games reads, without the results."""
        if not game_ids:
            return set()
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hmget(self.key(game_id), "status", "version")
            replies = pipe.execute()
        return {
            game_id
            for game_id, (status, made) in zip(game_ids, replies, strict=True)
            if status is not None and _text(status) == "done" and made is not None and int(_text(made)) == version
        }


#: HSET on a key that exists, or nothing.
_UPDATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
