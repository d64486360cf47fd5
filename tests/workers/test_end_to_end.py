"""Real worker processes on the real Redis: whole games, races, a killed worker, deadlines, webhooks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import redis
from rq.registry import StartedJobRegistry

from engine import fold
from service.domain.game import decode, engine_event
from service.domain.lobby import LOBBY_TYPES
from service.http.app import create_app
from service.jobqueue.liveness import IDLE
from service.runtime import build_runtime
from tests.harness.deployment import stop_group
from tests.harness.support import HUMAN, REAL_REDIS_SKIP, REAL_REDIS_URL, Api, ai, clean_real_redis, settings_for
from tests.workers.test_jobs import Receiver, receiver, verify  # noqa: F401 (fixture)

pytestmark = [pytest.mark.real_redis, pytest.mark.skipif(bool(REAL_REDIS_SKIP), reason=REAL_REDIS_SKIP or "")]


@pytest.fixture
def real(key_prefix, tmp_path):
    """An API on the real Redis, and a way to start `red7 worker` processes on the same keys."""
    settings = settings_for(key_prefix, redis_url=REAL_REDIS_URL)
    text = redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True)
    raw = redis.Redis.from_url(REAL_REDIS_URL)
    runtime = build_runtime(settings, clients=(text, raw))
    processes: list[subprocess.Popen] = []

    def start_worker(expert_seconds: float = 0.05, threads: int | None = None, **more: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "REDIS_URL": REAL_REDIS_URL,
            "RED7_KEY_PREFIX": settings.key_prefix,
            "RED7_QUEUE_NAME": settings.queue_name,
            "RED7_EXPERT_SECONDS": str(expert_seconds),
            "RED7_WEBHOOK_PRIVATE_HOSTS": "1",  # the receiver listens on 127.0.0.1
            **({"RED7_WORKER_THREADS": str(threads)} if threads else {}),
            **more,
        }
        log = open(tmp_path / f"worker-{len(processes)}.log", "w")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen(
            [sys.executable, "-m", "service.processes.cli", "worker"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killing it kills its work horse too
        )
        processes.append(process)
        return process

    yield Api(create_app(runtime), runtime), start_worker
    for process in processes:
        stop_group(process)
    clean_real_redis(text, key_prefix)


def wait_finished(api: Api, game_id: str, token: str | None = None, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = api.view(game_id, token)
        if view["status"] == "finished":
            return view
        api.call("GET", f"/v1/games/{game_id}/events?after={view['version']}&wait=2", token)
    raise AssertionError(f"the game did not finish within {timeout} s")


def consistent(api: Api, game_id: str) -> None:
    """The stream is a possible game: numbered without gaps, and its engine events fold from scratch."""
    stored = list(api.runtime.store.read_all(game_id))
    assert [e.number for e in stored] == list(range(1, len(stored) + 1))
    events = [engine_event(decode(e.payload)) for e in stored if decode(e.payload)["type"] not in LOBBY_TYPES]
    assert fold(events).phase.value == "finished"


def test_an_all_ai_game_finishes_by_itself(real):
    api, start_worker = real
    start_worker()
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), ai("random"), ai("expert")], action_rules=True)
    final = wait_finished(api, game["id"], token)
    assert final["winner"] is not None
    consistent(api, game["id"])


def test_a_human_against_three_ais_through_several_rounds_with_webhooks(real, receiver):  # noqa: F811
    api, start_worker = real
    start_worker()
    me = api.player("Ana")
    token = me["token"]
    secret = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()["webhook_secret"]
    game = api.game(token, [HUMAN, ai("greedy"), ai("expert"), ai("random")], variant="advanced", action_rules=True, seed=77)
    rounds = set()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        view = api.view(game["id"], token)
        rounds.add(view["round"])
        if view["status"] == "finished":
            break
        if view["legal_steps"]:
            keep_in = [s for s in view["legal_steps"] if s["can_win"] and s["type"] != "fold"] or view["legal_steps"]
            choice = {k: keep_in[0][k] for k in ("type", "card", "seat", "to", "draw") if k in keep_in[0]}
            response = api.act(game["id"], token, [choice], headers={"If-Match": f'"{view["version"]}"'})
            assert response.status_code in (200, 409)
        else:
            api.call("GET", f"/v1/games/{game['id']}/events?after={view['version']}&wait=2", token)
    else:
        raise AssertionError("the game did not finish")
    assert len(rounds) >= 2, "the game should run through several rounds (scored, then dealt again)"
    consistent(api, game["id"])
    for _ in range(50):  # webhooks are delivered by the worker, a moment later
        kinds = [json.loads(body)["event"] for _, body in Receiver.received]
        if "game_finished" in kinds:
            break
        time.sleep(0.1)
    assert {"your_turn", "round_over", "game_finished"} <= set(kinds)
    assert all(verify(secret, headers, body) for headers, body in Receiver.received)


def test_two_workers_racing_on_one_game_keep_it_consistent(real):
    api, start_worker = real
    start_worker()
    start_worker()
    token = api.player()["token"]
    games = [api.game(token, [ai("random"), ai("greedy"), ai("random"), ai("greedy")], action_rules=True)["id"] for _ in range(3)]
    for game_id in games:
        wait_finished(api, game_id, token)
        consistent(api, game_id)
        api.view(game_id)  # re-offers what is due: nothing for a finished game


def test_a_worker_killed_in_the_middle_of_a_job(real):
    api, start_worker = real
    slow = start_worker(expert_seconds=4.0)
    token = api.player()["token"]
    game = api.game(token, [ai("expert"), ai("expert")], seed=12)
    registry = StartedJobRegistry(queue=api.runtime.queue)
    deadline = time.monotonic() + 20
    while not registry.get_job_ids() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert registry.get_job_ids(), "the job never started"
    time.sleep(0.5)
    os.killpg(slow.pid, signal.SIGKILL)  # the worker and its work horse, mid-think
    slow.wait(10)
    consistent_so_far = [e.number for e in api.runtime.store.read_all(game["id"])]
    assert consistent_so_far == list(range(1, len(consistent_so_far) + 1)), "a killed job left a gap"
    registry.cleanup(timestamp=time.time() + 3600)  # what a live worker's maintenance does once the heartbeat lapses
    start_worker(expert_seconds=0.05)
    final = wait_finished(api, game["id"], token)
    assert final["winner"] is not None
    consistent(api, game["id"])


def _busy_pulses(api: Api) -> int:
    """How many of the workers' job runners say, now, that they run a job."""
    queue_redis = api.runtime.raw_redis
    said = [queue_redis.get(key) for key in queue_redis.scan_iter(match=f"{api.runtime.settings.key_prefix}alive:*")]
    return sum(1 for value in said if value not in (None, IDLE.encode()))


