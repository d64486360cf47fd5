"""Queue shards (service/jobqueue/shards.py): each game served by one queue Redis of several, chosen by a stable hash of its id.

Two shards on fakeredis (two in-memory servers, the stores on the first) and on the real Redis (two databases of
it, this test's keys cleaned up in both): games spread over both, each game's jobs and agenda only on its shard,
all-AI games finish, a shard that lost its data gets back only its own games, and a shard that is away stalls
nobody else.  The production shape (two redis-servers, one killed under play) is
``tests/faults/test_queue_shards.py``.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import fakeredis
import pytest
import redis

from service.application.followups import Due
from service.http.app import create_app
from service.jobqueue.shards import QueueShard, shard_of
from service.jobqueue.worker import work
from service.runtime import build_runtime
from tests.harness.slots import SlotCheckedRedis
from tests.harness.support import HUMAN, REAL_REDIS_SKIP, REAL_REDIS_URL, Api, ai, clean_real_redis, settings_for
from tests.workers.test_jobs import Receiver, receiver  # noqa: F401 (fixture)
from workers import context, notices
from workers.analysts import AnalysisRunner
from workers.matchmaker import Matchmaker
from workers.runner import drain, thread_worker
from workers.ticker import Ticker

#: The real Redis's other database, the second shard's in the real-Redis runs (only this test's keys are touched).
SECOND_DB = 13

ALL_AI = [ai("random"), ai("greedy"), ai("random")]


# --- the shard of a game ---------------------------------------------------------------------------------------------


def test_the_shard_of_a_game_is_its_ids_crc32_mod_the_number_of_shards():
    assert [shard_of("g_abc", n) for n in (1, 2, 3, 5)] == [0, 0, 0, 3]  # crc32(b"g_abc") = 0xB43BDB64
    assert all(shard_of(f"g_{n}", 1) == 0 for n in range(100))


def test_the_shard_of_a_game_is_the_same_in_every_process():
    """Never Python's ``hash`` (salted per process): other processes with other hash seeds find the same shards."""
    ids = [f"g_{uuid.uuid4().hex[:12]}" for _ in range(200)]
    here = [shard_of(game_id, 3) for game_id in ids]
    code = "import sys; from service.jobqueue.shards import shard_of; print(','.join(str(shard_of(g, 3)) for g in sys.argv[1:]))"
    for seed in ("1", "2"):
        found = subprocess.run(
            [sys.executable, "-c", code, *ids],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert [int(n) for n in found.stdout.strip().split(",")] == here


@pytest.mark.parametrize("count", [2, 3, 4])
def test_games_spread_evenly_over_the_shards(count):
    ids = [f"g_{uuid.uuid4().hex[:12]}" for _ in range(20_000)]
    spread = collections.Counter(shard_of(game_id, count) for game_id in ids)
    assert sorted(spread) == list(range(count))
    assert all(abs(n - len(ids) / count) < 0.05 * len(ids) / count for n in spread.values()), spread


# --- two shards under the application ----------------------------------------------------------------------------------


@dataclass
class Sharded:
    """An API whose runtime has two queue shards (the stores beside the first)."""

    api: Api
    #: The in-memory servers (the stores and shard 0's, then shard 1's), to take away; ``None`` on the real Redis.
    servers: list[fakeredis.FakeServer] | None
    #: Deletes what the second shard holds for this test (its Redis lost its data).
    wipe_second: Callable[[], None]


def in_memory(key_prefix: str) -> Sharded:
    """Two in-memory servers: the stores and the first shard on one, the second shard on the other."""
    stores, second = fakeredis.FakeServer(), fakeredis.FakeServer()
    text = SlotCheckedRedis(server=stores, decode_responses=True)
    queues = [fakeredis.FakeRedis(server=stores), fakeredis.FakeRedis(server=second)]
    runtime = build_runtime(settings_for(key_prefix), clients=(text, queues[0]), queues=queues)
    return Sharded(Api(create_app(runtime), runtime), [stores, second], queues[1].flushall)


@pytest.fixture(params=["fakeredis", pytest.param("real", marks=pytest.mark.real_redis)])
def sharded(request, key_prefix: str) -> Iterator[Sharded]:
    settings = settings_for(key_prefix)
    if request.param == "fakeredis":
        yield in_memory(key_prefix)
        return
    if REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    assert REAL_REDIS_URL is not None
    second_url = urlsplit(REAL_REDIS_URL)._replace(path=f"/{SECOND_DB}").geturl()  # the URL's own db wins over db=
    first = redis.Redis.from_url(REAL_REDIS_URL)
    other = redis.Redis.from_url(second_url)
    text = redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True)
    other_text = redis.Redis.from_url(second_url, decode_responses=True)
    assert other.connection_pool.connection_kwargs["db"] != first.connection_pool.connection_kwargs["db"]
    runtime = build_runtime(settings, clients=(text, first), queues=[first, other])
    try:
        yield Sharded(Api(create_app(runtime), runtime), None, lambda: clean_real_redis(other_text, key_prefix))
    finally:
        clean_real_redis(text, key_prefix)
        clean_real_redis(other_text, key_prefix)
        for client in (first, other, text, other_text):
            client.close()


