"""RQ's worker as our runners run it (:class:`JobWorker`): in a thread, its bookkeeping trimmed to what the service
reads, a plain job's life in fewer round trips; and how a runner makes one and runs its loop."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.rate_limit import RateLimitRegistry, release_slot
from rq.results import Result
from rq.serializers import JSONSerializer
from rq.utils import now

from service.common import logformat, tracing
from service.jobqueue.logcontext import job_context, job_fields
from service.jobqueue.metrics import job_ran
from service.jobqueue.queues import NamedJob, plain
from service.jobqueue.retries import fail_fast_on_permanent_errors
from service.jobqueue.watchdog import WatchdogDeathPenalty

log = logging.getLogger("red7.worker")


#: How long a worker waits between attempts to reach Redis again once RQ gives up on it (seconds).
RECONNECT_WAIT = 2.0

#: RQ's heartbeat of a worker (its hash's TTL renewed) is written at most this often (s; and at most a quarter of the
#: worker's TTL): RQ renews it five times per job, and the service tells a live worker by its own pulse
#: (:mod:`service.jobqueue.liveness`), not by RQ's.  RQ's key lives the worker TTL and a minute from the last renewal.
HEARTBEAT_EVERY = 60.0

#: Whether RQ's workers were suspended (``rq suspend``) is asked at most this often (s; RQ asks before every job).
SUSPENSION_CHECK_EVERY = 5.0


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
        started, started_at = time.monotonic(), datetime.now(UTC)
        # Its span (tracing on): under the request's, or the job's, that queued it (service.common.tracing).
        span = tracing.job_span(job.func_name or "job", job.meta.get("trace"), {"red7.job.id": job.id, "red7.queue": queue.name})
        try:
            with span:
                if not plain(job):
                    super().execute_job(job, queue)
                    return
                execution = self._start(job, queue)
                self.set_state("busy")  # in this process only (see set_state), as RQ's SimpleWorker says it
                self.perform_job(job, queue, execution)
                self.set_state("idle")
        finally:
            self.running_job_id = None
            # One line a job, stamped with the request that caused it (service.jobqueue.logcontext): how an
            # operator follows a move from its request to the AI turns it made due.  (RQ's own lines are off.)
            took = time.monotonic() - started
            with logformat.stamped_with(job_fields(job)):
                log.info("job %s ran on %s in %.3f s", job.func_name, queue.name, took)
            job_ran(job, took, started_at)

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
    logformat.add_context(job_context)  # each log line of a job stamped with its kind and the request that caused it
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
