"""Fault tests: the service as production runs it (redis-server with AOF, gunicorn, `red7 worker`s), broken for real.

They are slow (a long-poll waits as long as a client does), so ``python3 dev.py
test`` runs them in a process of their own beside the rest of the suite.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.deployment import NO_REDIS_SERVER, REDIS_SERVER, Processes, RedisServer, processes, redis_server

pytestmark = pytest.mark.fault


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/faults/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.fault)
            item.add_marker(pytest.mark.slow)
            if REDIS_SERVER is None:
                item.add_marker(pytest.mark.skip(reason=NO_REDIS_SERVER))


@pytest.fixture
def server(tmp_path) -> Iterator[RedisServer]:
    """A redis-server of this test's own, AOF fsynced on every write."""
    with redis_server(tmp_path) as started:
        yield started


@pytest.fixture
def deployment(tmp_path, server) -> Iterator[Processes]:
    """Where the test starts gunicorn and workers on ``server``; all stopped at the end."""
    with processes(tmp_path, server.url) as started:
        yield started