def games_on_both(api: Api, token: str, seats: list[dict[str, Any]], each: int = 3, **options: Any) -> dict[int, list[str]]:
    """Games made until each shard serves ``each`` at least: their ids by shard."""
    by_shard: dict[int, list[str]] = {0: [], 1: []}
    for _ in range(60):
        game_id = api.game(token, seats, **options)["id"]
        by_shard[shard_of(game_id, 2)].append(game_id)
        if all(len(ids) >= each for ids in by_shard.values()):
            return by_shard
    raise AssertionError(f"60 games and a shard has fewer than {each}: {by_shard}")


def jobs_on(shard: QueueShard) -> list[str]:
    return [job_id for queue in shard.queues for job_id in queue.job_ids]


def agenda_of(shard: QueueShard) -> set[str]:
    return {member.decode() for member in shard.connection.zrange(shard.agenda.key, 0, -1)}


def test_each_games_jobs_and_agenda_are_on_its_shard_alone_and_every_all_ai_game_finishes(sharded):
    api = sharded.api
    runtime = api.runtime
    assert len(runtime.shards) == 2 and runtime.dispatcher is runtime.shards[0].dispatcher
    token = api.player()["token"]
    by_shard = games_on_both(api, token, ALL_AI)
    for index, shard in enumerate(runtime.shards):
        mine, theirs = by_shard[index], by_shard[1 - index]
        queued = jobs_on(shard)
        # One AI turn on its way per player *per shard* (RED7_AI_TURNS_PER_PLAYER: 1), the others in line on the agenda.
        assert len(queued) == 1 and any(g in queued[0] for g in mine), (index, queued)
        assert not [job for job in queued if any(g in job for g in theirs)], "another shard's game's job"
        assert set(mine) <= agenda_of(shard) and not agenda_of(shard) & set(theirs)
    api.run_jobs()
    for ids in by_shard.values():
        assert all(api.view(g, token)["status"] == "finished" for g in ids)


def test_a_games_deadline_is_kept_by_its_shards_ticker(sharded):
    api = sharded.api
    token = api.player()["token"]
    by_shard = games_on_both(api, token, [HUMAN, ai()], each=1, turn_timeout=600)
    for index, shard in enumerate(api.runtime.shards):
        assert set(by_shard[index]) <= agenda_of(shard)  # its deadline or its AI's turn, there and only there
        assert not agenda_of(shard) & set(by_shard[1 - index])


