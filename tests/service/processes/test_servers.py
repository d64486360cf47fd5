"""What the servers answer by themselves, before the app: problem+json naming the limit, on both servers users run.

gunicorn as the Dockerfile runs it (its config, gevent workers) and ``red7 serve`` (werkzeug's server), each on a
loopback port of its own, started once for the module and stopped at its end.  Each refuses a header field over
its limit (gunicorn: 8190 bytes; werkzeug: 65536), a request line over its limit (4094; 65536) and a request
that is not HTTP before any of our code runs; both answered with an HTML page.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from tests.harness.deployment import NO_REDIS_SERVER, REDIS_SERVER, processes, red7_serve, redis_server

pytestmark = [pytest.mark.slow, pytest.mark.skipif(REDIS_SERVER is None, reason=NO_REDIS_SERVER)]


@dataclass(frozen=True)
class Server:
    base: str
    max_header_bytes: int
    max_line_bytes: int

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])


@pytest.fixture(scope="module", params=["gunicorn", "red7 serve"])
def server(request, tmp_path_factory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp(request.param.replace(" ", "-"))
    if request.param == "gunicorn":
        with redis_server(directory) as redis, processes(directory, redis.url) as started:
            yield Server(started.api(workers=1), max_header_bytes=8190, max_line_bytes=4094)
    else:
        with red7_serve(directory) as served:
            yield Server(served.base, max_header_bytes=65536, max_line_bytes=65536)


def assert_problem(response: requests.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text[:300]
    assert response.headers["Content-Type"] == "application/problem+json", response.headers
    problem = response.json()
    assert problem["status"] == status and problem["code"] == code and problem["type"] == f"/v1/problems#{code}"
    assert problem["title"] and problem["detail"]
    return problem


def test_a_header_too_large_is_a_431_problem_naming_the_limit(server):
    response = requests.get(f"{server.base}/v1/players/me", headers={"Authorization": "Bearer " + "x" * 100_000}, timeout=10)
    problem = assert_problem(response, 431, "headers_too_large")
    assert problem["max_bytes"] == server.max_header_bytes and problem["max_fields"] == 100
    assert str(server.max_header_bytes) in problem["detail"]
    assert requests.get(f"{server.base}/healthz", timeout=5).status_code == 200  # and the server goes on


def test_a_request_line_too_long_is_a_414_problem_naming_the_limit(server):
    response = requests.get(f"{server.base}/v1/games/{'x' * 70_000}", timeout=10)
    problem = assert_problem(response, 414, "uri_too_long")
    assert problem["max_bytes"] == server.max_line_bytes


def test_what_is_not_http_is_a_400_problem(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") or head.startswith(b"HTTP/1.0 400 "), head
    assert b"Content-Type: application/problem+json" in head, head
    assert b'"code":"malformed_request"' in body


def test_options_on_an_api_path_is_a_204_with_allow(server):
    for path, method in (("/v1/games", "POST"), ("/v1/games/g_nope/actions", "POST"), ("/v1/players/me", "PATCH")):
        response = requests.options(f"{server.base}{path}", timeout=5)
        assert response.status_code == 204 and response.content == b"", (path, response.status_code, response.text)
        assert "Content-Type" not in response.headers, response.headers
        assert method in {m.strip() for m in response.headers["Allow"].split(",")}, response.headers
