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
  thread, remembering the job it runs for the pulse (:mod:`service.jobqueue.liveness`).

``workers/runner.py`` is the only other module that imports RQ (it runs the workers).
"""

from __future__ import annotations

import ctypes
import itertools
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import redis
from rq import Queue, RateLimit, Retry, SimpleWorker
from rq.exceptions import NoSuchJobError
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.rate_limit import RateLimitRegistry, release_slot
from rq.results import Result
from rq.serializers import JSONSerializer
from rq.timeouts import BaseDeathPenalty
from rq.utils import now

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
) -> None:
    """Queue the job ``name`` with ``args`` under ``job_id``.

    ``line``: a key and how many of its jobs may run at once (RQ's rate limit: the others wait, status
    ``rate_limited``).  A job that succeeded is deleted at once (nothing reads its result, and a job due again is
    queued again whether or not its twin's record is still there); a failure is kept a week, to be read; transient
    failures are retried after :data:`RETRY_PAUSES`.  ``timeout``: seconds (``None``: RQ's default, 180).
    """
    options: dict[str, Any] = {
        "job_id": job_id,
        "retry": Retry(max=len(RETRY_PAUSES), interval=list(RETRY_PAUSES)),
        "failure_ttl": FAILURE_TTL,
        "result_ttl": 0,
        "job_timeout": timeout,
    }
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


# --- the workers --------------------------------------------------------------------------


def fail_fast_on_permanent_errors(job: Job, exc_type: type[BaseException], exc: BaseException, tb: TracebackType) -> bool:
    """RQ exception handler: a :class:`PermanentJobError` (or a subclass) is not retried; it goes to the failed
    registry at once."""
    if issubclass(exc_type, PermanentJobError):
        job.retries_left = 0
    return True  # let RQ's default handling (retry or failed registry) go on


#: How long a worker waits between attempts to reach Redis again once RQ gives up on it (seconds).
RECONNECT_WAIT = 2.0

#: RQ's heartbeat of a worker (its hash's TTL renewed) is written at most this often (s; and at most a quarter of the
#: worker's TTL): RQ renews it five times per job, and the service tells a live worker by its own pulse
#: (:mod:`service.jobqueue.liveness`), not by RQ's.  RQ's key lives the worker TTL and a minute from the last renewal.
HEARTBEAT_EVERY = 60.0

#: Whether RQ's workers were suspended (``rq suspend``) is asked at most this often (s; RQ asks before every job).
SUSPENSION_CHECK_EVERY = 5.0


#: How often the watchdog looks for a job past its timeout (seconds): a timeout is kept to within this.
WATCH_EVERY = 0.5


class _Watchdog:
    """One thread per process that keeps every running job's timeout, where RQ's ``TimerDeathPenalty`` started a
    ``threading.Timer`` (a thread) for each job and cancelled it after: ~75 µs of CPU a job, more than some jobs.

    A job past its timeout gets the timeout exception raised in its thread (``PyThreadState_SetAsyncExc``, as RQ's
    timer does); arming and disarming are a dict's insert and delete under a lock, and the thread wakes every
    :data:`WATCH_EVERY` seconds while any job is armed (jobs' timeouts are minutes).
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._armed: dict[int, tuple[float, int, type[BaseException]]] = {}
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float, exception: type[BaseException]) -> int:
        """Raise ``exception`` in the calling thread ``seconds`` from now unless disarmed first; a token to disarm."""
        with self._lock:
            token = next(self._tokens)
            self._armed[token] = (time.monotonic() + seconds, threading.get_ident(), exception)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="red7-job-timeouts", daemon=True)
                self._thread.start()
            elif len(self._armed) == 1:
                self._lock.notify()  # it sleeps while nothing is armed
        return token

    def disarm(self, token: int) -> None:
        with self._lock:
            self._armed.pop(token, None)

    def _watch(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                for token, (due, thread_id, exception) in list(self._armed.items()):
                    if due <= now:
                        del self._armed[token]
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exception))
                self._lock.wait(WATCH_EVERY if self._armed else None)


