"""The service on a Redis Cluster: the stores on the cluster, the queue on a standalone Redis beside it.

On the cluster the session starts (tests/conftest.py ``cluster_stores``): the
composition root's split of the two, the small stores' contracts (also on
fakeredis and the real Redis), the rate limits on the cluster, and an all-AI
game played to its end in the production shape (gunicorn and ``red7 worker``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
import redis
from redis.cluster import RedisCluster

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime, connect
from service.storage.replays import ReplayStore
from service.storage.stream_tickets import Ticket, TicketStore
from tests.harness.deployment import Client, processes, stream_events, wait_until
from tests.harness.support import clean_real_redis

pytestmark = pytest.mark.cluster


def cluster_keys(client: redis.Redis | RedisCluster, pattern: str) -> list[str]:
    return sorted(client.scan_iter(match=pattern, count=500))


@pytest.fixture
def on_cluster(cluster_stores, key_prefix) -> Iterator[Settings]:
    """Settings for the session's cluster and its queue Redis; this test's keys deleted from both afterwards."""
    queue_name = key_prefix.strip(":").replace(":", "_")
    yield Settings(redis_url=cluster_stores.url, queue_url=cluster_stores.queue_url, key_prefix=key_prefix, queue_name=queue_name)
    stores = cluster_stores.cluster.client()
    for key in cluster_keys(stores, f"{key_prefix}*"):
        stores.delete(key)
    stores.close()
    with cluster_stores.queue.client() as queue:
        clean_real_redis(queue, key_prefix)


def test_the_stores_go_to_the_cluster_and_the_queue_to_its_own_redis(on_cluster, cluster_stores, key_prefix):
    stores, queue = connect(on_cluster)
    assert isinstance(stores, RedisCluster) and isinstance(queue, redis.Redis)
    assert queue.connection_pool.connection_kwargs["port"] == cluster_stores.queue.port
    runtime = build_runtime(on_cluster, clients=(stores, queue))
    runtime.store.append("g1", 0, ["a"])
    runtime.dispatcher.agenda.look_at("g1", 5_000)  # the agenda: one sorted set, on the queue's Redis
    runtime.queue.enqueue("workers.jobs.notify", "nothing")
    with cluster_stores.queue.client() as plain:
        assert plain.zscore(runtime.dispatcher.agenda.key, "g1") == 5_000
        assert plain.llen(runtime.queue.key) == 1
    assert cluster_keys(stores, f"{key_prefix}*") == [runtime.store.events_key("g1"), f"{key_prefix}game:{{g1}}:version"]
    assert cluster_keys(stores, "rq:*") == []  # nothing of RQ's on the cluster
    stores.close()
    queue.close()


def test_rq_does_not_run_on_the_cluster_even_with_hash_tagged_names(cluster_stores):
    """Why the queue cannot shard onto the cluster (issue 25, part 4): RQ 3.0 on a Redis Cluster, a shard's names
    hash-tagged.  A job id may not carry a hash tag (RQ accepts letters, digits, _ and - only), so a job's hash
    never shares its queue's slot; RQ's worker cannot be built on a cluster client (it sets the socket timeout through
    ``connection.connection_pool``, which RedisCluster has not); and RQ's global keys (``rq:queues``, written in the
    enqueue's transaction, ``rq:workers``, ``rq:suspended``) sit on slots of their own.  An enqueue with a plain id
    goes through only because redis-py's cluster pipeline is not a transaction: each key's write is sent apart."""
    from rq import Queue, SimpleWorker

    node = cluster_stores.cluster.live()[0]
    client = RedisCluster(host="127.0.0.1", port=node.port, require_full_coverage=False)  # bytes, as RQ reads them
    queue = Queue("{shard1}", connection=client)
    assert client.keyslot(queue.key) != client.keyslot("rq:queues")
    with pytest.raises(ValueError, match="letters, numbers, underscores and dashes"):
        queue.enqueue("os.getcwd", job_id="{shard1}-job")
    with pytest.raises(AttributeError, match="connection_pool"):
        SimpleWorker([queue], connection=client, name="shard1-worker")
    job = queue.enqueue("os.getcwd", job_id="shard1-probe")
    assert client.keyslot(job.key) != client.keyslot(queue.key)  # the job and its queue: two slots, no transaction
    job.delete()
    client.srem("rq:queues", queue.key)


def test_the_games_in_play_spread_over_the_clusters_slots(on_cluster, cluster_stores):
    from service.storage.inplay import BUCKETS, GamesInPlay

    client = cluster_stores.cluster.client()
    index = GamesInPlay(client, on_cluster.key_prefix)
    ids = [f"g_{n:04d}" for n in range(100)]
    for game_id in ids:
        index.add(game_id)
    assert set(index.scan()) == set(ids)
    assert len({client.keyslot(index.key(b)) for b in range(BUCKETS)}) == BUCKETS


def test_rate_limits_are_counted_on_the_cluster_under_the_prefix(on_cluster):
    settings = replace(on_cluster, rate_limit_address="3 per minute", rate_limit_token="", rate_limit_signup="")
    runtime = build_runtime(settings)
    client = create_app(runtime).test_client()
    statuses = [client.get("/v1/games/g_unknown").status_code for _ in range(4)]
    assert statuses == [404, 404, 404, 429]
    assert cluster_keys(runtime.redis, f"{on_cluster.key_prefix}limits:*"), "the limiter's keys: on the cluster, prefixed"


@pytest.mark.on_cluster
def test_a_stream_ticket_is_redeemed_while_it_lives(redis_client, key_prefix):
    tickets = TicketStore(redis_client, key_prefix, ttl=1)
    secret = tickets.issue(Ticket("p_1", "g_1", "d" * 64))
    assert tickets.redeem(secret) == Ticket("p_1", "g_1", "d" * 64)
    assert tickets.redeem("st_unknown") is None and tickets.redeem("not-a-ticket") is None
    time.sleep(1.1)
    assert tickets.redeem(secret) is None


@pytest.mark.on_cluster
def test_an_imported_replay_is_kept_once_by_its_content_and_expires(redis_client, key_prefix):
    replays = ReplayStore(redis_client, key_prefix)
    replay_id = ReplayStore.id_for({"hash": "sha256:" + "ab" * 32})
    key = f"{key_prefix}replay:{replay_id}"
    assert replays.save(replay_id, "facts", ttl=1) and not replays.save(replay_id, "facts", ttl=1)  # the second: no copy
    assert replays.get(replay_id) == "facts" and replays.exists(replay_id) and replays.get("r_unknown") is None
    assert 0 < redis_client.ttl(key) <= 1, "written with its expiry"
    time.sleep(1.1)
    assert replays.get(replay_id) is None and not replays.exists(replay_id)
    assert replays.save(replay_id, "facts", ttl=0) and redis_client.ttl(key) == -1  # 0: kept for good


@pytest.mark.slow
def test_all_ai_games_play_to_their_end_through_the_api_with_the_stores_on_a_cluster(cluster_stores, tmp_path):
    """gunicorn and a ``red7 worker`` with REDIS_URL=redis+cluster://… and RED7_QUEUE_URL on the standalone Redis."""
    stores = cluster_stores.cluster.client()
    with processes(tmp_path, cluster_stores.url, RED7_QUEUE_URL=cluster_stores.queue_url) as deployment:
        try:
            base = deployment.api(workers=1)
            deployment.worker()
            watcher = Client(base).sign_up("Watcher")
            seats = [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}, {"kind": "ai", "level": "expert"}]
            games = [watcher.json("POST", "/games", expect=201, json={"seats": seats})["id"] for _ in range(3)]

            def finished() -> bool:
                return all(watcher.json("GET", f"/games/{g}")["status"] == "finished" for g in games)

            wait_until(finished, 120, "every all-AI game finishes", every=0.5)
            for game_id in games:
                events = stream_events(stores, deployment.prefix, game_id)
                assert [e["n"] for e in events] == list(range(1, len(events) + 1)) and events[-1]["type"] == "game_finished"
                feed = watcher.json("GET", f"/games/{game_id}/events?after=0")
                assert [e["n"] for e in feed["events"]] == [e["n"] for e in events][: len(feed["events"])] != []
                assert watcher.json("GET", f"/games/{game_id}/replay")["game_id"] == game_id
            assert not watcher.server_errors(), deployment.logs()
            assert cluster_keys(stores, "rq:*") == [], "RQ keeps its keys on the queue's Redis, never on the cluster"
        finally:
            for key in cluster_keys(stores, f"{deployment.prefix}*"):
                stores.delete(key)
            stores.close()