def test_a_shard_that_lost_its_data_gets_back_its_own_games_alone(sharded):
    api = sharded.api
    runtime = api.runtime
    token = api.player()["token"]
    by_shard = games_on_both(api, token, [HUMAN, ai()], each=2, turn_timeout=600)  # each on its agenda till its deadline
    first, second = runtime.shards
    tickers = [Ticker(runtime, "test", shard=shard) for shard in runtime.shards]
    for ticker in tickers:
        ticker.tick()  # each agenda marked seeded on its shard (a first tick finds no marker)
    assert [ticker.seeded for ticker in tickers] == [1, 1]
    before = agenda_of(first)
    sharded.wipe_second()  # the second shard's data gone (on the real Redis, shared, this test's keys)
    assert agenda_of(second) == set()
    tickers[1].tick()
    assert tickers[1].seeded == 2
    assert agenda_of(second) == {g for g in runtime.games.games_in_play() if shard_of(g, 2) == 1}
    assert set(by_shard[1]) <= agenda_of(second)
    tickers[0].tick()
    assert tickers[0].seeded == 1 and agenda_of(first) == before  # the first shard's agenda was never lost


def test_a_game_left_on_another_shards_agenda_is_dropped_from_it(sharded):
    """After a change of the list of shards a game may sit on the agenda of a shard that no longer serves it: that
    shard's ticker drops it without queueing anything there (its own shard's ticker has it)."""
    api = sharded.api
    runtime = api.runtime
    token = api.player()["token"]
    game_id = games_on_both(api, token, [HUMAN, ai()], each=1, turn_timeout=600)[1][0]
    first = runtime.shards[0]
    first.agenda.look_at(game_id, 0)
    queued = jobs_on(first)
    Ticker(runtime, "test", shard=first).tick()
    assert game_id not in agenda_of(first) and jobs_on(first) == queued


def test_a_shard_away_stalls_its_games_alone(key_prefix):
    """The second shard's server goes away: the first shard's games play on, its ticker and runners never touch
    the second; the matchmaker holds its role on whichever shard answers first.  (In memory only: the real Redis is
    shared, and its databases cannot be taken away; ``tests/faults/test_queue_shards.py`` kills a real one.)"""
    sharded = in_memory(key_prefix)
    api, servers = sharded.api, sharded.servers
    assert servers is not None
    runtime = api.runtime
    token = api.player()["token"]
    by_shard = games_on_both(api, token, ALL_AI, each=2)
    first, second = runtime.shards
    servers[1].connected = False
    with pytest.raises(redis.ConnectionError):
        second.connection.ping()
    with pytest.raises(redis.ConnectionError):
        Ticker(runtime, "test", shard=second).tick()
    ticker = Ticker(runtime, "test", shard=first)
    worker = thread_worker(runtime, shard=first)
    for _ in range(400):
        ticker.tick()
        if not sum(queue.count for queue in first.queues):
            break
        work(worker, burst=True)
    assert all(api.view(g, token)["status"] == "finished" for g in by_shard[0])
    matchmaker = Matchmaker(runtime, "test")
    assert matchmaker.holds_role()  # on the first shard
    servers[0].connected = False  # the stores too: only the role is asked here
    servers[1].connected = True
    assert matchmaker.holds_role() and matchmaker._on == 1  # the first shard away: the role on the second
    servers[0].connected = True
    assert matchmaker.holds_role() and matchmaker._on == 0
    drain(runtime)  # the second shard back: its games move on
    assert all(api.view(g, token)["status"] == "finished" for ids in by_shard.values() for g in ids)


