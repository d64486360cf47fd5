"""Running the jobs: a ``red7 worker`` process, or threads inside the embedded server.

``red7 worker`` is an ordinary RQ worker on the configured Redis; the same
can be had with plain RQ::

    rq worker red7 --url $REDIS_URL --serializer rq.serializers.JSONSerializer \\
       --with-scheduler --exception-handler workers.runner.fail_fast_on_permanent_errors

The embedded server has no second process and no Redis: it runs a worker
thread and a scheduler thread against its in-memory store.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType
from typing import Any

from rq import SimpleWorker, Worker
from rq.job import Job
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from service.runtime import Runtime
from workers import context
from workers.jobs import PermanentJobError

log = logging.getLogger("red7.worker")


def fail_fast_on_permanent_errors(job: Job, exc_type: type[BaseException], exc: BaseException, tb: TracebackType) -> bool:
    """RQ exception handler: a :class:`PermanentJobError` is not retried; it goes to the failed registry."""
    if issubclass(exc_type, PermanentJobError):
        job.retries_left = 0
    return True  # let RQ's default handling (retry or failed registry) go on


def process_worker(runtime: Runtime, *, burst: bool = False) -> Worker:
    """The worker of a ``red7 worker`` process (forks a work horse per job)."""
    context.install(runtime)
    worker = Worker([runtime.queue], connection=runtime.raw_redis, serializer=JSONSerializer)
    worker.push_exc_handler(fail_fast_on_permanent_errors)
    return worker


class ThreadWorker(SimpleWorker):
    """A worker that can live in a thread: no signal handlers, timer-based job timeouts."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        pass


def thread_worker(runtime: Runtime) -> ThreadWorker:
    context.install(runtime)
    worker = ThreadWorker([runtime.queue], connection=runtime.raw_redis, serializer=JSONSerializer)
    worker.push_exc_handler(fail_fast_on_permanent_errors)
    return worker


def enqueue_scheduled(runtime: Runtime) -> None:
    """Move scheduled jobs whose time has come onto the queue (what RQ's scheduler process does)."""
    scheduler = RQScheduler([runtime.queue], connection=runtime.raw_redis, serializer=JSONSerializer)
    scheduler.acquire_locks()
    try:
        scheduler.enqueue_scheduled_jobs()
    finally:
        scheduler.release_locks()


def drain(runtime: Runtime, *, rounds: int = 10_000) -> int:
    """Run every queued job (and the scheduled ones already due) in this thread until none is left."""
    worker = thread_worker(runtime)
    ran = 0
    for _ in range(rounds):
        enqueue_scheduled(runtime)
        if runtime.queue.count == 0:
            return ran
        before = runtime.queue.count
        worker.work(burst=True, logging_level="WARNING")
        ran += before
    raise RuntimeError("the queue did not drain")


def start_embedded(runtime: Runtime, *, poll: float = 0.25) -> threading.Event:
    """Run jobs in background threads of this process; set the returned event to stop them."""
    stop = threading.Event()

    def work() -> None:
        worker = thread_worker(runtime)
        while not stop.is_set():
            try:
                worker.work(burst=True, logging_level="WARNING")
            except Exception:  # a job's failure is RQ's business; never let the loop die
                log.exception("embedded worker loop")
            stop.wait(poll / 5)

    def schedule() -> None:
        while not stop.is_set():
            try:
                enqueue_scheduled(runtime)
            except Exception:
                log.exception("embedded scheduler loop")
            stop.wait(poll)

    for target, name in ((work, "red7-worker"), (schedule, "red7-scheduler")):
        threading.Thread(target=target, name=name, daemon=True).start()
    return stop


def run_forever(runtime: Runtime, **options: Any) -> None:
    """``red7 worker``: work until SIGTERM/SIGINT (RQ finishes the current job first)."""
    worker = process_worker(runtime)
    log.info("red7 worker on queue %s", runtime.queue.name)
    worker.work(with_scheduler=True, **options)
