"""The RQ adapter's worker (service/jobqueue/worker.py, watchdog.py): a plain job's life in few round trips, RQ's
bookkeeping no more often than needed, and jobs' timeouts kept by one watchdog thread."""

from __future__ import annotations

from datetime import timedelta

from service.jobqueue import queues, retries
from service.jobqueue import worker as rq_worker
from tests.harness.support import ai
from workers.runner import thread_worker


def test_a_plain_jobs_success_leaves_nothing_behind_and_reads_nothing_to_delete_it(api, monkeypatch):
    """A job whose result nobody keeps is deleted on its success without ``Job.delete``'s reads: its hash, its
    execution's records and its place in the started registry all go in the success's transaction."""
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    [queued] = api.runtime.queue.jobs
    monkeypatch.setattr(rq_worker.Job, "delete", lambda *a, **k: (_ for _ in ()).throw(AssertionError("Job.delete called")))
    worker = thread_worker(api.runtime, [api.runtime.queue])
    worker.work(burst=True, max_jobs=1, logging_level="WARNING")
    assert api.view(game["id"], token)["version"] > game["version"]
    raw = api.runtime.raw_redis
    assert not raw.exists(queued.key) and not raw.exists(queued.execution_registry.key)
    assert api.runtime.queue.started_job_registry.count == 0
    assert not [key for key in raw.scan_iter(match="rq:execution:*")]
    assert not raw.smembers(worker.executions_key)


def test_rqs_bookkeeping_of_a_worker_is_written_no_more_often_than_liveness_needs(api, monkeypatch):
    worker = thread_worker(api.runtime, [api.runtime.queue])
    worker.register_birth()
    worker.heartbeat()
    first = worker.last_heartbeat
    worker.heartbeat()
    worker.heartbeat()
    assert worker.last_heartbeat == first  # within a minute: RQ's key still has minutes to live
    assert api.runtime.raw_redis.ttl(worker.key) > rq_worker.HEARTBEAT_EVERY
    worker.last_heartbeat = first - timedelta(seconds=rq_worker.HEARTBEAT_EVERY + 1)
    worker.heartbeat()
    assert worker.last_heartbeat > first
    worker.set_state("busy")
    assert worker.get_state() == "busy" and api.runtime.raw_redis.hget(worker.key, "state") != b"busy"
    asked: list[bool] = []
    monkeypatch.setattr(rq_worker.SimpleWorker, "check_for_suspension", lambda self, burst: asked.append(burst))
    worker.check_for_suspension(False)
    worker.check_for_suspension(False)
    assert asked == [False]  # asked once in SUSPENSION_CHECK_EVERY seconds


def test_a_job_past_its_timeout_is_stopped_by_the_watchdog_and_retried_and_one_within_it_runs_on(api):
    """The watchdog thread raises the timeout in the job's thread (no timer thread a job); the others are left be."""
    import time

    from rq.job import Job

    def sleepy(seconds: float) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return "slept"

    queue = api.runtime.queue
    queues.enqueue(queue, "sleepy", (5.0,), job_id="sleepy-past", timeout=1)
    queues.enqueue(queue, "sleepy", (0.1,), job_id="sleepy-within", timeout=1)
    worker = rq_worker.new_worker([queue], api.runtime.worker_redis, 60, {"sleepy": sleepy})
    started = time.monotonic()
    rq_worker.work(worker, burst=True)
    assert time.monotonic() - started < 4.0, "stopped at its timeout, not when its sleep was over"
    past = Job.fetch("sleepy-past", connection=queue.connection, serializer=queue.serializer)
    assert past.get_status() == "scheduled" and past.retries_left == len(retries.RETRY_PAUSES) - 1, "a timeout is retried"
    assert Job.exists("sleepy-within", connection=queue.connection) is False, "it ran to its end (and was deleted)"