_watchdog = _Watchdog()
#: Timeout exceptions that say their timeout, by the exception and the timeout (:meth:`WatchdogDeathPenalty._with_message`).
_SAYING_TIMEOUTS: dict[tuple[type[BaseException], float], type[BaseException]] = {}


class WatchdogDeathPenalty(BaseDeathPenalty):
    """RQ's job timeout kept by this process's one watchdog thread (:class:`_Watchdog`), not a timer thread a job."""

    def setup_death_penalty(self) -> None:
        self._token: int | None = None
        if self._timeout > 0:
            self._token = _watchdog.arm(self._timeout, self._with_message(self._exception, self._timeout))

    def cancel_death_penalty(self) -> None:
        if self._token is not None:
            _watchdog.disarm(self._token)
            self._token = None

    @classmethod
    def _with_message(cls, exception: type[BaseException], timeout: float) -> type[BaseException]:
        """``exception`` saying the timeout it exceeded (it is raised as a class, so the message is the class's)."""
        key = (exception, timeout)
        if key not in _SAYING_TIMEOUTS:
            text = f"Task exceeded maximum timeout value ({timeout} seconds)"

            def init(self: BaseException, *args: object) -> None:
                BaseException.__init__(self, text)

            _SAYING_TIMEOUTS[key] = type(exception.__name__, (exception,), {"__init__": init})
        return _SAYING_TIMEOUTS[key]


