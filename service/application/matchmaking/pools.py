"""A quick-match pool read and written: folded from its stream through caches and snapshots, and appended to by
one path, with the version and head it was decided on.

Every write to a pool is load, decide, append with the version (and head) that was read: two writers never both win,
the loser decides again on the pool as it is now.  So a matchmaker and a cancel, or two matchmakers, cannot seat a
ticket twice or seat a cancelled one.  Both a player's tickets (:mod:`service.application.matchmaking.tickets`) and the
matchmaker (:mod:`service.application.matchmaking.matchmaker`) write through :class:`PoolWriter`.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable

import redis

from service.common.errors import NotConfirmed, Refused
from service.domain.matchmaking import Pool, PoolEvent, event_from_json, event_to_json, fold
from service.storage.events import NotReplicated, VersionConflict
from service.storage.matchmaking import PoolStreams

log = logging.getLogger("red7.matching")

#: A pool's snapshot is written every this many events (a cold reader folds at most that many).
SNAPSHOT_EVERY = 256


class PoolLoader:
    """Pools folded from their streams, through this process's newest fold of each and the stored snapshots.

    As with games (:class:`~service.application.loading.GameLoader`), a fold is used only while the stream still
    holds its head: one of a history Redis lost is dropped and the pool folded again from what Redis has.
    """

    def __init__(self, streams: PoolStreams, *, snapshot_every: int = SNAPSHOT_EVERY) -> None:
        self.streams = streams
        self.snapshot_every = snapshot_every
        self._pools: dict[str, Pool] = {}
        self._snapshot_at: dict[str, int] = {}
        self._lock = threading.Lock()

    def load(self, kind: str) -> Pool:
        """The pool now (shared with this process's cache: never change it; :meth:`Pool.copy` it)."""
        with self._lock:
            start = cached = self._pools.get(kind)
        if start is None and (snapshot := self.streams.snapshot(kind)) is not None:
            start = Pool.from_dict(json.loads(snapshot[1]))
        tail = []
        if start is not None and start.version:
            stored = list(self.streams.read_all(kind, after=start.version - 1))
            if stored and stored[0].number == start.version and stored[0].payload == start.head:
                tail = stored[1:]
            else:
                log.warning(
                    "pool %s: Redis no longer holds the history of the fold at version %s; folding it again", kind, start.version
                )
                self.forget(kind)
                self.streams.drop_snapshot(kind)
                start = cached = None
        if start is None or not start.version:
            start, tail = Pool(kind), list(self.streams.read_all(kind))
        if cached is not None and not tail:
            return cached
        pool = start.copy() if start is cached else start
        for event in tail:
            fold(pool, event_from_json(event.payload))
            pool.version, pool.head = event.number, event.payload
        self.remember(pool)
        return pool

    def remember(self, pool: Pool) -> None:
        with self._lock:
            known = self._pools.get(pool.kind)
            if known is None or known.version < pool.version:
                self._pools[pool.kind] = pool
        if pool.version - self._snapshot_at.get(pool.kind, 0) >= self.snapshot_every:
            try:
                self.streams.save_snapshot(pool.kind, pool.version, json.dumps(pool.to_dict(), separators=(",", ":")))
            except redis.RedisError as error:  # only a shortcut for cold readers
                log.warning("pool %s: no snapshot at version %s (%s); the next one will be", pool.kind, pool.version, error)
                return
            self._snapshot_at[pool.kind] = pool.version

    def forget(self, kind: str) -> None:
        with self._lock:
            self._pools.pop(kind, None)
            self._snapshot_at.pop(kind, None)


class PoolWriter:
    """The one write path to a pool (see the module), one write to a pool at a time in this process."""

    def __init__(self, streams: PoolStreams, pools: PoolLoader) -> None:
        self.streams = streams
        self.pools = pools
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def write(
        self, kind: str, decide_on: Callable[[Pool], list[PoolEvent]], attempts: int, *, confirmed: bool = True
    ) -> list[PoolEvent]:
        """Load the pool, decide, append with the version and head decided on; what was appended.

        Decided again when another write came first (after a short random pause), up to ``attempts`` times (then
        :class:`ConflictingPool`).  One write to a pool at a time in this process: its requests queue here rather
        than all lose to each other in Redis.  An append fewer replicas confirmed than asked for
        (``RED7_WAIT_REPLICAS``) is stored: ``confirmed`` writers (a player's) are told so
        (:class:`~service.common.errors.NotConfirmed`, a retry with the Idempotency-Key is answered); the matchmaker goes on.
        """
        with self._lock_of(kind):
            for attempt in range(attempts):
                pool = self.pools.load(kind)
                events = decide_on(pool)
                if not events:
                    return []
                payloads = [event_to_json(event) for event in events]
                short = None
                try:
                    self.streams.append(kind, pool.version, payloads, expected_head=pool.head)
                except VersionConflict as conflict:
                    if conflict.diverged:
                        self.pools.forget(kind)
                    time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
                    continue
                except NotReplicated as unconfirmed:
                    short = unconfirmed
                after = pool.copy()
                for event, payload in zip(events, payloads, strict=True):
                    fold(after, event)
                    after.version += 1
                    after.head = payload
                self.pools.remember(after)
                if short is not None:
                    log.warning("pool %s: an append confirmed by %s of %s replicas", kind, short.replicas, short.wanted)
                    if confirmed:
                        raise NotConfirmed(short.version, short.replicas, short.wanted)
                return events
        raise ConflictingPool(kind)

    def _lock_of(self, kind: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(kind, threading.Lock())


class ConflictingPool(Refused):
    """A pool that kept changing between the reads and the appends of a writer (a 409 the client may retry)."""

    def __init__(self, kind: str) -> None:
        super().__init__(
            "match_pool_busy",
            f"Many players are opening tickets for this kind of game ({kind}) at once; try again in a moment.",
            pool=kind,
        )
