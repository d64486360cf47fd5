"""``red7 serve``: the address it tells webhooks to link to when the embedded store runs its workers in-process, and
what it says when its port is taken."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from service.processes.cli import local_base_url, port_taken


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8000, "http://127.0.0.1:8000"),
        ("0.0.0.0", 8080, "http://127.0.0.1:8080"),  # every interface: reached on loopback here
        ("::", 8000, "http://127.0.0.1:8000"),
        ("::1", 8000, "http://[::1]:8000"),
        ("red7.local", 80, "http://red7.local:80"),
    ],
)
def test_the_local_base_url_of_a_served_address(host, port, url):
    assert local_base_url(host, port) == url


def test_a_taken_port_says_that_port_exists_and_starts_nothing(tmp_path):
    """Issue 38: werkzeug's own words on a taken port name no way out; ``red7 serve`` says ``--port`` exists (and
    keeps "Address already in use", which tests/harness/deployment.py reads), before it starts any worker."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert port_taken("127.0.0.1", port) is not None
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("RED7_", "REDIS_URL"))}
        ran = subprocess.run(
            [sys.executable, "-m", "service.processes.cli", "serve", "--embedded", "--port", str(port)],
            capture_output=True, text=True, timeout=60, env=environ, cwd=tmp_path,
        )  # fmt: skip
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "--port" in ran.stderr and f"--port {port + 1}" in ran.stderr and "Address already in use" in ran.stderr
    assert "embedded mode" not in ran.stdout, "nothing started"


def test_a_free_port_is_free():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
    assert port_taken("127.0.0.1", port) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["worker"],
        ["migrate"],
        ["ratings", "rebuild"],
        ["archive", "rebuild"],
        ["stats", "rebuild"],
        ["admin", "queues"],
        ["apps", "list"],
        ["mod", "words", "list"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_deployments_command_without_redis_url_says_what_it_needs_and_exits_2(argv, monkeypatch, capsys) -> None:
    """An embedded store lives in the ``red7 serve --embedded`` that made it: the operator's commands have nothing to
    open without REDIS_URL, and each says so in one line naming itself (service/processes/deployed.py)."""
    from service.processes.cli import main

    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(argv) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"red7 {argv[0]} needs REDIS_URL: ") and said.count("\n") == 1, said