def _expert_tables(api: Api, count: int) -> list[tuple[str, str, int]]:
    """``count`` all-expert games of as many players (one AI turn on its way per player): (game, token, version)."""
    tables = []
    for _ in range(count):
        token = api.player()["token"]
        game = api.game(token, [ai("expert"), ai("expert")], seed=12)
        tables.append((game["id"], token, game["version"]))
    return tables


def test_a_worker_runs_as_many_jobs_at_once_as_it_has_threads(real):
    """An expert thinks a second, waiting on nothing but the clock: three of them at once on one process, not in a row."""
    api, start_worker = real
    tables = _expert_tables(api, 3)
    thinking = start_worker(expert_seconds=1.5, threads=3)
    most, deadline = 0, time.monotonic() + 20
    while most < 3 and time.monotonic() < deadline:
        most = max(most, _busy_pulses(api))
        time.sleep(0.05)
    assert most == 3, f"at most {most} job(s) ran at once"
    os.killpg(thinking.pid, signal.SIGTERM)
    assert thinking.wait(30) == 0
    start_worker()  # quick experts, to the end
    for game_id, token, _ in tables:
        assert wait_finished(api, game_id, token)["winner"] is not None
        consistent(api, game_id)


def test_a_stopped_worker_finishes_the_jobs_it_runs_before_it_exits(real):
    api, start_worker = real
    tables = _expert_tables(api, 2)
    worker = start_worker(expert_seconds=3.0, threads=2)
    deadline = time.monotonic() + 20
    while (busy := _busy_pulses(api)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert busy == 2, "both jobs should be running"  # as read then: one may end before a second reading
    os.killpg(worker.pid, signal.SIGTERM)  # as docker stop or systemd asks
    assert worker.wait(30) == 0
    for game_id, _, version in tables:
        assert api.runtime.store.version(game_id) > version, "a running turn was cut off instead of finished"
    start_worker()
    for game_id, token, _ in tables:
        assert wait_finished(api, game_id, token)["winner"] is not None
        consistent(api, game_id)


def test_a_stalled_human_times_out_and_the_game_goes_on(real):
    api, start_worker = real
    start_worker()
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("random")], variant="basic", turn_timeout=5, seed=3)
    started = time.monotonic()
    final = wait_finished(api, game["id"], token, timeout=30)
    types = [e["type"] for e in api.call("GET", f"/v1/games/{game['id']}/events?limit=500", token).get_json()["events"]]
    assert "turn_timed_out" in types and final["winner"] == 1
    assert time.monotonic() - started >= 4.5


#: RQ's worker TTL for the idle test: each job runner waits for a job in blocking reads of 10 s (the TTL less 15),
#: twice the 5 s socket timeout of redis-py 8's clients, and renews its registration between them.
IDLE_WORKER_TTL = 25
#: How long the worker idles: three of those waits, where production's (405 s) come once or twice in 10 minutes.
IDLE_SECONDS = 32.0


def test_an_idle_worker_logs_nothing(real, tmp_path):
    """Idle, a worker's job runners wait for jobs without a word: no ERROR or WARNING in its log.

    RQ's blocking wait for a job ran on a pooled connection that kept redis-py 8's 5 s socket timeout: every
    few seconds a runner logged ``rq.worker ERROR ... Timeout reading from socket`` and paused for two.
    """
    _, start_worker = real
    worker = start_worker(RED7_WORKER_TTL=str(IDLE_WORKER_TTL), RED7_PUBLIC_URL="http://127.0.0.1")
    time.sleep(IDLE_SECONDS)
    assert worker.poll() is None
    log = (tmp_path / "worker-0.log").read_text()
    said = [line for line in log.splitlines() if " ERROR " in line or " WARNING " in line]
    assert not said, log
