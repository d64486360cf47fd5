"""A Redis Cluster primary is killed (kill -9) mid-play; its replica takes over.

Three primaries with a replica each (``cluster-node-timeout`` 1 s, AOF fsynced
on every write), the queue on a standalone redis-server beside them, gunicorn
and two ``red7 worker``s: the production shape of a scaled-out service.  Games
are played by people (over HTTP, as a frontend does) and by AIs alone.  An
append is acknowledged only once a replica holds it (``RED7_WAIT_REPLICAS=1``),
so that the replica promoted in the primary's place has every acknowledged
move.  While the cluster fails over, the games on the killed primary answer 503
(never 500) and their players ask again; the killed node comes back as a
replica (so that appends find a replica to wait for again); every game then
finishes, with every acknowledged move in its stream.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis
import requests

from service.storage.connections import CLUSTER_TRANSACTIONS
from tests.faults.players import Human, assert_every_ack_kept, play_all, play_out
from tests.harness.deployment import (
    NO_REDIS_CLUSTER,
    REDIS_CLI,
    Client,
    RedisCluster,
    RedisServer,
    processes,
    stream_events,
    wait_until,
)

pytestmark = pytest.mark.cluster


@pytest.fixture
def cluster(tmp_path) -> Iterator[RedisCluster]:
    if REDIS_CLI is None:
        pytest.skip(NO_REDIS_CLUSTER)
    if not CLUSTER_TRANSACTIONS:
        pytest.skip(f"redis-py {redis.__version__} runs no transaction on a cluster (6.1+): the service refuses one with it")
    started = RedisCluster(tmp_path / "cluster", masters=3, replicas=1, node_timeout_ms=1000)
    try:
        started.start()
        yield started
    finally:
        started.stop()


@pytest.fixture
def queue(tmp_path) -> Iterator[RedisServer]:
    (tmp_path / "queue").mkdir()
    started = RedisServer(tmp_path / "queue")
    try:
        started.start()
        yield started
    finally:
        started.stop()


def events_key(prefix: str, game_id: str) -> str:
    return f"{prefix}game:{{{game_id}}}:events"


def test_a_killed_primarys_games_answer_503_during_the_failover_and_all_finish_with_every_acknowledged_move(
    tmp_path, cluster, queue
):
    stores = cluster.client()
    env = {"RED7_QUEUE_URL": queue.url, "RED7_WAIT_REPLICAS": "1", "RED7_WAIT_REPLICAS_TIMEOUT_MS": "1000"}
    with processes(tmp_path, cluster.url, **env) as deployment:
        base = deployment.api(workers=2)
        workers = [deployment.worker(), deployment.worker()]
        lobby = Client(base)
        people = [lobby.sign_up(f"P{i}") for i in range(6)]
        watcher = lobby.sign_up("Watcher")
        human_seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
        human_games = [p.json("POST", "/games", expect=201, json={"seats": human_seats})["id"] for p in people]
        ai_seats = [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
        ai_games = [watcher.json("POST", "/games", expect=201, json={"seats": ai_seats})["id"] for _ in range(3)]
        games = human_games + ai_games
        humans = [Human([p], g) for p, g in zip(people, human_games, strict=True)]
        stop, threads = play_all(humans, 240)
        wait_until(lambda: all(len(stream_events(stores, deployment.prefix, g)) > 6 for g in games), 30, "play gets going")

        victim = cluster.primary_of(events_key(deployment.prefix, human_games[0]))
        on_victim = [g for g in games if cluster.primary_of(events_key(deployment.prefix, g)) is victim]
        print(f"\n{len(on_victim)} of {len(games)} games on the primary killed (port {victim.port})")

        seen: dict[str, list[int]] = {g: [] for g in on_victim}
        probing = threading.Event()

        def probe() -> None:  # what a frontend reading the victim's games gets during the failover
            while not probing.is_set():
                for game_id in on_victim:
                    try:
                        answer = requests.get(
                            f"{base}/v1/games/{game_id}", timeout=10, headers={"Authorization": f"Bearer {watcher.token}"}
                        )
                        seen[game_id].append(answer.status_code)
                    except requests.RequestException:
                        seen[game_id].append(0)
                time.sleep(0.05)

        prober = threading.Thread(target=probe, daemon=True)
        prober.start()
        victim.kill()
        killed = time.monotonic()
        first_key = events_key(deployment.prefix, human_games[0])

        def taken_over() -> bool:
            return cluster.primary_of(first_key) is not victim and cluster.healthy(with_replicas=False)

        wait_until(taken_over, 30, "a replica takes over", every=0.1)
        promoted = time.monotonic()
        probing.set()
        prober.join(15)
        victim.start()  # back as a replica of the promoted one: appends have a replica to wait for again
        wait_until(cluster.healthy, 30, "the killed node is back as a replica", every=0.2)
        print(f"a replica took over {promoted - killed:.1f} s after the kill")

        statuses = [s for answers in seen.values() for s in answers]
        assert 503 in statuses, f"the killed primary's games answered {sorted(set(statuses))} during the failover"
        assert not [s for s in statuses if s >= 500 and s != 503], sorted(set(statuses))

        def finished(game_id: str) -> bool:
            events = stream_events(stores, deployment.prefix, game_id)
            return bool(events) and events[-1]["type"] == "game_finished"

        play_out(humans, lambda: all(finished(g) for g in games), stop, threads)

        assert all(w.poll() is None for w in workers), "a worker exited during the failover"
        assert_every_ack_kept(humans, games, lambda game_id: stream_events(stores, deployment.prefix, game_id))
        clients = [lobby, watcher, *people]
        assert not [a for c in clients for a in c.server_errors()], deployment.logs()
        unanswered = statuses.count(503) + sum(c.statuses().count(503) for c in clients)
        print(
            f"{sum(len(h.acks) for h in humans)} actions acknowledged, every one in its stream after the failover; "
            f"{unanswered} answers 503 while the cluster failed over; no 500"
        )
    stores.close()
