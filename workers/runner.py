"""Running the jobs: a ``red7 worker`` process, or threads inside the embedded server — one supervisor for both.

A :class:`Supervisor` runs job runners (:class:`JobRunner`: an RQ worker in a
thread, on the games' queue or the webhook deliveries'), a pulse
(:mod:`service.jobqueue.liveness`: the jobs they run are theirs only while it pulses),
a ticker (:mod:`workers.ticker`: deadlines, retries and the sweep of
stalled games, one process at a time) and a matchmaker
(:mod:`workers.matchmaker`: quick match's tables, one process at a time).  Every runner outlives Redis: when
Redis goes away, mid-job or idle, it waits with backoff and works again once
Redis answers, where a plain RQ worker exits.

With several queue shards (:mod:`service.jobqueue.shards`) a supervisor serves every shard: the runners, the pulse and the
ticker are started once per shard, each on that shard's Redis alone, so a shard that goes away stalls only its own
threads (they back off and reconnect as after a Redis restart) while the other shards' go on.  The thread counts
(``RED7_WORKER_THREADS`` and the others) are per shard.

``red7 worker`` is a supervisor in the main thread, which owns SIGTERM and
SIGINT: the first stops the runners taking jobs and waits for the jobs they
run; a second does not wait.  The embedded server runs one runner a queue
against its in-memory store, each returning every ``idle`` seconds to see
whether it should stop.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType

import redis

from service.common.heap import settle_heap
from service.jobqueue.liveness import start_pulse
from service.jobqueue.queues import JobQueue
from service.jobqueue.shards import QueueShard
from service.jobqueue.worker import JobWorker, new_worker, work
from service.runtime import Runtime
from workers import context
from workers.analysts import AnalysisRunner, analyse_waiting
from workers.jobs import JOBS
from workers.matchmaker import start_matchmaker
from workers.ticker import Ticker, start_ticker

log = logging.getLogger("red7.worker")

#: Pauses between attempts to reach Redis again (seconds), the last one repeated.
RECONNECT_PAUSES = (0.25, 0.5, 1.0, 2.0)

#: How long a stopping ``red7 worker`` waits for its runners' running jobs to finish (seconds).
JOB_STOP_WAIT = 30.0

#: How long an embedded runner waits for a job before it looks at its stop event (whole seconds: RQ's unit).
EMBEDDED_IDLE = 2


def thread_worker(runtime: Runtime, queues: list[JobQueue] | None = None, shard: QueueShard | None = None) -> JobWorker:
    """A worker for this process on ``queues`` of ``shard`` (default: the first; every queue of it, games first,
    unless told), its jobs finding ``runtime`` (installed for the whole process; a runner's thread is bound to it too,
    :func:`workers.context.bound`, so that another runtime installed meanwhile is not the one its jobs find).

    RQ's bookkeeping and its blocking wait for a job go through the shard's worker connection (``runtime.worker_redis``
    for the first), whose connections outlast that wait (``RED7_WORKER_TTL`` less 15 s); the jobs use the runtime's
    clients.
    """
    context.install(runtime)
    shard = shard or runtime.shards[0]
    return new_worker(queues or shard.queues, shard.worker_connection, runtime.settings.worker_ttl, JOBS)


def _work_for(runtime: Runtime, worker: JobWorker, *, burst: bool = False, idle: int | None = None) -> None:
    """:func:`service.jobqueue.queues.work` with this thread bound to ``runtime``: its jobs find it, whatever another runtime in
    the process (another embedded server's runners, each rebuilt every few idle seconds) installed meanwhile."""
    with context.bound(runtime):
        work(worker, burst=burst, idle=idle)


class JobRunner:
    """One job runner: an RQ worker on ``queues`` in a thread of its own, built again whenever RQ's gives up.

    Building RQ's worker talks to Redis (``CLIENT SETNAME``), so it is built inside the loop's ``try``: a runner that
    let that error out died for good on every Redis restart.  Idle, it waits on its queue as long as RQ's worker
    does (or ``idle`` seconds, to look at ``stop``); a stopping process leaves an idle runner where it is and waits
    only for one that runs a job (:meth:`finish`).
    """

    def __init__(
        self,
        runtime: Runtime,
        stop: threading.Event,
        name: str,
        queues: list[JobQueue],
        *,
        idle: int | None = None,
        shard: QueueShard | None = None,
    ) -> None:
        self.runtime, self.stop, self.queues, self.idle = runtime, stop, queues, idle
        self.shard = shard or runtime.shards[0]
        self.current: JobWorker | None = None
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        failures = 0
        while not self.stop.is_set():
            try:
                self.current = worker = thread_worker(self.runtime, self.queues, self.shard)
                _work_for(self.runtime, worker, idle=self.idle)  # until idle that long, asked to stop, or Redis is lost
                failures = 0
                continue
            except redis.RedisError as error:
                log.debug("job runner %s: Redis is unreachable (%s)", self.thread.name, error)  # the ticker says so
            except Exception:  # a job's failure is RQ's business; never let the loop die
                log.exception("job runner %s", self.thread.name)
            self.current = None  # no worker to pulse for until another is built
            self.stop.wait(RECONNECT_PAUSES[min(failures, len(RECONNECT_PAUSES) - 1)])
            failures += 1

    def finish(self, deadline: float) -> None:
        """Stop taking jobs, and wait (until ``deadline``, monotonic) for the one it runs, if any."""
        worker = self.current
        if worker is not None:
            worker.stop_after_job()
            if worker.running_job_id is not None:
                self.thread.join(max(0.0, deadline - time.monotonic()))


def _running(runners: list[JobRunner]) -> Callable[[], list[JobWorker | None]]:
    """What a pulse speaks for: the workers these runners run now (one is built again after Redis comes back)."""
    return lambda: [runner.current for runner in runners]


class Supervisor:
    """A process's job runners, with the pulse that speaks for them, and the ticker and the matchmaker beside them."""

    def __init__(self, runtime: Runtime, identity: str, stop: threading.Event) -> None:
        self.runtime, self.identity, self.stop = runtime, identity, stop
        self.runners: list[JobRunner] = []
        self.analysts: list[AnalysisRunner] = []

    def start(
        self,
        games: list[str],
        deliveries: list[str],
        pushes: Sequence[str] = (),
        analyses: Sequence[str] = (),
        *,
        idle: int | None = None,
    ) -> None:
        """Runners named ``games`` on the games' queue, ``deliveries`` on the webhooks' and ``pushes`` on the web
        pushes', then the pulse and the ticker: each once per queue shard (a shard's runners named with ``@<shard>``
        after the first's); then the matchmaker, and the analysts named ``analyses`` (each serving every shard in turn,
        one analysis at a time: workers/analysts.py)."""
        runtime = self.runtime
        for shard in runtime.shards:
            lines = ((games, shard.queue), (deliveries, shard.webhook_queue), (list(pushes), shard.push_queue))
            suffix = f"@{shard.index}" if shard.index else ""
            mine = [
                JobRunner(runtime, self.stop, name + suffix, [queue], idle=idle, shard=shard)
                for names, queue in lines
                for name in names
            ]
            self.runners += mine
            start_pulse(shard.connection, runtime.settings.key_prefix, _running(mine), self.stop)
            start_ticker(runtime, self.identity, self.stop, shard)
        start_matchmaker(runtime, self.identity, self.stop)
        self.start_analysts(analyses)

    def start_analysts(self, names: Sequence[str]) -> None:
        """The analysts named ``names``, each serving every shard in turn, one analysis at a time (workers/analysts.py)."""
        self.analysts += [AnalysisRunner(self.runtime, self.stop, f"{self.identity}-{name}") for name in names]

    def finish(self, within: float = JOB_STOP_WAIT) -> None:
        """Stop every runner taking jobs and wait (up to ``within`` seconds in all) for the jobs they run."""
        self.stop.set()
        deadline = time.monotonic() + within
        for runner in self.runners:
            runner.finish(deadline)
        for analyst in self.analysts:  # each gives its analysis back to the queue, for another worker's analysts
            analyst.finish(deadline)


def start_embedded(runtime: Runtime, *, idle: int = EMBEDDED_IDLE) -> threading.Event:
    """Run jobs in background threads of this process; set the returned event to stop them (within ``idle`` s).

    Each runner blocks on its queue (BLPOP: the in-memory store wakes it when a job is pushed), so a job starts at
    once and an idle server does next to nothing.
    """
    stop = threading.Event()
    Supervisor(runtime, f"embedded-{os.getpid()}", stop).start(
        ["red7-worker"], ["red7-webhooks"], ["red7-push"], ["red7-analysis"], idle=idle
    )
    return stop


def run_forever(runtime: Runtime, *, burst: bool = False, threads: int | None = None, kind: str = "all") -> None:
    """``red7 worker``: work until SIGTERM/SIGINT (running jobs finish first), through Redis outages.

    The games' jobs run in ``threads`` runners (``RED7_WORKER_THREADS``, 8): a job mostly waits for Redis, and one
    at a time left turns queued behind it while the process idled.  The webhook deliveries run in
    ``RED7_WEBHOOK_THREADS`` (4) more, on their own queue: a slow receiver holds up no game.  Nothing forks for
    them; the runtime's clients and caches are thread-safe, as the API's are.  The decision analyses run in
    ``RED7_ANALYSIS_THREADS`` (1) analysts, each computing in a child process at the lowest CPU priority
    (workers/analyst.py), so that they take only the CPU the games' jobs leave.  ``kind``: ``all`` of it, the
    ``games`` alone (their jobs, pulses, tickers and the matchmaker), or the ``analyses`` alone (at least one analyst:
    a worker of their own, on CPUs of their own).  ``burst`` works in this thread until the queues are empty, then
    returns.
    """
    if burst:
        _burst(runtime)
        return
    settle_heap()
    identity = f"{socket.gethostname()}-{os.getpid()}"
    stop = threading.Event()
    supervisor = Supervisor(runtime, identity, stop)
    count = max(1, threads if threads is not None else runtime.settings.worker_threads)
    deliveries = max(1, runtime.settings.webhook_threads)
    pushes = max(1, runtime.settings.push_threads)
    analyses = runtime.settings.analysis_threads  # 0: this worker analyses nothing (others do)
    wanted = {"all": analyses, "games": 0, "analyses": max(1, analyses)}[kind]
    analysts = [f"red7-analysis-{n}" for n in range(1, wanted + 1)]
    with _stop_on_signals(stop):
        if kind == "analyses":
            supervisor.start_analysts(analysts)
            log.info("red7 worker %s: decision analyses only, %d at once", identity, len(analysts))
        else:
            supervisor.start(
                [f"red7-jobs-{n}" for n in range(1, count + 1)],
                [f"red7-webhooks-{n}" for n in range(1, deliveries + 1)],
                [f"red7-push-{n}" for n in range(1, pushes + 1)],
                analysts,
            )
            log.info(
                "red7 worker %s on queues %s, %s and %s of %d queue shard(s), %d job(s), %d webhook delivery(ies) and "
                "%d push(es) at once on each; %d analysis(es) at once in all",
                identity,
                runtime.queue.name,
                runtime.webhook_queue.name,
                runtime.push_queue.name,
                len(runtime.shards),
                count,
                deliveries,
                pushes,
                len(analysts),
            )
        while not stop.wait(1.0):  # a timed wait: the signal handlers run between two
            pass
        log.info("red7 worker %s: stopping; waiting for the jobs it runs", identity)
        supervisor.finish()


def _burst(runtime: Runtime) -> None:
    """Work in this thread until every shard's queues are empty (the analyses too, computed here), waiting for Redis if
    it is not there yet."""
    attempt = 0
    while True:
        try:
            for shard in runtime.shards:
                _work_for(runtime, thread_worker(runtime, shard=shard), burst=True)
            with context.bound(runtime):
                analyse_waiting(runtime, f"burst-{os.getpid()}")
            return
        except redis.RedisError as error:
            pause = RECONNECT_PAUSES[min(attempt, len(RECONNECT_PAUSES) - 1)]
            log.warning("red7 worker: Redis is unreachable (%s); trying again in %.1f s", error, pause)
            time.sleep(pause)
            attempt += 1


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """The first SIGTERM or SIGINT sets ``stop`` (the running jobs finish); a second exits at once."""

    def on_signal(number: int, frame: FrameType | None) -> None:
        if stop.is_set():
            log.warning("red7 worker: a second signal; leaving the running jobs to RQ's and the agenda's recovery")
            os._exit(128 + number)
        stop.set()

    previous = {number: signal.signal(number, on_signal) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def drain(runtime: Runtime, *, rounds: int = 10_000) -> int:
    """Run every queued job (and whatever the tickers find due now) and every waiting analysis in this thread until none
    is left, on every shard."""
    workers = [thread_worker(runtime, shard=shard) for shard in runtime.shards]
    tickers = [Ticker(runtime, f"drain-{os.getpid()}-{threading.get_ident()}", shard=shard) for shard in runtime.shards]
    ran = 0
    try:
        for _ in range(rounds):
            for ticker in tickers:
                ticker.tick()
            waiting = sum(queue.count for shard in runtime.shards for queue in shard.queues)
            if waiting == 0:
                analysed = analyse_waiting(runtime, f"drain-{os.getpid()}-{threading.get_ident()}")
                if analysed == 0:
                    return ran
                ran += analysed
                continue
            for worker in workers:
                _work_for(runtime, worker, burst=True)
            ran += waiting
    finally:
        for ticker in tickers:
            ticker.release()
    raise RuntimeError("the queue did not drain")
