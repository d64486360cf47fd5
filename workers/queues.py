"""RQ behind one door: the queues, the jobs on them, and RQ's workers — the only module that knows RQ's internals.

RQ stays the service's job system; this module is everything the service
asks of it, so that the rest names jobs and states in its own words and an
RQ release that moves its internals changes one file:

- jobs are named, not imported: a queued job keeps only its name, and a
  worker finds the code in the registry it is given (``workers.jobs.JOBS``),
  not by an import string the queue would keep for the job's life;
- :class:`JobRecord` is a job as the dispatcher reads it (its state, when it
  was queued, started or ended, which worker runs it);
- :func:`enqueue`, :func:`find`, :func:`waits_in`, :func:`scheduled_at` and
  :func:`queue_due_retries` are the queue operations the dispatcher and the
  ticker use;
- :class:`JobWorker` is RQ's non-forking worker as our runners run it, in a
  thread, remembering the job it runs for the pulse (:mod:`workers.liveness`).

``workers/runner.py`` is the only other module that imports RQ (it runs the workers).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import redis
from rq import Queue, RateLimit, Retry, SimpleWorker
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

log = logging.getLogger("red7.worker")

#: The type of a queue, for the composition root (which must not import RQ itself).
JobQueue = Queue

#: Transient failures (a Redis hiccup, a timeout) are retried with these pauses (seconds).
RETRY_PAUSES = (1, 3, 10, 30)

#: How long a job that failed for good is kept in RQ's failed registry (seconds), for whoever looks into it.
FAILURE_TTL = 7 * 24 * 3600


# --- jobs by name ----------------------------------------------------------------------


class PermanentJobError(Exception):
    """A job that cannot succeed by being retried: it goes to the failed registry at once."""


class NamedJob(Job):
    """An RQ job whose function is a name in its worker's registry; an import path, as jobs queued by earlier
    releases keep, still imports."""

    registry: Mapping[str, Callable[..., str]] = {}

    @property
    def func(self) -> Callable[..., Any]:
        name = self.func_name
        if name is not None and name in self.registry:
            return self.registry[name]
        if name is not None and "." not in name:
            raise PermanentJobError(f"no job is registered as {name!r} in this process")
        return super().func  # type: ignore[no-any-return]  # rq leaves Job.func unannotated


def new_queue(name: str, connection: redis.Redis) -> Queue:
    """A queue of JSON-serialised jobs (readable by any client, and no pickles from Redis), named by the registry."""
    return Queue(name, connection=connection, serializer=JSONSerializer, job_class=NamedJob)


# --- the jobs on a queue ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JobRecord:
    """A job as the dispatcher reads it: RQ's record, in our words."""

    id: str
    status: str  # queued | started | scheduled | failed | finished | deferred | rate_limited | stopped | canceled
    enqueued_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None
    worker_name: str | None
    _job: Job

    def delete(self) -> None:
        """Forget the job, its place in its queue and its registries (RQ would otherwise clean up after it later)."""
        self._job.delete(remove_from_queue=True)


def _utc(moment: datetime | None) -> datetime | None:
    return moment.replace(tzinfo=UTC) if moment is not None else None


def find(queue: Queue, job_id: str) -> JobRecord | None:
    """The job with this id, if RQ still keeps it."""
    # Job.fetch, not Queue.fetch_job: the latter LREMs ids whose hash it cannot find yet,
    # which drops a job that another process is enqueueing at that very moment.
    try:
        found = NamedJob.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
    except NoSuchJobError:
        return None
    status = found.get_status(refresh=False)
    return JobRecord(
        found.id,
        str(status.value if isinstance(status, JobStatus) else status),
        _utc(found.enqueued_at),
        _utc(found.started_at),
        _utc(found.ended_at),
        found.worker_name,
        found,
    )


def waits_in(queue: Queue, record: JobRecord) -> bool:
    """Whether a queued job is still in its queue's list (a long queue), or was lost on its way to a worker."""
    return queue.connection.lpos(queue.key, record.id) is not None


def scheduled_at(queue: Queue, record: JobRecord) -> datetime | None:
    """When a scheduled job (a retry waiting out its pause) is due, if it is still on the schedule."""
    try:
        at: datetime = queue.scheduled_job_registry.get_scheduled_time(record._job)  # rq leaves it unannotated
    except NoSuchJobError:
        return None
    return _utc(at)


