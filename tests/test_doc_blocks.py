"""The blocks of docs/ that the other tests do not run, run as printed against the servers they are written for.

- the quick-match ``curl`` of docs/finding-games.md, against ``red7 serve --embedded`` (the one change: its port);
- the webhook check of docs/live-feeds.md, on deliveries that server really sent to a receiver of this test;
- the browser's stream-ticket snippet of docs/live-feeds.md, in headless Chromium on a page of another origin;
- the start of docs/running.md, gunicorn and a ``red7 worker`` as printed (its Redis URL the test's own
  redis-server's, gunicorn bound to loopback), a game against an AI played to its end through them.

Every server runs on a free loopback port in a process group (or thread) of its own and is stopped by the test.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import requests

from tests.harness.browser import NO_CHROMIUM, chromium, served
from tests.harness.deployment import (
    NO_REDIS_SERVER,
    PORT_TRIES,
    REDIS_SERVER,
    Served,
    answers_200,
    descendants,
    free_port,
    red7_serve,
    redis_server,
    serving,
    stop_group,
)
from tests.harness.documents import block, commands

CURL = shutil.which("curl")
CHROMIUM_HERE = os.access("/usr/bin/chromium", os.X_OK) and os.access("/usr/bin/chromedriver", os.X_OK)
#: A page on an origin of its own: the browser snippet runs there, as a frontend's page would.
PAGE = b'<!doctype html><meta charset="utf-8"><title>a frontend</title>'


def page(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(PAGE)))])
    return [PAGE]


@pytest.fixture(scope="module")
def frontend() -> Iterator[str]:
    with served(page, "frontend-origin") as origin:
        yield origin


@pytest.fixture(scope="module")
def server(frontend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``red7 serve --embedded`` that lets the frontend's origin call it (CORS), as a deployment allows its own."""
    with red7_serve(tmp_path_factory.mktemp("serve"), RED7_CORS_ORIGINS=frontend) as running:
        yield running


