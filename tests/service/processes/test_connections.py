"""REDIS_URL and RED7_QUEUE_URL: which Redis serves the stores, which the queue, and the settings that cannot work."""

from __future__ import annotations

import pytest
import redis
from redis.sentinel import SentinelConnectionPool

from service.common.config import Settings
from service.processes.cli import main
from service.runtime import build_runtime, connect
from service.storage.connections import (
    BadRedisUrl,
    Locations,
    blocking_client,
    parse_locations,
    queue_client,
    store_client,
    waiting_client,
)
from service.storage.events.waiting import block_slice


@pytest.mark.parametrize(
    ("url", "locations"),
    [
        ("redis+cluster://10.0.0.1:7000", Locations(None, None, (("10.0.0.1", 7000),), "")),
        ("redis+cluster://a:7000,b:7001, c:7002", Locations(None, None, (("a", 7000), ("b", 7001), ("c", 7002)), "")),
        ("redis+cluster://s%40cret@a:7000,b:7001", Locations(None, "s@cret", (("a", 7000), ("b", 7001)), "")),
        ("redis+cluster://:pw@a:7000", Locations(None, "pw", (("a", 7000),), "")),
        ("redis+cluster://red7:pw@a:7000", Locations("red7", "pw", (("a", 7000),), "")),
        ("redis+cluster://[::1]:7000", Locations(None, None, (("::1", 7000),), "")),
    ],
)
def test_a_cluster_url_names_every_node_and_the_credentials(url, locations):
    assert parse_locations(url, "redis+cluster://") == locations


def test_a_sentinel_url_names_the_sentinels_and_the_service():
    where = parse_locations("redis+sentinel://pw@s1:26379,s2:26379/red7-queue/2", "redis+sentinel://")
    assert where == Locations(None, "pw", (("s1", 26379), ("s2", 26379)), "red7-queue/2")


@pytest.mark.parametrize("url", ["redis+cluster://", "redis+cluster://a", "redis+cluster://a:7000,b", "redis+cluster://a:x"])
def test_a_cluster_url_without_host_and_port_is_refused(url):
    with pytest.raises(BadRedisUrl, match="host:port"):
        parse_locations(url, "redis+cluster://")


def test_the_queue_on_sentinel_asks_the_sentinels_for_the_primary_of_its_service():
    client = queue_client("redis+sentinel://127.0.0.1:1,127.0.0.1:2/red7-queue", 10)  # connects only when used
    pool = client.connection_pool
    assert isinstance(pool, SentinelConnectionPool) and pool.service_name == "red7-queue" and pool.is_master
    assert [
        (c.connection_pool.connection_kwargs["host"], c.connection_pool.connection_kwargs["port"])
        for c in pool.sentinel_manager.sentinels
    ] == [("127.0.0.1", 1), ("127.0.0.1", 2)]
    with pytest.raises(BadRedisUrl, match="names no service"):
        queue_client("redis+sentinel://127.0.0.1:1", 10)


@pytest.mark.parametrize("url", ["redis://127.0.0.1:1/0", "redis+sentinel://127.0.0.1:1/red7-queue"])
def test_the_workers_wait_for_jobs_on_connections_of_their_own_that_outlast_the_wait(url):
    """RQ's workers block for minutes on BLPOP: their pool's connections wait longer than that; the queue's do not."""
    queue = queue_client(url, 10)
    worker = blocking_client(url, 10, 415)
    assert worker.connection_pool is not queue.connection_pool
    assert worker.connection_pool.connection_kwargs["socket_timeout"] == 415
    assert queue.connection_pool.connection_kwargs.get("socket_timeout") != 415
    assert (
        blocking_client("redis://127.0.0.1:1/0?socket_timeout=900", 10, 415).connection_pool.connection_kwargs["socket_timeout"]
        == 900
    )  # a longer one that the URL asks for is kept


def test_the_runtime_gives_rq_s_workers_that_client():
    settings = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:1/0", "RED7_WORKER_TTL": "60"})
    runtime = build_runtime(settings)
    assert runtime.worker_redis.connection_pool is not runtime.raw_redis.connection_pool
    assert runtime.worker_redis.connection_pool.connection_kwargs["socket_timeout"] == 60 - 15 + 10  # RQ's wait, and more


def test_the_players_feeds_wait_on_connections_of_their_own_a_heartbeat_long():
    """An idle open feed blocks a heartbeat in one XREAD, on a pool of its own, not one read every 4 s on the stores'."""
    store = store_client("redis://127.0.0.1:1/0", 10)
    waits = waiting_client(store, 25)
    assert waits.connection_pool is not store.connection_pool and waits.connection_pool.max_connections == 10
    assert waits.connection_pool.connection_kwargs["socket_timeout"] == 25
    assert waits.connection_pool.connection_kwargs["decode_responses"] and block_slice(waits) == 24
    assert block_slice(store) == 4
    longer = store_client("redis://127.0.0.1:1/0?socket_timeout=900", 10)
    assert waiting_client(longer, 25).connection_pool.connection_kwargs["socket_timeout"] == 900  # the URL's is kept
    settings = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:1/0"})
    runtime = build_runtime(settings)
    assert runtime.feeds is not None
    feeds = runtime.feeds.store
    assert feeds.waits.connection_pool is not feeds.redis.connection_pool
    assert feeds.waits.connection_pool.connection_kwargs["socket_timeout"] == settings.stream_heartbeat + 10


def test_the_queue_cannot_be_a_cluster():
    with pytest.raises(BadRedisUrl, match="RQ cannot run on a Redis Cluster"):
        queue_client("redis+cluster://127.0.0.1:7000", 10)


def test_settings_read_the_queues_url():
    settings = Settings.from_env({"REDIS_URL": "redis+cluster://a:7000", "RED7_QUEUE_URL": "redis://q:6379/0"})
    assert settings.redis_url == "redis+cluster://a:7000" and settings.queue_url == "redis://q:6379/0"


def test_without_a_queue_url_one_redis_serves_both():
    text, raw = connect(Settings(redis_url="redis://127.0.0.1:1/3"))  # connects only when used
    for client in (text, raw):
        assert isinstance(client, redis.Redis)
        assert client.connection_pool.connection_kwargs["port"] == 1 and client.connection_pool.connection_kwargs["db"] == 3
    assert text.get_encoder().decode_responses and not raw.get_encoder().decode_responses


def test_a_cluster_without_a_queue_redis_refuses_to_start(monkeypatch, capsys):
    with pytest.raises(BadRedisUrl, match="set RED7_QUEUE_URL"):
        build_runtime(Settings(redis_url="redis+cluster://127.0.0.1:7000"))
    monkeypatch.setenv("REDIS_URL", "redis+cluster://127.0.0.1:7000")
    monkeypatch.delenv("RED7_QUEUE_URL", raising=False)
    assert main(["worker"]) == 2
    assert "RQ cannot run on" in capsys.readouterr().err


def test_a_cluster_needs_a_redis_py_that_runs_transactions_on_it(monkeypatch):
    monkeypatch.setattr("service.storage.connections.CLUSTER_TRANSACTIONS", False)
    with pytest.raises(BadRedisUrl, match=r"needs redis-py 6\.1 or later"):
        connect(Settings(redis_url="redis+cluster://127.0.0.1:7000", queue_url="redis://127.0.0.1:1/0"))
