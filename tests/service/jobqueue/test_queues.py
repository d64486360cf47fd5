"""The RQ adapter (service/jobqueue/queues.py): jobs queued by name, run from the worker's registry, read back in our words."""

from __future__ import annotations

from datetime import timedelta

from service.application.followups import WATCHED
from service.jobqueue import queues
from tests.harness.support import HUMAN, ai
from workers.jobs import JOBS
from workers.runner import thread_worker


def test_every_job_the_dispatcher_queues_is_in_the_registry_a_worker_runs():
    # Decision analyses are no RQ jobs: they wait in the analyses' own queue (service/jobqueue/analysis_queue.py).
    assert set(JOBS) == WATCHED | {"notices", "notify", "push"}


def test_a_job_keeps_only_its_name_and_runs_from_the_registry(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    [queued] = api.runtime.queue.jobs
    assert queued.func_name == "ai_turn" and queued.args[0] == game["id"]
    record = queues.find(api.runtime.queue, queued.id)
    assert record is not None and record.status == "queued" and record.enqueued_at is not None
    assert queues.waits_in(api.runtime.queue, record)
    thread_worker(api.runtime, [api.runtime.queue]).work(burst=True, max_jobs=1, logging_level="WARNING")
    assert api.view(game["id"], token)["version"] > game["version"]
    assert queues.find(api.runtime.queue, queued.id) is None  # a success is not kept


def test_a_job_queued_by_an_earlier_release_under_its_import_path_still_runs(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("greedy")])
    runtime = api.runtime
    legacy = runtime.queue.enqueue("workers.jobs.score_round", game["id"], 0, job_id="legacy-import-path", result_ttl=60)
    thread_worker(runtime, [runtime.queue]).work(burst=True, logging_level="WARNING")
    assert legacy.get_status(refresh=True) == "finished"
    assert legacy.return_value() == "nothing to do: the game moved on"


def test_a_name_no_worker_knows_fails_for_good_at_once(api):
    runtime = api.runtime
    queues.enqueue(runtime.queue, "no_such_job", ("g_1", 1), job_id="unknown-name")
    thread_worker(runtime, [runtime.queue]).work(burst=True, logging_level="WARNING")
    record = queues.find(runtime.queue, "unknown-name")
    assert record is not None and record.status == "failed"  # not retried: a worker without the code never will


def test_a_plain_jobs_success_leaves_nothing_behind_and_reads_nothing_to_delete_it(api, monkeypatch):
    """A job whose result nobody keeps is deleted on its success without ``Job.delete``'s reads: its hash, its
    execution's records and its place in the started registry all go in the success's transaction."""
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    [queued] = api.runtime.queue.jobs
    monkeypatch.setattr(queues.Job, "delete", lambda *a, **k: (_ for _ in ()).throw(AssertionError("Job.delete called")))
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
    assert api.runtime.raw_redis.ttl(worker.key) > queues.HEARTBEAT_EVERY
    worker.last_heartbeat = first - timedelta(seconds=queues.HEARTBEAT_EVERY + 1)
    worker.heartbeat()
    assert worker.last_heartbeat > first
    worker.set_state("busy")
    assert worker.get_state() == "busy" and api.runtime.raw_redis.hget(worker.key, "state") != b"busy"
    asked: list[bool] = []
    monkeypatch.setattr(queues.SimpleWorker, "check_for_suspension", lambda self, burst: asked.append(burst))
    worker.check_for_suspension(False)
    worker.check_for_suspension(False)
    assert asked == [False]  # asked once in SUSPENSION_CHECK_EVERY seconds


def test_an_enqueue_and_its_marker_check_are_one_round_trip_each(api):
    """The dispatcher reads the job and claims its marker in one pipeline, and RQ's enqueue is one transaction."""
    runtime = api.runtime
    marker = f"{runtime.settings.key_prefix}jobs:{{g_x}}:probe"
    assert queues.find_and_claim(runtime.queue, "probe", marker, 5) == (None, True)
    assert queues.find_and_claim(runtime.queue, "probe", marker, 5) == (None, False)
    queues.enqueue(runtime.queue, "score_round", ("g_x", 1), job_id="probe")
    found, claimed = queues.find_and_claim(runtime.queue, "probe", marker, 5)
    assert found is not None and found.status == "queued" and not claimed
    assert runtime.raw_redis.sismember("rq:queues", runtime.queue.key)


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
    worker = queues.new_worker([queue], api.runtime.worker_redis, 60, {"sleepy": sleepy})
    started = time.monotonic()
    queues.work(worker, burst=True)
    assert time.monotonic() - started < 4.0, "stopped at its timeout, not when its sleep was over"
    past = Job.fetch("sleepy-past", connection=queue.connection, serializer=queue.serializer)
    assert past.get_status() == "scheduled" and past.retries_left == len(queues.RETRY_PAUSES) - 1, "a timeout is retried"
    assert Job.exists("sleepy-within", connection=queue.connection) is False, "it ran to its end (and was deleted)"
