"""A clock that separate processes share for tests: the wall clock moved on by an offset kept in the stores' Redis.

The service reads the time from one place, the runtime's clock (``service.runtime.build_runtime``): every service,
dispatcher and the ticker are given it.  A test of one process moves a clock object of its own; a test of the real
processes (``red7 worker``s, ``red7 serve``) cannot reach into them, so with ``RED7_CLOCK_OFFSET_KEY`` set each of
them reads its time as the wall clock plus the milliseconds held at that key (none: 0), and the test moves every
process's time at once with one ``INCRBY``.  Correspondence days then pass in seconds: a deadline, an entries' close,
a turn's timeout come when the shared time reaches them, in whichever process looks.

Off unless the setting names a key (production never sets it).  The key is read at every reading of the clock, one
``GET`` a reading, so that a move is seen by the next reading of every process: a test deployment's cost, not a
production one's.  The offset is only ever moved forward by the tests, so a process's time never goes back.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import redis


class OffsetClock:
    """The wall clock plus the offset in milliseconds at ``key`` of the stores' Redis (a test's, shared)."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key

    def offset_ms(self) -> int:
        raw = self.client.get(self.key)
        return int(raw) if raw else 0

    def __call__(self) -> datetime:
        return datetime.now(UTC) + timedelta(milliseconds=self.offset_ms())

    def advance(self, **delta: float) -> None:
        """Move every sharing process's time on by ``delta`` (``timedelta``'s arguments): what a test calls."""
        self.client.incrby(self.key, int(timedelta(**delta) / timedelta(milliseconds=1)))