def test_a_shard_away_stalls_its_analyses_alone(key_prefix):
    """Each analysis waits on its subject's shard; an analyst serves every shard in turn, and passes over one that is
    away: the other shard's analyses go on, and the away one's once it is back."""
    sharded = in_memory(key_prefix)
    api, servers = sharded.api, sharded.servers
    assert servers is not None
    runtime = api.runtime
    token = api.player()["token"]
    two = [ai("random"), ai("greedy")]
    by_shard = games_on_both(api, token, two, each=2, variant="basic")
    drain(runtime)
    first, second = by_shard[0][:2], by_shard[1][0]
    for game_id in (*first, second):
        assert api.call("POST", f"/v1/games/{game_id}/analysis", token).status_code == 202
    assert [len(shard.analyses.waiting()) for shard in runtime.shards] == [2, 1], "each on its game's shard"
    servers[1].connected = False
    stop = threading.Event()
    analyst = AnalysisRunner(runtime, stop, "analyst")
    try:
        deadline = time.monotonic() + 60
        while not all(runtime.analyses.done(g) for g in first):  # taken in turn: the second shard asked between
            assert time.monotonic() < deadline, "the first shard's analyses, the second away"
            time.sleep(0.1)
        assert runtime.analyses.get(second).status == "queued"
        servers[1].connected = True
        while not runtime.analyses.done(second):
            assert time.monotonic() < deadline, "the second shard's analysis, once it is back"
            time.sleep(0.1)
    finally:
        servers[1].connected = True
        stop.set()
        analyst.finish(time.monotonic() + 10)


def test_a_runtime_has_a_shard_per_url_each_with_its_own_clients():
    """From the settings (no client handed in): a shard per URL of RED7_QUEUE_URL, in order, each with its own pool
    and a pool of its own for RQ's workers' blocking wait; one URL makes one shard and routes nothing."""
    from service.common.config import Settings

    urls = "redis://127.0.0.1:1/3,redis://127.0.0.1:2/4"
    settings = Settings(redis_url="redis://127.0.0.1:1/0", queue_url=urls, key_prefix="red7-test:shards:")
    runtime = build_runtime(settings)  # redis-py connects on the first command: nothing is reached here
    found = [
        (shard.index, shard.connection.connection_pool.connection_kwargs, shard.worker_connection.connection_pool)
        for shard in runtime.shards
    ]
    assert [(index, kwargs["port"], kwargs["db"]) for index, kwargs, _ in found] == [(0, 1, 3), (1, 2, 4)]
    assert all(pool is not shard.connection.connection_pool for (_, _, pool), shard in zip(found, runtime.shards, strict=True))
    assert all(pool.connection_kwargs["socket_timeout"] > 60 for _, _, pool in found)  # outlasts RQ's blocking wait
    assert runtime.raw_redis is runtime.shards[0].connection and runtime.queue is runtime.shards[0].queue
    assert runtime.games.followups is runtime.followups and runtime.followups is not runtime.dispatcher
    assert {runtime.shard_of(f"g_{n}").index for n in range(20)} == {0, 1}
    single = build_runtime(Settings(redis_url="redis://127.0.0.1:1/0", key_prefix="red7-test:shards:"))
    assert len(single.shards) == 1 and single.followups is single.dispatcher


def test_a_moves_notices_and_a_failed_deliverys_retry_are_on_the_games_shard(sharded, receiver):  # noqa: F811
    """The notices job of a game on the second shard is queued there, and the delivery it hands to its receiver's line
    (the receiver answers 503) is queued there too: nothing on the first shard."""
    api, runtime = sharded.api, sharded.api.runtime
    notices.receivers.reset()
    with context.installed(runtime):
        token = api.player()["token"]
        ana = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).get_json()
        game_id = next(g for g in (f"g_{n}" for n in range(100)) if shard_of(g, 2) == 1)
        first, second = runtime.shards
        Receiver.status = 503
        runtime.followups.notify([Due("notify", game_id, 1, (ana["id"], "your_turn"))])
        assert [job.func_name for job in second.webhook_queue.jobs] == ["notices"] and first.webhook_queue.count == 0
        thread_worker(runtime, [second.webhook_queue], second).work(burst=True, max_jobs=1, logging_level="CRITICAL")
        assert len(Receiver.received) == 1
        retry = Due("notify", game_id, 1, (ana["id"], "your_turn")).job_id(second.dispatcher.namespace)
        assert second.webhook_queue.job_ids == [retry] and first.webhook_queue.count == 0
    notices.receivers.reset()
