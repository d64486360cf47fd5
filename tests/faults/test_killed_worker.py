"""A worker killed mid-job (kill -9 of its whole process tree, as a container kill does).

Nobody reads the game: the job it was running must be taken over by the
other worker — through the pulse that stopped and the ticker's sweep, not
RQ's minute-long heartbeat — and the game must move on within 10 s and
reach its end.  (Experts' turns are a job each: a job plays on only into
turns of the quick levels, see service.jobqueue.dispatch.QUICK_LEVELS.)
"""

from __future__ import annotations

import time

import redis
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from tests.harness.deployment import Client, stored_version, stream_events, wait_until

#: Seconds the expert thinks in the worker that is killed: long enough to be caught mid-job.
SLOW = 4.0
PROGRESS_BOUND = 10.0


def test_a_game_whose_worker_is_killed_mid_job_moves_on_by_itself(deployment, server):
    base = deployment.api()
    slow = deployment.worker("slow", RED7_EXPERT_SECONDS=str(SLOW))
    fast = deployment.worker("fast", RED7_EXPERT_SECONDS="0.05")
    raw = redis.Redis(host="127.0.0.1", port=server.port)
    # A two-expert game at the fast worker's pace is over in about 2.5 s: made before the slow worker waits for jobs,
    # on a busy machine, it could end with no turn of it on the slow one.
    deployment.wait_listening(slow, raw)
    deployment.wait_listening(fast, raw)
    creator = Client(base).sign_up("Ana")
    game = creator.json("POST", "/games", expect=201, json={"seats": [{"kind": "ai", "level": "expert"}] * 2})
    text = server.client()
    queue = deployment.env["RED7_QUEUE_NAME"]
    registry = StartedJobRegistry(queue, connection=raw)

    def thinking_on_the_slow_worker() -> Job | None:
        """A job the slow worker has been running for a second (one that is not over at once: a forced move)."""
        for job_id in registry.get_job_ids():
            try:
                job = Job.fetch(job_id, connection=raw, serializer=JSONSerializer)
            except NoSuchJobError:  # done (and deleted) since the registry was read
                continue
            on_slow = job.worker_name and raw.hget(f"rq:worker:{job.worker_name}", "pid") == str(slow.pid).encode()
            if on_slow and job.started_at and time.time() - job.started_at.timestamp() > 1.0:
                return job
        return None

    try:
        job = wait_until(thinking_on_the_slow_worker, 90, "the slow worker thinks over an AI turn")
    except AssertionError as missed:
        over = any(e["type"] == "game_finished" for e in stream_events(text, deployment.prefix, game["id"]))
        raise AssertionError(f"{missed} (the game is {'over' if over else 'not over'})\n{deployment.logs()}") from None
    version = int(job.args[1])
    assert stored_version(text, deployment.prefix, game["id"]) == version, "the slow job must still be running"
    killed = time.monotonic()
    deployment.kill_tree(slow)

    wait_until(lambda: stored_version(text, deployment.prefix, game["id"]) > version, 30, "the game moves on")
    moved = time.monotonic() - killed
    print(f"\nworker killed mid-job: the game moved on {moved:.1f} s later, without anyone reading it")
    assert moved <= PROGRESS_BOUND
    assert moved > 1.0, "the job ended by itself: it was not killed mid-run"
    assert job.id in deployment.log_named("fast"), "the other worker took the job over"

    def finished() -> bool:
        return any(e["type"] == "game_finished" for e in stream_events(text, deployment.prefix, game["id"]))

    wait_until(finished, 120, "the game finishes", every=0.5)
    events = stream_events(text, deployment.prefix, game["id"])
    assert [e["n"] for e in events] == list(range(1, len(events) + 1))
    assert fast.poll() is None
    assert not creator.server_errors()
