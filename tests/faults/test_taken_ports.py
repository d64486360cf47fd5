"""A port another test's server took: the harness's servers notice and move, never talking to the other one.

The suites run side by side, each starting servers on ports it picks free.  A
test whose gunicorn found its port taken went on talking to the server that had
it (gunicorn retries its bind for seconds, and the other answered ``/readyz``
meanwhile): with the other's settings, "the address is at its cap of waits"
never came.  Here the port each server is given first is already served.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
import requests

from tests.harness import deployment as harness
from tests.harness.deployment import RedisServer, listens_on, red7_serve
from tests.harness.loopback import serving


class Impostor(BaseHTTPRequestHandler):
    """Another server on the port: it answers every GET with 200, as another test's gunicorn would."""

    def do_GET(self) -> None:
        body = b'{"impostor": true}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def impostor() -> Iterator[int]:
    """The port of a server that is not the test's, answering 200 to everything."""
    with serving(Impostor, "impostor") as server:
        yield server.port


def taken_first(port: int) -> Callable[[], int]:
    """A ``free_port`` that gives ``port`` first (as a race with another test would), then free ones."""
    picks = iter([port])
    real = harness.free_port
    return lambda: next(picks, None) or real()


def not_the_impostor(url: str) -> None:
    answer = requests.get(url, timeout=5)
    assert answer.status_code == 200 and "impostor" not in answer.text


def test_gunicorn_whose_port_is_taken_starts_again_on_another(deployment, impostor, monkeypatch):
    monkeypatch.setattr(harness, "free_port", taken_first(impostor))
    base = deployment.api(workers=1)
    port = int(base.rsplit(":", 1)[1])
    assert port != impostor
    not_the_impostor(f"{base}/readyz")
    assert listens_on(deployment.started[-1].pid, port)
    assert "Connection in use" in deployment.log_named("api")


def test_red7_serve_whose_port_is_taken_starts_again_on_another(tmp_path, impostor, monkeypatch):
    monkeypatch.setattr(harness, "free_port", taken_first(impostor))
    with red7_serve(tmp_path) as served:
        assert served.port != impostor
        not_the_impostor(f"{served.base}/healthz")
        assert listens_on(served.process.pid, served.port)
    assert any("Address already in use" in p.read_text(errors="replace") for p in tmp_path.glob("serve-*.log"))


def test_a_redis_server_whose_port_is_taken_starts_again_on_another(tmp_path, monkeypatch):
    (tmp_path / "other").mkdir()
    (tmp_path / "ours").mkdir()
    other = RedisServer(tmp_path / "other")
    other.start()
    try:
        monkeypatch.setattr(harness, "free_port", taken_first(other.port))
        ours = RedisServer(tmp_path / "ours")
        ours.start()
        try:
            assert ours.port != other.port
            assert ours.client().info("server")["process_id"] == ours.process.pid
        finally:
            ours.stop()
    finally:
        other.stop()


def test_a_restarted_redis_server_whose_port_is_taken_says_so(tmp_path: Path):
    """A restart keeps its port (its clients know no other): if another took it meanwhile, that is the error."""
    server = RedisServer(tmp_path)
    server.start()
    server.kill()
    squatter = socket.create_server(("127.0.0.1", server.port))
    try:
        with pytest.raises(RuntimeError, match=f"port {server.port} is taken"):
            server.start()
    finally:
        squatter.close()
        server.stop()


def test_listens_on_knows_whose_socket_listens():
    with socket.create_server(("127.0.0.1", 0)) as mine:
        port = mine.getsockname()[1]
        assert listens_on(os.getpid(), port)
        assert not listens_on(os.getpid(), harness.free_port())
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert not listens_on(other.pid, port)
        finally:
            other.kill()
            other.wait(10)