def sign_up(base: str, name: str) -> dict[str, Any]:
    answer = requests.post(f"{base}/v1/players", json={"name": name}, timeout=10)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(base: str, token: str) -> str:
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
    answer = requests.post(f"{base}/v1/games", json={"seats": seats, "variant": "basic"}, headers=auth(token), timeout=10)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def play_out(base: str, token: str, game_id: str, seconds: float = 60, until: Any = None) -> dict[str, Any]:
    """Play the human seat (a step that keeps it in the round, if any) until the game is over or ``until()``; the view."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = requests.get(f"{base}/v1/games/{game_id}", headers=auth(token), timeout=10).json()
        if view["status"] == "finished" or (until is not None and until()):
            return dict(view)
        if view["legal_steps"]:
            keeping = [s for s in view["legal_steps"] if s["can_win"] and not s["eliminates"]]
            step = (keeping or view["legal_steps"])[0]
            headers = {**auth(token), "If-Match": f'"{view["version"]}"', "Idempotency-Key": str(uuid.uuid4())}
            answer = requests.post(f"{base}/v1/games/{game_id}/actions", json={"steps": [step]}, headers=headers, timeout=10)
            assert answer.status_code in (200, 409), answer.text
        else:
            time.sleep(0.05)
    raise AssertionError(f"the game {game_id} did not finish in {seconds} s")


# --- docs/finding-games.md ------------------------------------------------------------------------------------------


@pytest.mark.skipif(CURL is None, reason="needs curl (apt-get install curl; .ci/run installs it)")
def test_the_quick_match_block_opens_a_ticket(server: Served, tmp_path: Path) -> None:
    code = block("docs/finding-games.md", "Quick match", "sh")
    assert code.count("localhost:8000") == 1, "the block names the server once"
    tools = tmp_path / "bin"  # curl, and nothing else but bash's builtins
    tools.mkdir()
    assert CURL is not None
    (tools / "curl").symlink_to(CURL)
    token = sign_up(server.base, "Ticket")["token"]
    ran = subprocess.run(
        ["/bin/bash", "-euo", "pipefail", "-c", code.replace("localhost:8000", f"127.0.0.1:{server.port}")],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": str(tools), "HOME": str(tmp_path), "TOKEN": token},
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    ticket = json.loads(ran.stdout)
    assert ticket["status"] == "waiting", ticket
    assert (ticket["player_counts"], ticket["turn_seconds"], ticket["ai_fill_after"]) == ([2, 3], 60, 30), ticket
    assert ticket["ai_level"] == "greedy", ticket


# --- docs/live-feeds.md ---------------------------------------------------------------------------------------------


class Receiver(BaseHTTPRequestHandler):
    """A webhook receiver: every delivery's headers and raw body."""

    received: ClassVar[list[tuple[dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Receiver.received.append((dict(self.headers), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[str]:
    Receiver.received = []
    http = HTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=http.serve_forever, name="webhook-receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.server_port}/hook"
    finally:
        http.shutdown()
        thread.join(5)


def test_the_webhook_check_accepts_real_deliveries_and_nothing_else(server: Served, receiver: str) -> None:
    """The embedded server may call a loopback receiver (``RED7_WEBHOOK_PRIVATE_HOSTS`` is on for it)."""
    scope: dict[str, Any] = {}
    exec(compile(block("docs/live-feeds.md", "Webhooks", "python"), "docs/live-feeds.md (Webhooks)", "exec"), scope)
    verify = scope["verify"]
    token = sign_up(server.base, "Hooked")["token"]
    me = requests.patch(f"{server.base}/v1/players/me", json={"webhook_url": receiver}, headers=auth(token), timeout=10)
    assert me.status_code == 200, me.text
    secret = me.json()["webhook_secret"]
    play_out(server.base, token, new_game(server.base, token), until=lambda: Receiver.received)
    headers, body = Receiver.received[0]
    timestamp, signature = headers["X-Red7-Timestamp"], headers["X-Red7-Signature"]
    assert json.loads(body)["event"] in ("your_turn", "round_over", "game_finished"), body
    assert verify(secret, timestamp, signature, body)
    assert not verify("another secret", timestamp, signature, body)
    assert not verify(secret, timestamp, signature, body.replace(b'"version"', b'"Version"'))
    assert not verify(secret, str(int(timestamp) - 600), signature, body)  # too old, and signed for another time


#: The snippet's free names, as a page defines them, and what it did: each view refresh, each reconnection asked for.
BROWSER = """
const [api, id, token, snippet] = arguments;
const done = arguments[arguments.length - 1];
window.refreshed = []; window.reconnects = []; window.sources = [];
const refreshView = (event) => window.refreshed.push(event);
const reconnectWithNewTicket = (after) => window.reconnects.push(after);
class EventSource extends window.EventSource {
  constructor(...args) { super(...args); window.sources.push(this); }
}
new Function("api", "id", "token", "refreshView", "reconnectWithNewTicket", "EventSource",
  `return (async () => { ${snippet} })();`)(api, id, token, refreshView, reconnectWithNewTicket, EventSource)
  .then(() => done("ok"), (error) => done(String(error)));
"""


@pytest.mark.skipif(not CHROMIUM_HERE, reason=NO_CHROMIUM)
def test_the_browser_follows_its_game_with_a_stream_ticket(server: Served, frontend: str) -> None:
    pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    snippet = block("docs/live-feeds.md", "Following a game live: browsers, mobile apps, servers", "js")
    token = sign_up(server.base, "Browser")["token"]
    game_id = new_game(server.base, token)
    with chromium() as driver:
        driver.get(f"{frontend}/")
        assert driver.execute_async_script(BROWSER, server.base, game_id, token, snippet) == "ok"
        view = play_out(server.base, token, game_id)
        deadline = time.monotonic() + 20
        while driver.execute_script("return window.sources.map((s) => s.readyState)") != [2]:  # closed, on `end`
            assert time.monotonic() < deadline, driver.execute_script("return window.sources.map((s) => s.readyState)")
            time.sleep(0.1)
        refreshed = driver.execute_script("return window.refreshed")
        reconnects = driver.execute_script("return window.reconnects")
    assert view["status"] == "finished"
    played = [event for event in events(server.base, token, game_id) if event["type"] == "card_played"]
    assert refreshed == played, "every card played, the AI's as well as ours, as the feed has it"
    assert reconnects == [], "the stream closed on `end`, not on an error"


# --- docs/running.md ------------------------------------------------------------------------------------------------


def stop_tree(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process's group, then SIGKILL to whatever of its tree is left (RQ's work horse has a group of
    its own)."""
    tree = descendants(process.pid)
    stop_group(process)
    for pid in tree:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(REDIS_SERVER is None, reason=NO_REDIS_SERVER)
def test_the_start_commands_serve_a_game_to_its_end(tmp_path: Path) -> None:
    """Both lines as printed, each in bash, with the Redis URL of a redis-server of the test's own and gunicorn bound
    to a loopback port (``RED7_BIND``); the worker plays the AI and scores the round."""
    lines = commands(block("docs/running.md", "Starting it", "sh"))
    assert [line.split()[1] for line in lines] == ["gunicorn", "red7"], lines
    documented = lines[0].split()[0].split("=", 1)[1]
    assert all(line.startswith(f"REDIS_URL={documented} ") for line in lines), lines
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RED7_", "REDIS_URL"))}
    environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environ.get('PATH', '')}"  # where pip put them
    started: list[subprocess.Popen[bytes]] = []

    def start(line: str, log: Path, **env: str) -> subprocess.Popen[bytes]:
        with open(log, "wb") as out:
            process = subprocess.Popen(
                ["/bin/bash", "-c", line],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**environ, **env},
                cwd=tmp_path,
                start_new_session=True,
            )
        started.append(process)
        return process

    with redis_server(tmp_path) as redis:
        gunicorn, worker = (line.replace(documented, redis.url) for line in lines)
        try:
            start(worker, tmp_path / "worker.log")
            for _ in range(PORT_TRIES):
                port = free_port()
                api = start(gunicorn, tmp_path / f"api-{port}.log", RED7_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="1")
                base = f"http://127.0.0.1:{port}"
                if serving(api, port, tmp_path / f"api-{port}.log", answers_200(f"{base}/readyz"), "gunicorn"):
                    break
                stop_tree(api)
            else:
                raise AssertionError(f"gunicorn found no free port in {PORT_TRIES} tries")
            token = sign_up(base, "Deployed")["token"]
            view = play_out(base, token, new_game(base, token))
            assert view["status"] == "finished" and view["winner"] in (0, 1), view
            assert any(event["by"].startswith("ai:") for event in events(base, token, view["id"])), "the worker played"
        finally:
            for process in started:
                stop_tree(process)


def events(base: str, token: str, game_id: str) -> list[dict[str, Any]]:
    page = requests.get(f"{base}/v1/games/{game_id}/events", params={"limit": 500}, headers=auth(token), timeout=10)
    assert page.status_code == 200, page.text
    return list(page.json()["events"])