def enqueue(
    queue: Queue,
    name: str,
    args: Sequence[Any],
    *,
    job_id: str,
    line: tuple[str, int] | None = None,
    timeout: int | None = None,
) -> None:
    """Queue the job ``name`` with ``args`` under ``job_id``.

    ``line``: a key and how many of its jobs may run at once (RQ's rate limit: the others wait, status
    ``rate_limited``).  A job that succeeded is deleted at once (nothing reads its result, and a job due again is
    queued again whether or not its twin's record is still there); a failure is kept a week, to be read; transient
    failures are retried after :data:`RETRY_PAUSES`.  ``timeout``: seconds (``None``: RQ's default, 180).
    """
    limit = RateLimit(line[0], line[1]) if line is not None else None
    queue.enqueue(
        name,
        *args,
        job_id=job_id,
        retry=Retry(max=len(RETRY_PAUSES), interval=list(RETRY_PAUSES)),
        failure_ttl=FAILURE_TTL,
        result_ttl=0,
        rate_limit=limit,
        job_timeout=timeout,
    )


def queue_due_retries(queue: Queue, now: float | None = None) -> int:
    """Queue the scheduled jobs (retries waiting out their pause) whose time has come; how many were queued.

    What RQ's scheduler does, without its minute-long lock: each job is claimed (taken off the schedule) before
    it is queued, so that two tickers — one whose role lapsed mid-tick — never queue it twice.
    """
    registry = queue.scheduled_job_registry
    queued = 0
    for job_id in registry.get_jobs_to_schedule(int(time.time() if now is None else now)):
        if not queue.connection.zrem(registry.key, job_id):
            continue  # another ticker claimed it
        try:
            found = NamedJob.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
        except NoSuchJobError:
            continue
        queue.enqueue_job(found)
        queued += 1
    return queued


# --- the workers --------------------------------------------------------------------------


def fail_fast_on_permanent_errors(job: Job, exc_type: type[BaseException], exc: BaseException, tb: TracebackType) -> bool:
    """RQ exception handler: a :class:`PermanentJobError` (or a subclass) is not retried; it goes to the failed
    registry at once."""
    if issubclass(exc_type, PermanentJobError):
        job.retries_left = 0
    return True  # let RQ's default handling (retry or failed registry) go on


#: How long a worker waits between attempts to reach Redis again once RQ gives up on it (seconds).
RECONNECT_WAIT = 2.0


class JobWorker(SimpleWorker):
    """RQ's non-forking worker, as our runners run it: in a thread of this process, remembering the job it runs.

    A job runs in this process: forking a work horse for each cost more than most jobs do (an AI turn decides in
    milliseconds).  Its timeout is kept by a timer (RQ's ``TimerDeathPenalty``) instead of a signal to a horse,
    and the worker installs no signal handlers (the process's supervisor owns them: ``workers/runner.py``).
    """

    death_penalty_class = TimerDeathPenalty
    max_connection_wait_time = RECONNECT_WAIT
    #: The job it runs now, for its process's pulse (read in this process, no Redis call).
    running_job_id: str | None = None

    def _install_signal_handlers(self) -> None:
        pass

    def execute_job(self, job: Job, queue: Queue) -> None:
        self.running_job_id = job.id
        try:
            super().execute_job(job, queue)
        finally:
            self.running_job_id = None

    def stop_after_job(self) -> None:
        """Leave the work loop before the next job (RQ's warm shutdown: the flag its signal handler sets while busy)."""
        self._stop_requested = True


def new_worker(queues: list[Queue], connection: redis.Redis, ttl: int, jobs: Mapping[str, Callable[..., str]]) -> JobWorker:
    """A worker on ``queues`` (the first first) that runs ``jobs`` by name, its bookkeeping and blocking wait on
    ``connection``.

    ``ttl``: RQ's worker TTL; an idle worker waits for a job in one blocking read of ``ttl`` less 15 s, so
    ``connection``'s socket timeout must outlast that (``service.storage.connections.worker_client``).
    """
    named = type("RegisteredJob", (NamedJob,), {"registry": dict(jobs)})
    return JobWorker(
        queues,
        connection=connection,
        serializer=JSONSerializer,
        job_class=named,
        exception_handlers=[fail_fast_on_permanent_errors],
        worker_ttl=ttl,
    )


def work(worker: JobWorker, *, burst: bool = False, idle: int | None = None) -> None:
    """Run the worker's loop: until its queues are empty (``burst``), or ``idle`` seconds pass without a job, or
    for good (it returns when RQ gives up on Redis, or when asked to stop)."""
    worker.work(burst=burst, logging_level="WARNING", max_idle_time=idle, with_scheduler=False)
