"""Shared fixtures: every storage-facing test runs on fakeredis and on the real Redis, the stores' contracts on a cluster too.

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

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import fakeredis
import pytest
import redis

from service.storage.connections import CLUSTER_TRANSACTIONS
from tests.deployment import NO_REDIS_CLUSTER, REDIS_CLI, REDIS_SERVER, RedisCluster, RedisServer
from tests.slots import SlotCheckedRedis

REAL_REDIS_URL = os.environ.get("RED7_TEST_REDIS_URL")
NO_REAL_REDIS_URL = "RED7_TEST_REDIS_URL is not set (CI sets it to the machine's Redis)"


def _real_redis_reason() -> str | None:
    if not REAL_REDIS_URL:
        return NO_REAL_REDIS_URL
    try:
        redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        return f"the Redis at {REAL_REDIS_URL} is unreachable: {exc}"
    return None


REAL_REDIS_SKIP = _real_redis_reason()


NO_CLUSTER_CLIENT = f"redis-py {redis.__version__} runs no transaction on a cluster (6.1+): the service refuses one with it"
BACKENDS = ["fakeredis", pytest.param("real", marks=pytest.mark.real_redis)]
CLUSTER = pytest.param("cluster", marks=pytest.mark.cluster)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses ``backend`` runs on fakeredis and the real Redis; one marked ``on_cluster`` on a cluster too."""
    if "backend" in metafunc.fixturenames:
        on_cluster = metafunc.definition.get_closest_marker("on_cluster") is not None
        metafunc.parametrize("backend", [*BACKENDS, *([CLUSTER] if on_cluster else [])], indirect=True)


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
    slot-checked (``tests/slots.py``): a script, transaction or command of theirs that a Redis Cluster would
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


def clean_real_redis(text: redis.Redis, key_prefix: str) -> None:
    """Delete this test's keys: its own prefix, and RQ's keys for its queue, jobs and workers."""
    namespace = key_prefix.replace(":", "_").strip("_")  # how RQ job ids and queue names carry the prefix
    for pattern in (f"{key_prefix}*", f"rq:*{namespace}*"):
        for key in text.scan_iter(match=pattern, count=500):
            text.delete(key)
    for member in text.smembers("rq:queues"):
        if namespace in member:
            text.srem("rq:queues", member)
    for worker in {*text.smembers("rq:workers"), *text.scan_iter(match="rq:worker:*", count=500)}:
        if text.type(worker) == "hash" and namespace in (text.hget(worker, "queues") or ""):
            text.delete(worker)
            text.srem("rq:workers", worker)


@pytest.fixture
def redis_client(redis_pair) -> redis.Redis:
    return redis_pair[0]
