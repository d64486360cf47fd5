"""Prometheus metrics (issue 41, item 1): after a scripted session on the test client and its jobs run, the counts
are what the session did; label sets are bounded (a thousand games add no series); the queues are read at a scrape."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest

from service.http.app import create_app
from service.jobqueue.metrics import QueueCollector
from service.processes.metrics import queues_of
from service.runtime import build_runtime
from tests.harness.deployment import wait_until
from tests.harness.support import HUMAN, Api, ai, settings_for
from workers.jobs import JOBS


@pytest.fixture
def measured(redis_pair, key_prefix) -> Iterator[Api]:
    runtime = build_runtime(settings_for(key_prefix, metrics_port=9464), clients=redis_pair)
    yield Api(create_app(runtime), runtime)


def play_a_turn(api: Api, token: str, view: dict) -> None:
    """The player's steps until an AI is to play (none if it is already): its turn is queued."""
    while view["legal_steps"]:
        step = next(s for s in view["legal_steps"] if s["type"] != "fold")
        moved = api.act(view["id"], token, [{k: step[k] for k in ("type", "card", "seat", "to") if k in step}])
        view = moved.get_json()


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def series() -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    samples = [s for m in REGISTRY.collect() for s in m.samples if s.name.startswith("red7_")]
    return {(s.name, tuple(sorted(s.labels.items()))) for s in samples}


def test_the_counts_are_what_a_session_did(measured):
    api = measured
    game_route = {"route": "/v1/games/<game_id>", "method": "GET"}
    before = {
        "signups": value("red7_http_requests_total", route="/v1/players", method="POST", status="201"),
        "views": value("red7_http_requests_total", **game_route, status="200"),
        "missing": value("red7_http_requests_total", **game_route, status="404"),
        "timed": value("red7_http_request_seconds_count", **game_route),
        "ai_turns": value("red7_jobs_total", kind="ai_turn", outcome="finished"),
        "ai_delays": value("red7_ai_turn_delay_seconds_count"),
        "unmatched": value("red7_http_requests_total", route="unmatched", method="GET", status="404"),
    }
    ana = api.player("Ana")
    api.player("Bo")
    game = api.game(ana["token"], [HUMAN, ai()])
    api.run_jobs()  # the AI may lead
    for _ in range(3):
        view = api.view(game["id"], ana["token"])
    for _ in range(2):
        assert api.call("GET", "/v1/games/g_nope", ana["token"]).status_code == 404
    api.call("GET", "/no/such/page")
    before_jobs = value("red7_jobs_total", kind="ai_turn", outcome="finished")
    before["ai_delays"] = value("red7_ai_turn_delay_seconds_count")
    play_a_turn(api, ana["token"], view)
    queued = sum(q.count for s in api.runtime.shards for q in s.queues)
    api.run_jobs()
    ran = value("red7_jobs_total", kind="ai_turn", outcome="finished") - before_jobs
    assert value("red7_http_requests_total", route="/v1/players", method="POST", status="201") - before["signups"] == 2
    assert value("red7_http_requests_total", **game_route, status="200") - before["views"] == 3
    assert value("red7_http_requests_total", **game_route, status="404") - before["missing"] == 2
    assert value("red7_http_request_seconds_count", **game_route) - before["timed"] == 5
    assert value("red7_http_requests_total", route="unmatched", method="GET", status="404") - before["unmatched"] == 1
    assert queued >= 1 and ran >= 1, [
        s for m in REGISTRY.collect() for s in m.samples if s.name == "red7_jobs_total"
    ]  # the AI's turns: each the job of a move, played on by the job while it can
    assert value("red7_ai_turn_delay_seconds_count") - before["ai_delays"] == ran
    assert b"red7_http_request_seconds_bucket" in generate_latest(REGISTRY)


def test_a_thousand_games_add_no_series(measured):
    """Series are per route, status and job kind: the games after the first few add none but a job kind met for the
    first time (a round scored ...), of which there are as many as registered jobs."""
    api = measured
    token = api.player("Ana")["token"]
    for _ in range(3):  # every route and outcome of the session once, so that its series exist
        game = api.game(token, [HUMAN, ai()])
        api.view(game["id"], token)
        api.call("GET", f"/v1/games/{game['id']}x", token)
        api.run_jobs()
    known = series()
    for _ in range(1000):
        game = api.game(token, [HUMAN, ai()])
        api.view(game["id"], token)
        api.call("GET", f"/v1/games/{game['id']}x", token)
    api.run_jobs()
    new = series() - known
    assert {dict(labels).get("kind") for _, labels in new} <= set(JOBS)
    assert not any(value.startswith(("g_", "p_")) for _, labels in series() for _, value in labels)


def test_a_scrape_reads_each_queues_depth_and_oldest_job(measured):
    api = measured
    token = api.player("Ana")["token"]
    play_a_turn(api, token, api.game(token, [HUMAN, ai()]))  # an AI turn queued, waiting for a worker
    registry = CollectorRegistry()
    now = [0.0]
    registry.register(QueueCollector(lambda: queues_of(api.runtime), clock=lambda: now[0]))
    now[0] = time.time() + 5
    assert registry.get_sample_value("red7_queue_depth", {"shard": "0", "queue": "games"}) == 1
    assert registry.get_sample_value("red7_queue_depth", {"shard": "0", "queue": "push"}) == 0
    assert 4.5 < registry.get_sample_value("red7_queue_oldest_seconds", {"shard": "0", "queue": "games"}) < 10
    api.run_jobs()
    assert registry.get_sample_value("red7_queue_depth", {"shard": "0", "queue": "games"}) == 0
    assert registry.get_sample_value("red7_queue_oldest_seconds", {"shard": "0", "queue": "games"}) == 0


def test_the_open_waits_gauge_counts_long_polls_waiting_views_and_streams_while_they_are_open(measured):
    api = measured
    ana = api.player("Ana")["token"]
    game = api.game(ana, [HUMAN, HUMAN])
    auth = {"Authorization": f"Bearer {ana}"}
    waiting = {  # each waits a second for the game to move on from its version
        "long_poll": (f"/v1/games/{game['id']}/events?after={game['version']}&wait=1", auth),
        "view": (f"/v1/games/{game['id']}?wait=1", {**auth, "If-None-Match": f'"{game["version"]}"'}),
    }
    client = api.client.application.test_client
    for kind, (path, headers) in waiting.items():
        before = value("red7_http_open_waits", kind=kind)
        poll = threading.Thread(target=lambda path=path, headers=headers: client().get(path, headers=headers))
        poll.start()
        wait_until(lambda kind=kind, before=before: value("red7_http_open_waits", kind=kind) == before + 1, 5, f"{kind} open")
        poll.join(5)
        assert value("red7_http_open_waits", kind=kind) == before, kind
    before = value("red7_http_open_waits", kind="stream")
    ticket = api.call("POST", f"/v1/games/{game['id']}/stream-tickets", ana).get_json()["ticket"]
    stream = api.client.get(f"/v1/games/{game['id']}/stream?ticket={ticket}", buffered=False)
    assert stream.status_code == 200
    assert value("red7_http_open_waits", kind="stream") == before + 1
    stream.close()
    assert value("red7_http_open_waits", kind="stream") == before
