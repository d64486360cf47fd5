"""The RQ adapter's queues (service/jobqueue/queues.py): jobs queued by name, run from the worker's registry, read back
in our words."""

from __future__ import annotations

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