class JobWorker(SimpleWorker):
    """RQ's non-forking worker, as our runners run it: in a thread of this process, remembering the job it runs.

    A job runs in this process: forking a work horse for each cost more than most jobs do (an AI turn decides in
    milliseconds).  Its timeout is kept by the process's watchdog thread (:class:`WatchdogDeathPenalty`) instead of a
    signal to a horse, and the worker installs no signal handlers (the process's supervisor owns them:
    ``workers/runner.py``).
    """

    death_penalty_class = WatchdogDeathPenalty
    max_connection_wait_time = RECONNECT_WAIT
    #: The job it runs now, for its process's pulse (read in this process, no Redis call).
    running_job_id: str | None = None
    #: The job whose execution :meth:`_start` recorded (RQ's ``prepare_job_execution`` then has nothing left to do).
    _started: str | None = None
    #: When (monotonic) it last asked whether workers were suspended.
    _suspension_checked: float = float("-inf")

    def _install_signal_handlers(self) -> None:
        pass

    # RQ's bookkeeping of the worker, no more often than the liveness the service needs: the service has its own pulse.

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        """RQ's heartbeat, skipped when the last one is recent (its key then still has minutes to live)."""
        last = self.last_heartbeat
        if last is not None and (now() - last).total_seconds() < min(HEARTBEAT_EVERY, self.worker_ttl / 4):
            return
        super().heartbeat(timeout, pipeline)

    def set_state(self, state: str, pipeline: Any = None) -> None:
        """The worker's state, kept in this process: RQ writes idle and busy to Redis around every job, which only
        ``rq info`` reads (the service's pulse says what each job runner runs).  Other states are written."""
        if state in ("idle", "busy"):
            self._state = state
            return
        super().set_state(state, pipeline)

    def check_for_suspension(self, burst: bool) -> None:
        """RQ's check for ``rq suspend``, at most every :data:`SUSPENSION_CHECK_EVERY` seconds (not before every job)."""
        at = time.monotonic()
        if at - self._suspension_checked < SUSPENSION_CHECK_EVERY:
            return
        self._suspension_checked = at
        super().check_for_suspension(burst)

    def execute_job(self, job: Job, queue: Queue) -> None:
        self.running_job_id = job.id
        try:
            if not plain(job):
                super().execute_job(job, queue)
                return
            execution = self._start(job, queue)
            self.set_state("busy")  # in this process only (see set_state), as RQ's SimpleWorker says it
            self.perform_job(job, queue, execution)
            self.set_state("idle")
        finally:
            self.running_job_id = None

    # A plain job's life (:func:`plain`) in three transactions after its dequeue: RQ's steps, fewer round trips.

    def _start(self, job: Job, queue: Queue) -> Execution:
        """RQ's ``prepare_execution`` and ``prepare_job_execution`` in one transaction (two, and a heartbeat, in RQ)."""
        with self.connection.pipeline() as pipeline:
            execution = Execution.create(job, self.get_heartbeat_ttl(job), pipeline=pipeline, worker_name=self.name)
            self.executions[execution.id] = execution
            job.prepare_for_execution(self.name, pipeline=pipeline)  # status, worker, started at, last heartbeat
            pipeline.persist(job.key)
            if len(self.queues) == 1:  # RQ's dequeue left its id in the queue's intermediate list (see perform_job)
                pipeline.lrem(queue.intermediate_queue_key, 1, job.id)
            pipeline.execute()
        self._started = job.id
        return execution

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        if self._started == job.id:  # done in _start, with the execution's record
            self._started = None
            return
        super().prepare_job_execution(job, remove_from_intermediate_queue)

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int) -> None:
        """The job's end, noted on it; a plain job's last heartbeat is not written (its record is deleted at once on
        success, and saved with its failure otherwise)."""
        if not plain(job):
            super().handle_execution_ended(job, queue, heartbeat_ttl)
            return
        job.ended_at = job.last_heartbeat = now()

    def handle_job_success(self, job: Job, queue: Queue, started_job_registry: Any, execution: Execution) -> None:
        """A plain job's success in one transaction, without RQ's reads of its dependents (it has none: no job of ours
        depends on another) nor its worker's counters of jobs and working time (which only ``rq info`` shows); then a
        rate-limited job's slot given back, as RQ does."""
        if not plain(job):
            super().handle_job_success(job, queue, started_job_registry, execution)
            return
        with self.connection.pipeline() as pipeline:
            result_ttl = job.get_result_ttl(self.default_result_ttl)
            if result_ttl == 0:
                self._forget(job, execution, pipeline)
            else:
                job._handle_success(
                    result_ttl,
                    pipeline=pipeline,
                    worker_name=self.name,
                    execution_id=execution.id,
                    execution_started_at=execution.created_at,
                    execution_ended_at=job.ended_at,
                )
                job.cleanup(result_ttl, pipeline=pipeline, remove_from_queue=False)
                job._status = JobStatus.FINISHED
                self.cleanup_execution(job, pipeline=pipeline, execution=execution)
            pipeline.execute()
        release_slot(job)  # a rate-limited job's place in its line, to the first waiting (RQ's, after the commit)

    def _forget(self, job: Job, execution: Execution, pipeline: Any) -> None:
        """A job whose result nobody keeps (``result_ttl=0``), gone on its success, without a read.

        RQ deletes it with ``Job.delete``, which reads its status, its registries and its executions (seven reads,
        outside the transaction) to find what to remove, then removes the execution again (``cleanup_execution``).
        Here: the job's keys, its execution and that execution's registry in one DEL, its entry in the started
        registry and in this worker's executions, and a rate-limited job's entry among those waiting (as
        ``Job.delete`` drops it; its slot is given back after the transaction, as RQ does).
        """
        job._status = JobStatus.FINISHED
        result_key = Result.get_key(job.id)  # type: ignore[no-untyped-call]  # rq leaves it unannotated
        pipeline.delete(job.key, job.dependents_key, job.dependencies_key, result_key, job.execution_registry.key, execution.key)
        job.started_job_registry.remove_execution(execution=execution, pipeline=pipeline)
        if execution.worker_name:
            pipeline.srem(execution.worker_executions_key, execution.composite_key)
        if job.has_rate_limit:
            RateLimitRegistry.from_job(job).cancel(job.id, pipeline=pipeline)
        self.executions.pop(execution.id, None)

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
