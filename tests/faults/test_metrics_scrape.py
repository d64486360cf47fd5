"""The metrics under the production shape (issue 41): two gunicorn processes (gevent) and two ``red7 worker``s on a
real Redis, a scripted session, then each metrics port scraped as Prometheus would.

gunicorn's master serves the sum of its workers' files (prometheus-client's multiprocess mode,
``PROMETHEUS_MULTIPROC_DIR``); each ``red7 worker`` serves its own on a port of its own.  The counts must be what the
session did, whichever process answered each request or ran each job.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import redis
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.faults.players import pick
from tests.harness.deployment import Client, free_port, wait_until

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(*ports: int) -> Samples:
    """Every ``red7_`` sample of the processes on ``ports``, summed across them (as a PromQL ``sum`` would)."""
    summed: Samples = defaultdict(float)
    for port in ports:
        text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name.startswith("red7_"):
                    summed[(sample.name, tuple(sorted(sample.labels.items())))] += sample.value
    return summed


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, series), v in samples.items() if n == name and wanted <= set(series))


def test_a_scripted_session_moves_every_counter_by_what_it_did(tmp_path, deployment):
    files = tmp_path / "metrics"
    files.mkdir()
    api_port, worker_ports = free_port(), [free_port(), free_port()]
    base = deployment.api(workers=2, RED7_METRICS_PORT=str(api_port), PROMETHEUS_MULTIPROC_DIR=str(files))
    workers = [deployment.worker(f"worker{i}", RED7_METRICS_PORT=str(port)) for i, port in enumerate(worker_ports)]
    for worker in workers:
        deployment.wait_listening(worker)
    wait_until(lambda: _answers(api_port) and all(_answers(p) for p in worker_ports), 30, "every metrics port answers")

    lobby = Client(base)
    ana, bo = lobby.sign_up("Ana"), lobby.sign_up("Bo")
    game = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]})
    views = moves = 0
    deadline = time.monotonic() + 60
    while moves < 6 and time.monotonic() < deadline:
        view = ana.json("GET", f"/games/{game['id']}")
        views += 1
        if not view["legal_steps"]:
            time.sleep(0.05)  # the AI's turn: a worker plays it
            continue
        step = pick(view["legal_steps"])
        answer = ana.call("POST", f"/games/{game['id']}/actions", json={"steps": [step]})
        assert answer is not None and answer.status_code in (200, 409), answer and answer.text
        moves += answer.status_code == 200
    assert moves >= 3, "the session got going"
    missing = sum(bo.call("GET", "/games/g_nope").status_code == 404 for _ in range(3))
    with ThreadPoolExecutor(8) as pool:  # at once: both gunicorn processes answer some
        views += sum(pool.map(lambda _: ana.call("GET", f"/games/{game['id']}").status_code == 200, range(40)))

    table = bo.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "human"}]})  # stays still
    poll = threading.Thread(target=lambda: bo.call("GET", f"/games/{table['id']}/events?after={table['version']}&wait=3"))
    poll.start()
    wait_until(lambda: value(scrape(api_port), "red7_http_open_waits", kind="long_poll") == 1, 10, "the long-poll is open")
    poll.join(10)

    def settled() -> Samples:
        samples = scrape(api_port, *worker_ports)
        assert value(samples, "red7_http_open_waits", kind="long_poll") == 0
        return samples

    samples = wait_until(lambda: _idle(settled()), 20, "the workers ran every job")
    game_route = {"route": "/v1/games/<game_id>", "method": "GET"}
    assert value(samples, "red7_http_requests_total", route="/v1/players", method="POST", status="201") == 2
    assert value(samples, "red7_http_requests_total", route="/v1/games", method="POST", status="201") == 2
    assert value(samples, "red7_http_requests_total", **game_route, status="200") == views
    assert value(samples, "red7_http_requests_total", **game_route, status="404") == missing == 3
    assert value(samples, "red7_http_request_seconds_count", **game_route) == views + missing
    trips = value(samples, "red7_redis_round_trips_count", route="/v1/games/<game_id>")
    assert trips == views + missing, "every view's round trips observed once, in whichever process"
    # (a view of a game this process follows may ask Redis nothing: the token and the fold cached, changes tracked)
    assert 0 < value(samples, "red7_redis_round_trips_sum", route="/v1/games/<game_id>") <= 12 * trips
    acted = total(samples, "red7_http_requests_total", route="/v1/games/<game_id>/actions", method="POST")
    assert acted == len([a for a in ana.answers if a.path.endswith("/actions")])
    assert len(list(files.glob("counter_*.db"))) == 2, "both gunicorn processes counted, and the master summed them"
    assert value(samples, "red7_jobs_total", kind="ai_turn", outcome="finished") >= 1
    assert value(samples, "red7_ai_turn_delay_seconds_count") == total(samples, "red7_jobs_total", kind="ai_turn")
    assert value(samples, "red7_job_seconds_count", kind="ai_turn") == total(samples, "red7_jobs_total", kind="ai_turn")
    assert value(samples, "red7_queue_depth", shard="0", queue="games") == 0
    assert not any(v.startswith(("g_", "p_")) for _, series in samples for _, v in series), "no game or player ids"


def test_the_time_keepers_and_the_projections_say_what_they_owe_as_a_session_makes_and_settles_it(tmp_path, deployment):
    """The workers' metrics of issue 41 after their sessions: the matchmaker's pass and a pool's tickets (one waiting,
    then none: seated), a rated game behind its ladder and then on it, an over game owed compaction and then packed,
    and the agenda's looks overdue while the ticker is behind (two thousand planted a minute late), then none."""
    files = tmp_path / "metrics"
    files.mkdir()
    quick = {"RED7_COMPACT_AFTER": "2"}  # an over game's grace: two seconds
    port = free_port()
    base = deployment.api(workers=2, PROMETHEUS_MULTIPROC_DIR=str(files), **quick)
    worker = deployment.worker("worker", RED7_METRICS_PORT=str(port), **quick)
    deployment.wait_listening(worker)
    wait_until(lambda: _answers(port), 30, "the worker's metrics port answers")

    def now(name: str, **labels: str) -> float:
        return value(scrape(port), name, **labels)

    lobby = Client(base)
    ana, bo = lobby.sign_up("Ana"), lobby.sign_up("Bo")
    pool = "advanced-plain-casual-60s"
    ana.json("POST", "/match-tickets", expect=201, json={"player_counts": [2], "ai_fill_after": 300})
    wait_until(lambda: now("red7_matchmaking_tickets", pool=pool) == 1, 10, "the pool says Ana's ticket waits")
    bo.json("POST", "/match-tickets", expect=201, json={"player_counts": [2], "ai_fill_after": 300})
    wait_until(lambda: now("red7_matchmaking_tickets", pool=pool) == 0, 10, "the pool says nobody waits: seated")
    assert now("red7_matchmaker_pass_seconds_count") >= 2

    rated = ana.json(
        "POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "random"}], "rated": True}
    )
    ana.json("POST", f"/games/{rated['id']}/leave")  # resigns: the AI plays it out, its ladder takes it
    wait_until(lambda: now("red7_ratings_behind_games", shard="0") == 1, 30, "the finished game behind its ladder")
    wait_until(lambda: now("red7_ratings_behind_games", shard="0") == 0, 30, "its ladder has it, and a look saw it")
    wait_until(lambda: now("red7_compaction_pending_games", shard="0") == 0, 30, "the over game compacted")
    assert now("red7_compaction_backlog_games", shard="0") == 0

    settings = redis.Redis.from_url(deployment.env["REDIS_URL"])
    late = int(time.time() * 1000) - 60_000
    settings.zadd(f"{deployment.prefix}agenda", {f"g_gone{n:04d}": late for n in range(2000)})
    wait_until(lambda: now("red7_deadlines_overdue", shard="0") > 0, 10, "the ticker says it is behind", every=0.02)
    wait_until(lambda: now("red7_deadlines_overdue", shard="0") == 0, 60, "the ticker caught up", every=0.1)
    assert settings.zcard(f"{deployment.prefix}agenda") < 10


def _answers(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/metrics", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _idle(samples: Samples) -> Samples | None:
    """``samples`` once no queue holds a job (each worker's scrape reads the queues: summed, twice the depth)."""
    return samples if total(samples, "red7_queue_depth") == 0 else None


def test_a_gunicorn_given_no_metrics_directory_makes_one_and_takes_it_away_as_it_stops(tmp_path, deployment):
    """Without ``PROMETHEUS_MULTIPROC_DIR`` the master makes a directory of its own (its workers' files in it, their
    sum served), and removes it on a graceful stop: runs started and stopped over months leave nothing in /tmp."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    deployment.env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    port = free_port()
    base = deployment.api(workers=2, RED7_METRICS_PORT=str(port), TMPDIR=str(temp))
    master = deployment.started[-1]
    Client(base).sign_up("Ana")
    wait_until(lambda: _answers(port), 30, "the master's metrics port answers")
    made = list(temp.glob("red7-metrics-*"))
    assert len(made) == 1 and any(made[0].glob("*.db")), made
    assert value(scrape(port), "red7_http_requests_total", route="/v1/players", method="POST", status="201") == 1
    master.terminate()  # SIGTERM: gunicorn's graceful stop
    assert master.wait(timeout=30) == 0
    assert not made[0].exists()
