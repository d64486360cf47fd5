"""Shared fixtures, and which Redis each test runs on.

The stores' contract suites — every test that uses ``backend`` without the
HTTP app — run on fakeredis and on the real Redis, and those marked
``on_cluster`` on a Redis Cluster too: they are where the stores meet real
servers.  The suites above them (the application through HTTP, the jobs) run
on fakeredis, slot-checked (``tests/harness/slots.py``); each family of routes also has
a smoke test on the real Redis (``tests/service/http/test_real_redis.py``, marked
``every_store``).  Tests that must see both on purpose are marked so too.

The real Redis is the one named by ``RED7_TEST_REDIS_URL`` (``.ci/run`` sets it to
``redis://127.0.0.1:6379/15``).  Each test gets its own key prefix and deletes
only the keys under it.  Without the variable, or with the server unreachable,
the real-Redis half is skipped with the reason.

Tests marked ``on_cluster`` run a third time on a Redis Cluster the session
starts itself (three primaries on free loopback ports, with a standalone
redis-server beside it for the queue, as production runs them), once, on the
first test that asks for it; they need redis-server and redis-cli.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import fakeredis
import pytest
import redis

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from service.storage.connections import CLUSTER_TRANSACTIONS
from tests.harness.deployment import NO_REDIS_CLUSTER, REDIS_CLI, REDIS_SERVER, RedisCluster, RedisServer
from tests.harness.slots import SlotCheckedRedis
from tests.harness.support import REAL_REDIS_SKIP, REAL_REDIS_URL, Api, clean_real_redis, settings_for
from workers import context, notices

#: Every log line of the session held to our secrets (issue 41: no secret in any log line across the suite).
pytest_plugins = ["tests.harness.log_secrets"]

NO_CLUSTER_CLIENT = f"redis-py {redis.__version__} runs no transaction on a cluster (6.1+): the service refuses one with it"
BACKENDS = ["fakeredis", pytest.param("real", marks=pytest.mark.real_redis)]
CLUSTER = pytest.param("cluster", marks=pytest.mark.cluster)


#: What marks a test of the layers above the stores: it builds the HTTP app.
ABOVE_THE_STORES = frozenset({"app", "api"})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A contract test of the stores runs on fakeredis and the real Redis (and, marked ``on_cluster``, a cluster); a
    test of the layers above them on fakeredis only, unless it is marked ``every_store``."""
    if "backend" not in metafunc.fixturenames:
        return
    marked = metafunc.definition.get_closest_marker
    if ABOVE_THE_STORES & set(metafunc.fixturenames) and marked("every_store") is None:
        metafunc.parametrize("backend", ["fakeredis"], indirect=True)
        return
    metafunc.parametrize("backend", [*BACKENDS, *([CLUSTER] if marked("on_cluster") else [])], indirect=True)


@pytest.fixture
def backend(request) -> str:
    """Which Redis a test runs on; real-Redis runs are skipped with a reason when there is none."""
    if request.param == "real" and REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    if request.param == "cluster" and (REDIS_SERVER is None or REDIS_CLI is None):
        pytest.skip(NO_REDIS_CLUSTER)
    if request.param == "cluster" and not CLUSTER_TRANSACTIONS:
        pytest.skip(NO_CLUSTER_CLIENT)
    return str(request.param)


@dataclass
class ClusterStores:
    """The session's Redis Cluster (the stores) and the standalone Redis beside it (the queue)."""

    cluster: RedisCluster
    queue: RedisServer

    @property
    def url(self) -> str:
        return self.cluster.url

    @property
    def queue_url(self) -> str:
        return self.queue.url


@pytest.fixture(scope="session")
def cluster_stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterStores]:
    """Started once, on the first test that wants it, and stopped when the session ends."""
    if REDIS_SERVER is None or REDIS_CLI is None:
        pytest.skip(NO_REDIS_CLUSTER)
    if not CLUSTER_TRANSACTIONS:
        pytest.skip(NO_CLUSTER_CLIENT)
    directory = tmp_path_factory.mktemp("cluster")
    cluster = RedisCluster(directory / "stores", masters=3, replicas=1, appendfsync="no")
    (directory / "queue").mkdir()
    queue = RedisServer(directory / "queue", None, "no")
    try:
        cluster.start()
        queue.start()
        yield ClusterStores(cluster, queue)
    finally:
        queue.stop()
        cluster.stop()


@pytest.fixture
def key_prefix() -> str:
    return f"red7-test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture
def redis_pair(request, backend: str, key_prefix: str) -> Iterator[tuple[redis.Redis, redis.Redis]]:
    """The stores' text client and the queue's bytes client (RQ and the queue side want bytes).

    On fakeredis and the real Redis both are on one server; on the cluster the stores' client is a cluster
    client and the queue's is on the standalone Redis beside it.  On fakeredis the stores' client is
    slot-checked (``tests/harness/slots.py``): a script, transaction or command of theirs that a Redis Cluster would
    refuse for spanning two slots fails the test.
    """
    if backend == "fakeredis":
        server = fakeredis.FakeServer()
        text = SlotCheckedRedis(server=server, decode_responses=True)
        raw = fakeredis.FakeRedis(server=server)
        yield text, raw
        return
    if backend == "cluster":
        from service.storage.connections import store_client

        stores: ClusterStores = request.getfixturevalue("cluster_stores")
        text = store_client(stores.url, 64)
        raw = redis.Redis.from_url(stores.queue_url)
        yield text, raw
        for key in text.scan_iter(match=f"{key_prefix}*", count=500):  # every primary's keys, one after another
            text.delete(key)
        with stores.queue.client() as queue:
            clean_real_redis(queue, key_prefix)
        text.close()
        raw.close()
        return
    assert REAL_REDIS_URL is not None
    text = redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True)
    raw = redis.Redis.from_url(REAL_REDIS_URL)
    yield text, raw
    clean_real_redis(text, key_prefix)
    text.close()
    raw.close()


@pytest.fixture
def redis_client(redis_pair) -> redis.Redis:
    return redis_pair[0]


@pytest.fixture
def settings(key_prefix) -> Settings:
    return settings_for(key_prefix)


@pytest.fixture
def runtime(redis_pair, settings) -> Runtime:
    return build_runtime(settings, clients=redis_pair)


@pytest.fixture
def app(runtime):
    return create_app(runtime)


@pytest.fixture
def api(app: Any, runtime: Runtime) -> Iterator[Api]:
    yield Api(app, runtime)


@pytest.fixture
def jobs_installed(runtime: Runtime) -> Iterator[Runtime]:
    """Job code run in this process (``workers.context``) finds this test's runtime, and the notices' breakers start
    and end fresh: no test's receivers or stores reach the next one."""
    notices.receivers.reset()
    with context.installed(runtime):
        yield runtime
    notices.receivers.reset()
