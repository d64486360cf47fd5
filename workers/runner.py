"""Running the jobs: a ``red7 worker`` process, or threads inside the embedded server.

``red7 worker`` is an RQ worker on the configured Redis with threads
beside it: more job runners (:class:`JobThread`, the webhook deliveries
among them), a pulse (:mod:`workers.liveness`: the jobs it runs are its own
only while it pulses) and a ticker (:mod:`workers.ticker`: deadlines,
retries and the sweep of stalled games, one worker at a time).  It outlives
Redis: when Redis goes away, mid-job or idle, it waits for it with backoff
and starts working again, where a plain RQ worker exits.

The embedded server has no second process and no Redis: it runs a worker
thread, a pulse and a ticker against its in-memory store.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, TypeVar

import redis
from rq import SimpleWorker
from rq.exceptions import StopRequested
from rq.job import Job
from rq.queue import Queue
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from service.runtime import Runtime
from workers import context
from workers.jobs import PermanentJobError
from workers.liveness import TracksRunningJob, start_pulse
from workers.ticker import Ticker, start_ticker

log = logging.getLogger("red7.worker")


def fail_fast_on_permanent_errors(job: Job, exc_type: type[BaseException], exc: BaseException, tb: TracebackType) -> bool:
    """RQ exception handler: a :class:`PermanentJobError` is not retried; it goes to the failed registry."""
    if issubclass(exc_type, PermanentJobError):
        job.retries_left = 0
    return True  # let RQ's default handling (retry or failed registry) go on


def _always(worker: TracksRunningJob) -> Callable[[], list[TracksRunningJob]]:
    return lambda: [worker]


#: Pauses between attempts to reach Redis again (seconds), the last one repeated.
RECONNECT_PAUSES = (0.25, 0.5, 1.0, 2.0)

W = TypeVar("W", bound=SimpleWorker)


class ProcessWorker(TracksRunningJob, SimpleWorker):
    """The worker of a ``red7 worker`` process: RQ's non-forking worker, which remembers that it was asked to stop.

    A job runs in this process: forking a work horse for each cost more than
    most jobs do (an AI turn decides in milliseconds).  Its timeout is kept by
    a timer (RQ's ``TimerDeathPenalty``) instead of a signal to the horse.
    RQ's own stop flag misses an idle worker's stop, hence ``stop_asked``.  An
    idle RQ worker that loses Redis retries on its own, backing off up to a
    minute; ours tries every second or two, so that it is back at work within
    seconds of Redis.
    """

    death_penalty_class = TimerDeathPenalty
    stop_asked = False
    max_connection_wait_time = RECONNECT_PAUSES[-1]

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_asked = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]  # rq leaves Worker.request_stop unannotated


def _worker(kind: type[W], runtime: Runtime, queues: list[Queue]) -> W:
    """A worker of ``kind`` on ``queues``, its jobs finding ``runtime`` (installed for the whole process).

    RQ's bookkeeping and its blocking wait for a job go through ``runtime.worker_redis``, whose connections outlast
    that wait (``RED7_WORKER_TTL`` less 15 s); the jobs use the runtime's clients.
    """
    context.install(runtime)
    handlers = [fail_fast_on_permanent_errors]
    return kind(queues, connection=runtime.worker_redis, serializer=JSONSerializer, exception_handlers=handlers,
                worker_ttl=runtime.settings.worker_ttl)


def process_worker(runtime: Runtime) -> ProcessWorker:
    """The worker of a ``red7 worker`` process (runs each job in this process)."""
    return _worker(ProcessWorker, runtime, [runtime.queue])


class ThreadWorker(TracksRunningJob, SimpleWorker):
    """A worker that can live in a thread: no signal handlers, timer-based job timeouts."""

    death_penalty_class = TimerDeathPenalty
    max_connection_wait_time = RECONNECT_PAUSES[-1]

    def _install_signal_handlers(self) -> None:
        pass

    def stop_after_job(self) -> None:
        """Leave the work loop before the next job (RQ's warm shutdown: the flag its signal handler sets while busy)."""
        self._stop_requested = True


def thread_worker(runtime: Runtime, queues: list[Queue] | None = None) -> ThreadWorker:
    """A worker for a thread of this process, on the games' and the webhooks' queues (games first) unless told."""
    return _worker(ThreadWorker, runtime, queues or [runtime.queue, runtime.webhook_queue])


def drain(runtime: Runtime, *, rounds: int = 10_000) -> int:
    """Run every queued job (and whatever the ticker finds due now) in this thread until none is left."""
    worker = thread_worker(runtime)
    ticker = Ticker(runtime, f"drain-{os.getpid()}-{threading.get_ident()}")
    ran = 0
    try:
        for _ in range(rounds):
            ticker.tick()
            waiting = runtime.queue.count + runtime.webhook_queue.count
            if waiting == 0:
                return ran
            worker.work(burst=True, logging_level="WARNING")
            ran += waiting
    finally:
        ticker.release()
    raise RuntimeError("the queue did not drain")


#: How long an embedded worker waits for a job before it looks at its stop event (whole seconds: RQ's unit).
EMBEDDED_IDLE = 2


def start_embedded(runtime: Runtime, *, idle: int = EMBEDDED_IDLE) -> threading.Event:
    """Run jobs in background threads of this process; set the returned event to stop them (within ``idle`` s).

    Each worker thread blocks on its queue (BLPOP: the in-memory store wakes it when a job is pushed), so a
    job starts at once and an idle server does next to nothing.  It used to start a burst of RQ's worker 20
    times a second, each registering and retiring the worker in a dozen commands: 7-14% of a core, idle.
    """
    stop = threading.Event()
    games = thread_worker(runtime, [runtime.queue])
    webhooks = thread_worker(runtime, [runtime.webhook_queue])

    def work(worker: ThreadWorker) -> None:
        while not stop.is_set():
            try:
                worker.work(logging_level="WARNING", max_idle_time=idle)  # returns after ``idle`` s without a job
            except Exception:  # a job's failure is RQ's business; never let the loop die
                log.exception("embedded worker loop")
                stop.wait(RECONNECT_PAUSES[0])

    for worker, name in ((games, "red7-worker"), (webhooks, "red7-webhooks")):
        threading.Thread(target=work, args=(worker,), name=name, daemon=True).start()
        start_pulse(runtime.raw_redis, runtime.settings.key_prefix, _always(worker), stop)
    start_ticker(runtime, f"embedded-{os.getpid()}", stop)
    return stop


def wait_for_redis(connection: redis.Redis, stop: threading.Event) -> None:
    """Return once Redis answers a PING (or ``stop`` is set), trying with backoff and a log line each time."""
    attempt = 0
    while not stop.is_set():
        try:
            connection.ping()
            log.info("red7 worker: Redis is reachable again")
            return
        except redis.RedisError as error:
            pause = RECONNECT_PAUSES[min(attempt, len(RECONNECT_PAUSES) - 1)]
            log.warning("red7 worker: Redis is unreachable (%s); trying again in %.1f s", error, pause)
            stop.wait(pause)
            attempt += 1


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` while no RQ worker is there to handle them."""
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


#: How long a stopping ``red7 worker`` waits for its job threads' running jobs to finish (seconds).
JOB_THREAD_STOP_WAIT = 30.0


class JobThread:
    """One more of a ``red7 worker``'s job runners: an RQ worker of its own on ``queue``, in a thread (the process's
    pulse names it).  The webhook deliveries have their own (``RED7_WEBHOOK_THREADS``), on their own queue: a slow
    receiver holds up no game, and, in its own line (``workers.dispatch.Dispatcher.line_of``), no other receiver.

    It outlives Redis outages as the main worker does: when RQ's worker gives up, another takes its place once
    Redis answers.  Idle, it waits on the queue as long as RQ's worker does (no return every few seconds, each
    costing a registration of a dozen commands): a stopping process leaves an idle thread where it is, and
    waits only for one that runs a job (:meth:`finish`).
    """

    def __init__(self, runtime: Runtime, stop: threading.Event, name: str, queue: Queue) -> None:
        self.runtime, self.stop, self.queue = runtime, stop, queue
        self.current: ThreadWorker | None = None
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        failures = 0
        while not self.stop.is_set():
            try:
                # Inside the ``try``: building RQ's worker talks to Redis (CLIENT SETNAME), and a thread that let
                # that error out died for good, on every Redis restart, with the webhook deliveries among them.
                self.current = worker = thread_worker(self.runtime, [self.queue])
                worker.work(logging_level="WARNING")
                failures = 0
                continue
            except redis.RedisError:
                pass  # the main worker says so in the log; this one waits, trying again with backoff
            except Exception:  # a job's failure is RQ's business; never let the loop die
                log.exception("red7 worker: job thread %s", self.thread.name)
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


def run_forever(runtime: Runtime, *, burst: bool = False, threads: int | None = None, **options: Any) -> None:
    """``red7 worker``: work until SIGTERM/SIGINT (running jobs finish first), through Redis outages.

    The games' jobs run in the main thread and in ``threads - 1`` more (``RED7_WORKER_THREADS``, 8): a job
    mostly waits for Redis, and one at a time left turns queued behind it while the process idled.  The pulse,
    the ticker and the webhook deliveries (``RED7_WEBHOOK_THREADS``, 4) run in threads beside them, on the same
    runtime (nothing forks, and its clients and caches are thread-safe, as the API's are).  ``burst`` runs one
    thread, until the queue is empty.
    """
    identity = f"{socket.gethostname()}-{os.getpid()}"
    stop = threading.Event()
    current: list[ProcessWorker] = []
    helpers: list[JobThread] = []  # the games' job threads beside the main one
    deliveries: list[JobThread] = []
    if not burst:
        start_ticker(runtime, identity, stop)
        deliveries = [JobThread(runtime, stop, f"red7-webhooks-{n}", runtime.webhook_queue)
                      for n in range(1, max(1, runtime.settings.webhook_threads) + 1)]
        count = max(1, threads if threads is not None else runtime.settings.worker_threads)
        helpers = [JobThread(runtime, stop, f"red7-jobs-{n}", runtime.queue) for n in range(1, count)]
    runners = [*helpers, *deliveries]
    start_pulse(runtime.raw_redis, runtime.settings.key_prefix, lambda: [*current[-1:], *(r.current for r in runners)], stop)
    log.info("red7 worker %s on queues %s and %s, %d job(s) and %d webhook delivery(ies) at once", identity,
             runtime.queue.name, runtime.webhook_queue.name, len(helpers) + 1, len(deliveries))
    try:
        while not stop.is_set():
            worker: ProcessWorker | None = None
            try:
                worker = process_worker(runtime)  # talks to Redis (CLIENT SETNAME): at start, Redis may not be there yet
                current[:] = [worker]
                worker.work(burst=burst, with_scheduler=False, **options)
            except redis.RedisError as error:
                log.warning("red7 worker: lost Redis (%s)", error)
            except StopRequested:  # a signal between two of RQ's workers: the one that got it asks to stop
                return
            if worker is not None and (worker.stop_asked or (burst and _redis_answers(runtime.raw_redis))):
                return
            if worker is not None:
                log.warning("red7 worker: RQ's worker stopped without being asked to (Redis went away?); starting another")
            current.clear()  # no worker to pulse for until another is built
            with _stop_on_signals(stop):
                wait_for_redis(runtime.raw_redis, stop)
    finally:
        stop.set()
        deadline = time.monotonic() + JOB_THREAD_STOP_WAIT
        for helper in helpers:
            helper.finish(deadline)


def _redis_answers(connection: redis.Redis) -> bool:
    try:
        return bool(connection.ping())
    except redis.RedisError:
        return False
