"""Durability: what the API acknowledged survives a hard crash of Redis.

The test starts its own ``redis-server`` (a free port, a temporary directory,
AOF with ``appendfsync always``, no RDB snapshots), plays a two-human game
through the API, records every acknowledged (200) action with the events it
appended, kills the server with SIGKILL right after the last acknowledgement,
restarts it on the same directory and port, and checks through a fresh
runtime that every acknowledged event is there, byte for byte, at the
version that was acknowledged, and that every view and feed is unchanged.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis

from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from tests.harness.deployment import NO_REDIS_SERVER, REDIS_SERVER, RedisServer, redis_server
from tests.harness.support import HUMAN, Api, settings_for

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason=NO_REDIS_SERVER)


@pytest.fixture
def redis_process(tmp_path) -> Iterator[RedisServer]:
    """A redis-server of the test's own: AOF fsynced on every write, no RDB snapshots."""
    with redis_server(tmp_path) as started:
        yield started


@dataclass
class Ack:
    """An acknowledged action: who, what, the answer, and the events it appended (read right after)."""

    token: str
    steps: list[dict[str, Any]]
    idempotency_key: str
    version_before: int
    version: int
    body: dict[str, Any]
    events: list[tuple[int, str]] = field(default_factory=list)


def _runtime(server: RedisServer, prefix: str) -> Runtime:
    # snapshot_every small so that snapshots are written (and must survive) too
    clients = (server.client(), redis.Redis(host="127.0.0.1", port=server.port))
    return build_runtime(settings_for(prefix, snapshot_every=8), clients=clients)


def _legal_step(view: dict[str, Any]) -> dict[str, Any]:
    """A legal step that keeps the mover in the round if there is one (so the game goes on)."""
    options = view["legal_steps"]
    keeping = [s for s in options if s["can_win"] and not s["eliminates"]]
    chosen = (keeping or options)[0]
    return {k: chosen[k] for k in ("type", "card", "draw", "seat", "to") if k in chosen}


def _state(api: Api, runtime: Runtime, game_id: str, tokens: list[str | None]) -> dict[str, Any]:
    """Everything a client can read of the game, and the raw stream."""
    views = {}
    feeds = {}
    for token in tokens:
        response = api.call("GET", f"/v1/games/{game_id}", token)
        assert response.status_code == 200
        views[token] = (response.headers["ETag"], response.get_json())
        feed = api.call("GET", f"/v1/games/{game_id}/events?limit=500", token)
        assert feed.status_code == 200
        feeds[token] = feed.get_json()
    raw = [(e.number, e.payload) for e in runtime.store.read_all(game_id)]
    return {"version": runtime.store.version(game_id), "views": views, "feeds": feeds, "raw": raw}


def test_acknowledged_actions_survive_a_redis_crash(redis_process):
    prefix = f"red7-test:{uuid.uuid4().hex[:12]}:"
    runtime = _runtime(redis_process, prefix)
    api = Api(create_app(runtime), runtime)
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], seed=20240607)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200 and joined.get_json()["status"] == "active"
    game_id = game["id"]
    token_of = {ana["id"]: ana["token"], bo["id"]: bo["token"]}

    acks: list[Ack] = []
    rounds_scored = 0
    while len(acks) < 40:
        spectator = api.view(game_id)
        if spectator["status"] == "finished":
            break
        turn = spectator["turn"]
        token = token_of[spectator["seats"][turn["seat"]]["player_id"]] if turn else None
        view = api.view(game_id, token) if token else spectator
        if token is None or not view["legal_steps"]:
            api.run_jobs()  # a round is over: the worker scores it and deals the next (appends, acknowledged too)
            rounds_scored += 1
            assert rounds_scored < 10, "the game does not move on"
            continue
        steps = [_legal_step(view)]
        key = f"ack-{len(acks)}"
        response = api.act(game_id, token, steps, headers={"Idempotency-Key": key, "If-Match": f'"{view["version"]}"'})
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        ack = Ack(token, steps, key, view["version"], body["version"], body)
        appended = runtime.store.read(game_id, ack.version_before, ack.version - ack.version_before)
        ack.events = [(e.number, e.payload) for e in appended]
        assert [n for n, _ in ack.events] == list(range(ack.version_before + 1, ack.version + 1))
        acks.append(ack)
    assert len(acks) >= 30 and rounds_scored >= 1, (len(acks), rounds_scored)

    tokens: list[str | None] = [ana["token"], bo["token"], None]
    before = _state(api, runtime, game_id, tokens)
    assert before["version"] == acks[-1].version
    snapshot_before = runtime.store.snapshot(game_id)
    assert snapshot_before is not None, "expected a snapshot with snapshot_every=8"

    redis_process.kill()  # right after the last acknowledgement
    runtime.redis.close()
    runtime.raw_redis.close()
    redis_process.start()  # same directory, same port: it replays the AOF

    after_runtime = _runtime(redis_process, prefix)
    after_api = Api(create_app(after_runtime), after_runtime)
    stored = {e.number: e.payload for e in after_runtime.store.read_all(game_id)}
    for ack in acks:
        assert after_runtime.store.version(game_id) >= ack.version
        lost = [(n, p) for n, p in ack.events if stored.get(n) != p]
        assert not lost, f"acknowledged action {ack.steps} (version {ack.version}) lost or changed events: {lost}"
    after = _state(after_api, after_runtime, game_id, tokens)
    assert after["version"] == before["version"]
    assert after["raw"] == before["raw"]
    assert after["views"] == before["views"]
    assert after["feeds"] == before["feeds"]
    assert after_runtime.store.snapshot(game_id) == snapshot_before
    last = acks[-1]
    assert after["views"][last.token][1] == last.body, "the last acknowledged answer differs from the view after the crash"

    # The idempotency records were written with the appends: a retry after the crash replays, it does not act again.
    retry = after_api.act(
        game_id, last.token, last.steps, headers={"Idempotency-Key": last.idempotency_key, "If-Match": f'"{last.version_before}"'}
    )
    assert retry.status_code == 200 and retry.headers.get("Idempotent-Replayed") == "true"
    assert retry.get_json() == last.body
    assert after_runtime.store.version(game_id) == before["version"]

    # And the game goes on from where it was.
    mover = after["views"][None][1]["turn"]
    if mover is not None and after["views"][None][1]["status"] == "active":
        token = token_of[after["views"][None][1]["seats"][mover["seat"]]["player_id"]]
        view = after_api.view(game_id, token)
        if view["legal_steps"]:
            assert after_api.act(game_id, token, [_legal_step(view)]).status_code == 200
    after_runtime.redis.close()
    after_runtime.raw_redis.close()
