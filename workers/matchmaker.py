"""The matchmaker: the one process at a time that seats waiting quick-match tickets at tables.

Every quarter second it passes over every pool that has tickets
(:meth:`MatchService.match_pass <service.application.matchmaking.MatchService.match_pass>`): tickets whose time is up
are expired, the tables that can sit down are recorded in the pool's stream (appended with the version it read, so
that a cancel or another matchmaker that came first wins and this one looks again), then each game is made.  A
matchmaker killed between the two leaves matches whose games are not there yet: the next holder's first pass makes
them under their recorded ids (a match stays pending in its pool until its game is noted made), as does the
ticket's next read.

Every ``red7 worker`` runs a matchmaker, as it runs a ticker, and one holds the role at a time, through a key of its
own with the ticker's short TTL (:mod:`workers.ticker`'s scripts), renewed while it passes.  Two at once (a holder
too slow to renew) would only lose appends to each other: the role saves work, the versions keep it right.  A
matchmaker that loses Redis keeps trying, with a pause, and never dies of it.

With several queue shards (:mod:`service.jobqueue.shards`) the role is held on the first shard that answers, asked in order:
quick match is no game's, and must go on while any shard does.  While the first is away a matchmaker holds the role
on the next; when it is back, a matchmaker still passing there may overlap one on the first for a second (the role's
TTL), which the versions keep right.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

import redis

from service.runtime import Runtime
from workers import metrics
from workers.ticker import HOLD_ROLE_SCRIPT, OUTAGE_PAUSE_MAX, RELEASE_ROLE_SCRIPT, ROLE_TTL

log = logging.getLogger("red7.matchmaker")

#: Seconds between two passes: a ticket's ``ai_fill_after`` is kept to within this (and a pass's length).
PASS_EVERY = 0.25
#: During a pass the role is renewed (and the pass given up if it was lost) when this long has gone by (s).
RENEW_AFTER = ROLE_TTL / 4


class Matchmaker:
    def __init__(self, runtime: Runtime, identity: str) -> None:
        self.runtime = runtime
        self.identity = identity
        # The queue's Redis, beside the ticker's role: each shard's, asked in order (see above).
        connections = [shard.connection for shard in runtime.shards]
        self.role_key = f"{runtime.settings.key_prefix}matchmaker"
        self._hold_roles = [connection.register_script(HOLD_ROLE_SCRIPT) for connection in connections]
        self._release_roles = [connection.register_script(RELEASE_ROLE_SCRIPT) for connection in connections]
        self._held_at = 0.0
        #: The shard whose role it asked for last.
        self._on = 0
        #: The pools its last pass found (their gauges are zeroed when it stops holding the role).
        self._gauged: list[str] = []

    def holds_role(self) -> bool:
        """Take or renew the role on the first shard that answers (the only one without shards)."""
        for index, hold in enumerate(self._hold_roles):
            try:
                held = bool(hold(keys=[self.role_key], args=[self.identity, int(ROLE_TTL * 1000)]))
            except (redis.ConnectionError, redis.TimeoutError):
                if index == len(self._hold_roles) - 1:
                    raise  # no shard answers
                continue
            self._on = index
            self._held_at = time.monotonic() if held else 0.0
            return held
        return False  # no shards at all (never: a runtime has one at least)

    def still_holds_role(self) -> bool:
        """Between two pools of a pass: renewed when due, else taken as still held."""
        return time.monotonic() - self._held_at < RENEW_AFTER or self.holds_role()

    def release(self) -> None:
        """Give the role up (a worker that stops lets another take it at once)."""
        self._release_roles[self._on](keys=[self.role_key], args=[self.identity])

    def tick(self) -> int:
        """One pass, if this matchmaker holds the role: how many games it made."""
        if not self.holds_role():
            if self._gauged:
                metrics.not_matching(self._gauged)
                self._gauged = []
            return 0
        began, waiting = time.perf_counter(), dict.fromkeys(self._gauged, 0)
        made = self.runtime.matches.match_pass(keep_going=self.still_holds_role, waiting=waiting)
        metrics.pass_took(time.perf_counter() - began, waiting)
        self._gauged = list(waiting)
        return made

    def run(self, stop: threading.Event, every: float = PASS_EVERY) -> None:
        """Pass until ``stop``, through any Redis outage."""
        pause = every
        while not stop.is_set():
            began = time.monotonic()
            try:
                self.tick()
                if pause > every:
                    log.info("matchmaker: Redis is reachable again")
                pause = every
            except redis.RedisError as error:
                if pause == every:
                    log.warning("matchmaker: Redis is unreachable (%s); trying again with backoff", error)
                pause = min(max(pause * 2, 0.5), OUTAGE_PAUSE_MAX)
            except Exception:
                log.exception("matchmaker: unexpected error; going on")
                pause = every
            stop.wait(max(0.0, pause - (time.monotonic() - began)) if pause == every else pause)
        with contextlib.suppress(redis.RedisError):  # else it expires by itself
            self.release()


def start_matchmaker(runtime: Runtime, identity: str, stop: threading.Event) -> threading.Thread:
    thread = threading.Thread(target=Matchmaker(runtime, identity).run, args=(stop,), name="red7-matchmaker", daemon=True)
    thread.start()
    return thread
