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

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis

from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from tests.service.conftest import HUMAN, Api

try:
    from tests.service.conftest import settings_for
except ImportError:  # its earlier name
    from tests.service.conftest import test_settings as settings_for

REDIS_SERVER = shutil.which("redis-server")

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not on PATH (apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisProcess:
    """A redis-server of the test's own, with AOF fsynced on every write."""

    def __init__(self, directory: str, port: int) -> None:
        self.directory = directory
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.log = os.path.join(directory, "redis.log")

    def start(self) -> None:
        assert REDIS_SERVER is not None
        args = [
            REDIS_SERVER,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", self.directory,
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--save", "",
            "--daemonize", "no",
            "--logfile", self.log,
        ]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        probe = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5)
        try:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.process.returncode}: {self.tail()}")
                try:
                    if probe.ping():
                        return
                except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not answer on port {self.port}: {self.tail()}")
                time.sleep(0.05)
        finally:
            probe.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final fsync, no rewrite."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def tail(self) -> str:
        try:
            with open(self.log, encoding="utf-8", errors="replace") as log:
                return log.read()[-2000:]
        except OSError:
            return "(no log)"

    def clients(self) -> tuple[redis.Redis, redis.Redis]:
        return (
            redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True),
            redis.Redis(host="127.0.0.1", port=self.port),
        )


@pytest.fixture
def redis_process() -> Iterator[RedisProcess]:
    directory = tempfile.mkdtemp(prefix="red7-durability-")
    server = RedisProcess(directory, _free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


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


def _runtime(server: RedisProcess, prefix: str) -> Runtime:
    # snapshot_every small so that snapshots are written (and must survive) too
    return build_runtime(settings_for(prefix, snapshot_every=8), clients=server.clients())


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
    retry = after_api.act(game_id, last.token, last.steps, headers={"Idempotency-Key": last.idempotency_key,
                                                                   "If-Match": f'"{last.version_before}"'})
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
