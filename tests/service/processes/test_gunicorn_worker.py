"""The gevent worker's quick readiness checks: redis-py's check that a pooled connection holds no stale reply asks
the kernel at once (timeout 0) and answers as before, any check that waits still goes through gevent, and nothing
changes without gevent."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from service.processes.gunicorn_worker import _Poll, quick_readiness_checks
from tests.harness.support import REAL_REDIS_SKIP, REAL_REDIS_URL

ROOT = Path(__file__).resolve().parents[3]


class _RecordingPoll:
    """A stand-in for gevent's poll: records the checks that go through it."""

    calls: ClassVar[list[float | None]] = []

    def __init__(self) -> None:
        self.inner = select.poll()

    def register(self, fd: object, mask: int) -> None:
        self.inner.register(fd, mask)

    def poll(self, timeout: float | None = None) -> list[tuple[int, int]]:
        _RecordingPoll.calls.append(timeout)
        return self.inner.poll(timeout)


def test_a_check_that_waits_for_nothing_asks_the_kernel_and_one_that_waits_goes_through_the_hub() -> None:
    _RecordingPoll.calls = []
    left, right = socket.socketpair()
    with left, right:
        quiet = _Poll(_RecordingPoll, select.poll)
        quiet.register(left, select.POLLIN)
        assert quiet.poll(0) == []
        right.sendall(b"+OK\r\n")
        ready = _Poll(_RecordingPoll, select.poll)
        ready.register(left, select.POLLIN)
        assert [fd for fd, _ in ready.poll(0)] == [left.fileno()]
        assert _RecordingPoll.calls == []  # neither went through the hub
        waiting = _Poll(_RecordingPoll, select.poll)
        waiting.register(left, select.POLLIN)
        assert [fd for fd, _ in waiting.poll(10)] == [left.fileno()]
        assert _RecordingPoll.calls == [10]


def test_without_gevent_nothing_changes() -> None:
    from redis._parsers import hiredis

    before = getattr(hiredis, "select", None)
    assert quick_readiness_checks() is False
    assert getattr(hiredis, "select", None) is before


def _in_gevent(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from gevent import monkey; monkey.patch_all()\n" + code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_under_gevent_it_is_installed_once_and_a_stale_reply_is_still_seen() -> None:
    out = _in_gevent(
        "import select, socket\n"
        "from redis._parsers import hiredis\n"
        "from service.processes.gunicorn_worker import _Select, quick_readiness_checks\n"
        "assert quick_readiness_checks() is True\n"
        "assert quick_readiness_checks() is False\n"
        "assert isinstance(hiredis.select, _Select) and hiredis.select.POLLIN == select.POLLIN\n"
        "left, right = socket.socketpair()\n"
        "assert not hiredis._socket_can_read(left, 0)\n"
        "right.sendall(b'+OK\\r\\n')\n"
        "assert hiredis._socket_can_read(left, 0)\n"
        "print('ok')\n"
    )
    assert out.strip() == "ok"


@pytest.mark.real_redis
def test_under_gevent_a_connection_with_a_reply_unread_reads_as_such_and_one_without_does_not() -> None:
    if REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    out = _in_gevent(
        "import os, time, redis\n"
        "from service.processes.gunicorn_worker import quick_readiness_checks\n"
        "assert quick_readiness_checks() is True\n"
        "client = redis.Redis.from_url(os.environ['URL'], max_connections=1)\n"
        "assert client.ping()\n"
        "connection = client.connection_pool.get_connection()\n"
        "assert not connection.can_read()\n"
        "connection.send_command('PING')  # its reply left unread, as a request cut short would leave it\n"
        "time.sleep(0.05)\n"
        "assert connection.can_read()\n"
        "assert connection.read_response() == b'PONG' and not connection.can_read()\n"
        "client.connection_pool.release(connection)\n"
        "assert client.echo('fresh') == b'fresh'\n"
        "print('ok')\n",
        URL=str(REAL_REDIS_URL),
    )
    assert out.strip() == "ok"
