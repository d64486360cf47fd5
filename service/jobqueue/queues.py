"""RQ behind one door: the queues and the jobs on them, in the service's words.

RQ stays the service's job system; this package (``queues``, :mod:`~service.jobqueue.retries`,
:mod:`~service.jobqueue.worker`, :mod:`~service.jobqueue.watchdog`) is everything the service asks of it, so that
the rest names jobs and states in its own words and an RQ release that moves its internals changes these files only:

- jobs are named, not imported: a queued job keeps only its name, and a
  worker finds the code in the registry it is given (``workers.jobs.JOBS``),
  not by an import string the queue would keep for the job's life;
- :class:`JobRecord` is a job as the dispatcher reads it (its state, when it
  was queued, started or ended, which worker runs it);
- :func:`enqueue`, :func:`find`, :func:`waits_in`, :func:`scheduled_at` and
  :func:`queue_due_retries` are the queue operations the dispatcher and the
  ticker use;
- how a failed job is retried, or not (:class:`~service.jobqueue.retries.PermanentJobError`), is
  :mod:`~service.jobqueue.retries`;
- :class:`~service.jobqueue.worker.JobWorker` is RQ's non-forking worker as our runners run it, in a
  thread, remembering the job it runs for the pulse (:mod:`service.jobqueue.liveness`), its jobs' timeouts kept by
  one thread per process (:mod:`~service.jobqueue.watchdog`).

``workers/runner.py`` is the only other module that imports RQ (it runs the workers).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, RateLimit, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.jobqueue.retries import FAILURE_TTL, RETRY_PAUSES, PermanentJobError

#: The type of a queue, for the composition root (which must not import RQ itself).
JobQueue = Queue


# --- jobs by name ----------------------------------------------------------------------


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


def plain(job: Job) -> bool:
    """Whether a job is one of ours as RQ runs them all: no group, dependency or repeat (a webhook delivery's line,
    RQ's rate limit, is one).  Such a job's life takes fewer round trips here than RQ's general path does (see
    :class:`JobWorker`)."""
    return not job.group_id and not job._dependency_ids and not job.repeats_left


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
    return _record(found)


#: What :func:`find_and_claim` finds: the job, if RQ still keeps it, and whether the marker is now ours.
Found = tuple[JobRecord | None, bool]


def find_and_claim(queue: Queue, job_id: str, marker: str, ttl: int) -> Found:
    """The job with this id, if RQ still keeps it, and whether ``marker`` was free and is now ours for ``ttl``
    seconds (``SET NX``): both in one round trip (a pipeline), before an enqueue."""
    with queue.connection.pipeline(transaction=False) as pipe:
        read = claim_on(pipe, queue, job_id, marker, ttl)
        return read(pipe.execute())


def claim_on(pipe: redis.client.Pipeline, queue: Queue, job_id: str, marker: str, ttl: int) -> Callable[[Sequence[Any]], Found]:
    """:func:`find_and_claim`'s two commands, queued on ``pipe`` behind whatever else it carries to the queue's Redis;
    the function returned reads their two replies (raising the error of either, for a pipeline run with
    ``raise_on_error=False``)."""
    pipe.hgetall(NamedJob.key_for(job_id))
    pipe.set(marker, b"1", nx=True, ex=ttl)

    def read(replies: Sequence[Any]) -> Found:
        data, claimed = replies
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        if not data:
            return None, bool(claimed)
        found = NamedJob(job_id, connection=queue.connection, serializer=queue.serializer)
        found.restore(data)
        return _record(found), bool(claimed)

    return read


def _record(found: Job) -> JobRecord:
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
    meta: dict[str, Any] | None = None,
) -> None:
    """Queue the job ``name`` with ``args`` under ``job_id``.

    ``line``: a key and how many of its jobs may run at once (RQ's rate limit: the others wait, status
    ``rate_limited``).  A job that succeeded is deleted at once (nothing reads its result, and a job due again is
    queued again whether or not its twin's record is still there); a failure is kept a week, to be read; transient
    failures are retried after :data:`RETRY_PAUSES`.  ``timeout``: seconds (``None``: RQ's default, 180).  ``meta``: what
    the job's log lines are stamped with (the request that caused it), plain data in RQ's job meta.
    """
    options: dict[str, Any] = {
        "job_id": job_id,
        "retry": Retry(max=len(RETRY_PAUSES), interval=list(RETRY_PAUSES)),
        "failure_ttl": FAILURE_TTL,
        "result_ttl": 0,
        "job_timeout": timeout,
    }
    if meta:
        options["meta"] = meta
    if line is not None:  # RQ's rate limit promotes the job in a script of its own: no pipeline
        queue.enqueue(name, *args, rate_limit=RateLimit(line[0], line[1]), **options)
        return
    with queue.connection.pipeline() as pipe:  # one transaction: RQ's queue registration and the job together
        queue.enqueue(name, *args, pipeline=pipe, **options)
        pipe.execute()


def queue_due_retries(*queues: Queue, now: float | None = None) -> int:
    """Queue the scheduled jobs (retries waiting out their pause) of ``queues`` whose time has come; how many were
    queued.  The schedules are read in one round trip.

    What RQ's scheduler does, without its minute-long lock: each job is claimed (taken off the schedule) before
    it is queued, so that two tickers — one whose role lapsed mid-tick — never queue it twice.
    """
    at = int(time.time() if now is None else now)
    registries = [queue.scheduled_job_registry for queue in queues]
    with queues[0].connection.pipeline(transaction=False) as pipe:
        for registry in registries:
            pipe.zrangebyscore(registry.key, 0, at, start=0, num=1000)  # RQ's get_jobs_to_schedule
        found = pipe.execute()
    queued = 0
    for queue, registry, job_ids in zip(queues, registries, found, strict=True):
        for raw in job_ids:
            job_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            if not queue.connection.zrem(registry.key, job_id):
                continue  # another ticker claimed it
            try:
                job = NamedJob.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
            except NoSuchJobError:
                continue
            queue.enqueue_job(job)
            queued += 1
    return queued
