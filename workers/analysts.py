"""The analysts: threads of a ``red7 worker`` (or of the embedded server) that take analyses from the fair queue and
have them computed in a process of their own at the lowest CPU priority.

Each analyst runs one analysis at a time, so a worker runs at most ``RED7_ANALYSIS_THREADS`` at once (1 by default),
whatever the number of queue shards: it takes from each shard's queue in turn (:mod:`service.jobqueue.analysis_queue`: players
in turn, a share each, leases).  The thread itself only reads the replay, hands it to its child
(:class:`workers.analyst.Analyst`), writes the progress and the result, and renews its lease every
:data:`~service.jobqueue.analysis_queue.RENEW_EVERY` seconds: it waits on a pipe, and holds the process's GIL for
milliseconds an analysis.  A stopping worker gives its analysis back to the queue at once (another worker's analyst
takes it); a killed one's lease lapses and the next take puts the analysis back.

The tests' :func:`analyse_waiting` computes the waiting analyses in the calling thread instead (``drain``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from service.application.analysis import AnalysisInterrupted, AnalysisService
from service.jobqueue.analysis_queue import RENEW_EVERY, AnalysisQueue, Taken, parse
from service.runtime import Runtime
from workers import context
from workers.analyst import Analyst, Interrupted

log = logging.getLogger("red7.analysts")

#: How long an idle analyst waits before it asks the queues again (seconds): an analysis asked for starts within it,
#: and an idle analyst costs each queue Redis one script a second.
IDLE_WAIT = 1.0

#: Pauses between attempts to reach a queue's Redis again (seconds), the last one repeated.
RECONNECT_PAUSES = (0.25, 0.5, 1.0, 2.0)


def _ms() -> int:
    return int(time.time() * 1000)


def service_of(runtime: Runtime, kind: str) -> AnalysisService:
    """Who analyses a subject of this kind: the games' analyses, or the imported replays'."""
    return runtime.analyses if kind == "game" else runtime.imported_analyses


class AnalysisRunner:
    """One analyst: a thread that takes an analysis from the queue shards in turn and has its child compute it."""

    def __init__(self, runtime: Runtime, stop: threading.Event, name: str) -> None:
        self.runtime, self.stop, self.name = runtime, stop, name
        spare_only = runtime.settings.analysis_on_spare_cpu
        self.analyst = Analyst(name, spare=runtime.settings.analysis_spare_cpus, paced=spare_only, lowest=spare_only)
        self.current: Taken | None = None
        self._next_shard = 0
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        failures = 0
        with context.bound(self.runtime):
            while not self.stop.is_set():
                try:
                    if not self.take_one():
                        self.stop.wait(IDLE_WAIT)
                    failures = 0
                    continue
                except redis.RedisError as error:
                    log.debug("analyst %s: a queue's Redis is unreachable (%s)", self.name, error)
                except Exception:  # never let the loop die
                    log.exception("analyst %s", self.name)
                self.stop.wait(RECONNECT_PAUSES[min(failures, len(RECONNECT_PAUSES) - 1)])
                failures += 1
        self.analyst.close()

    def take_one(self) -> bool:
        """Take an analysis from the first shard (in turn) that has one that may start, and run it; whether any did.

        A shard whose Redis is away is passed over (its analyses wait for it, the others' do not); when every one is,
        the error goes up, for the loop's pause.
        """
        shards = self.runtime.shards
        away: list[redis.RedisError] = []
        for offset in range(len(shards)):
            shard = shards[(self._next_shard + offset) % len(shards)]
            try:
                taken = shard.analyses.take(self.name, _ms())
            except redis.RedisError as error:
                away.append(error)
                continue
            if taken is None:
                continue
            self._next_shard = (shard.index + 1) % len(shards)
            if taken.subject:  # empty: a twin of one running now, dropped
                self._analyse(shard.analyses, taken)
            return True
        if away and len(away) == len(shards):
            raise away[0]
        if away:
            log.debug("analyst %s: %d queue shard(s) away (%s)", self.name, len(away), away[0])
        return False

    def _analyse(self, queue: AnalysisQueue, taken: Taken) -> None:
        kind, subject_id = parse(taken.subject)
        self.current = taken
        renewed = time.monotonic()

        def keep_going() -> bool:
            nonlocal renewed
            if self.stop.is_set():
                return False
            if time.monotonic() - renewed >= RENEW_EVERY:
                renewed = time.monotonic()
                try:
                    if not queue.renew(taken, self.name, _ms()):
                        log.warning("analyst %s: %s was taken over by another analyst; stopping it", self.name, taken.subject)
                        return False
                except redis.RedisError as error:  # the queue's Redis is away: the analysis goes on, its lease after
                    log.debug("analyst %s: cannot renew the lease of %s (%s)", self.name, taken.subject, error)
            return True

        def compute(document: dict[str, Any], progress: Callable[[int, int], None]) -> dict[str, Any]:
            try:
                return self.analyst.analyse(document, progress, keep_going=keep_going)
            except Interrupted as stopped:
                raise AnalysisInterrupted(str(stopped)) from None

        started = time.monotonic()
        try:
            said = service_of(self.runtime, kind).run(subject_id, compute)
        except AnalysisInterrupted:
            if self.stop.is_set():
                queue.give_back(taken, self.name)  # another worker's analyst takes it now
            return
        except redis.RedisError as error:  # a Redis went away mid-analysis: not the analysis' fault, analysed again
            log.warning("analyst %s: %s given back, Redis failed under it (%s)", self.name, taken.subject, error)
            queue.give_back(taken, self.name)  # if the queue's Redis is the one away, its lease lapses instead
            return
        except Exception:
            log.exception("analyst %s: the analysis of %s failed", self.name, taken.subject)
        else:
            log.info("analyst %s: %s for %s in %.1f s", self.name, said, taken.subject, time.monotonic() - started)
        finally:
            self.current = None
        queue.finish(taken, self.name)

    def finish(self, deadline: float) -> None:
        """Wait (until ``deadline``, monotonic) for the thread to give its analysis back and end its child."""
        self.thread.join(max(0.0, deadline - time.monotonic()))


def analyse_waiting(runtime: Runtime, analyst: str = "drain") -> int:
    """Compute every analysis waiting on every shard in this thread, taking them as the analysts would (shares and
    turns); how many ran.  The tests' ``drain``: a worker's analysts compute them in their children."""
    ran = 0
    for shard in runtime.shards:
        while (taken := shard.analyses.take(analyst, _ms())) is not None:
            if taken.subject:
                kind, subject_id = parse(taken.subject)
                try:
                    service_of(runtime, kind).run(subject_id)
                except Exception:
                    log.exception("the analysis of %s failed", taken.subject)
                shard.analyses.finish(taken, analyst)
            ran += 1
    return ran
