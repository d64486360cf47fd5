"""The metrics of issue 41 that the time keepers and the projections give (workers/metrics.py,
service/jobqueue/metrics.py's BacklogCollector) and the Redis round trips a request makes (service/http/metrics.py):
each moves as what it measures does."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import REGISTRY, CollectorRegistry

from service.application.commands import NewGame, SeatRequest
from service.http.app import create_app
from service.jobqueue.metrics import BacklogCollector
from service.runtime import build_runtime
from service.storage.connections import counted
from tests.harness.support import HUMAN, Api, ai, settings_for
from workers.matchmaker import Matchmaker
from workers.metrics import OVERDUE_AFTER
from workers.ticker import Ticker

pytestmark = pytest.mark.every_store


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_the_ticker_counts_the_looks_overdue_on_its_agenda_until_it_catches_up(api):
    runtime = api.runtime
    agenda = runtime.dispatcher.agenda
    now_ms = int(time.time() * 1000)
    agenda.seed([f"g_gone{n}" for n in range(7)], now_ms - 60_000)  # games long gone, a minute late
    agenda.look_at("g_due", now_ms - int(OVERDUE_AFTER * 1000) + 2_000)  # due, not late
    ticker = Ticker(runtime, "test", batch=3)
    try:
        ticker.tick()  # counts 7, looks at 3
        assert value("red7_deadlines_overdue", shard="0") == 7
        ticker.tick()
        assert value("red7_deadlines_overdue", shard="0") == 4
        ticker.tick()
        assert value("red7_deadlines_overdue", shard="0") == 1
        ticker.tick()
        assert value("red7_deadlines_overdue", shard="0") == 0
        other = Ticker(runtime, "another", batch=3)
        agenda.seed(["g_gone_again"], now_ms - 60_000)
        other.tick()  # not its role: it says 0, the holder's count is the holder's to give
        assert value("red7_deadlines_overdue", shard="0") == 0
    finally:
        ticker.release()


def test_a_matchmaker_pass_is_timed_and_each_pool_says_its_tickets_waiting(api):
    runtime = api.runtime
    ana, bo = api.player("Ana")["token"], api.player("Bo")["token"]
    opened = api.call("POST", "/v1/match-tickets", ana, json={"player_counts": [2]})
    assert opened.status_code == 201, opened.get_json()
    pool = "advanced-plain-casual-60s"
    matchmaker = Matchmaker(runtime, "test")
    try:
        passes = value("red7_matchmaker_pass_seconds_count")
        matchmaker.tick()
        assert value("red7_matchmaker_pass_seconds_count") == passes + 1
        assert value("red7_matchmaking_tickets", pool=pool) == 1
        api.call("POST", "/v1/match-tickets", bo, json={"player_counts": [2]})
        matchmaker.tick()  # finds two, seats them
        assert value("red7_matchmaking_tickets", pool=pool) == 2
        matchmaker.tick()
        assert value("red7_matchmaking_tickets", pool=pool) == 0
        assert value("red7_matchmaker_pass_seconds_count") == passes + 3
        api.call("POST", "/v1/match-tickets", ana, json={"player_counts": [3]})
        matchmaker.tick()
        assert value("red7_matchmaking_tickets", pool=pool) == 1
        matchmaker.release()
        rival = Matchmaker(runtime, "rival")
        assert rival.holds_role()
        matchmaker.tick()  # not its role any more: its pools say 0
        assert value("red7_matchmaking_tickets", pool=pool) == 0
        rival.release()
    finally:
        matchmaker.release()


def backlog(runtime, at: datetime) -> dict[str, float]:
    registry = CollectorRegistry()
    registry.register(BacklogCollector(lambda: [(s.index, s.dispatcher) for s in runtime.shards], clock=at.timestamp))
    return {s.name: s.value for m in registry.collect() for s in m.samples if s.labels == {"shard": "0"}}


def test_a_rated_game_is_behind_until_its_ladder_has_it_and_compaction_owes_it_until_it_is_packed(api):
    runtime = api.runtime
    ana = runtime.accounts.sign_up("Ana").player
    game = runtime.games.create(ana, NewGame([SeatRequest("human"), SeatRequest("ai", "random")], rated=True)).game
    now = datetime.now(UTC)
    assert backlog(runtime, now)["red7_ratings_behind_games"] == 0
    runtime.games.leave(game.id, ana)  # resigns: the AI plays it out, then its rate job applies it
    queued_rate = runtime.dispatcher.unrated
    api.run_jobs()
    assert runtime.ratings.applied(runtime.games.load(game.id))
    ended = datetime.fromisoformat(runtime.games.load(game.id).updated_at.replace("Z", "+00:00"))
    finished = backlog(runtime, ended + timedelta(seconds=30))
    if finished["red7_ratings_behind_games"]:  # owed from its end until the ticker's look after the job
        assert 29 <= finished["red7_ratings_behind_seconds"] <= 31
    grace = runtime.settings.compact_after
    assert finished["red7_compaction_pending_games"] == 1 and finished["red7_compaction_backlog_games"] == 0
    assert backlog(runtime, now + timedelta(seconds=grace + 60))["red7_compaction_backlog_games"] == 1  # past its grace
    runtime.dispatcher.agenda.look_at(game.id, 0)
    api.run_jobs()  # the look after the rate job: its ladder has it
    assert backlog(runtime, now)["red7_ratings_behind_games"] == 0 and queued_rate.redis.zcard(queued_rate.key) == 0
    runtime.clock = runtime.dispatcher.clock = lambda: datetime.now(UTC) + timedelta(seconds=grace + 1)
    api.run_jobs()  # the ticker finds its grace over, queues compact, the job packs it
    runtime.dispatcher.agenda.look_at(game.id, 0)
    api.run_jobs()  # the look after: packed, settled
    assert runtime.store.compacted(game.id)
    after = backlog(runtime, now + timedelta(seconds=grace + 60))
    assert after["red7_compaction_pending_games"] == after["red7_compaction_backlog_games"] == 0


def test_a_rated_game_whose_ladder_cannot_take_it_shows_the_ratings_behind(api, monkeypatch):
    runtime = api.runtime

    def busy(game_id: str) -> str:
        raise RuntimeError("the ladder is busy")

    monkeypatch.setattr(runtime.ratings, "apply", busy)
    ana = runtime.accounts.sign_up("Ana").player
    game = runtime.games.create(ana, NewGame([SeatRequest("human"), SeatRequest("ai", "random")], rated=True)).game
    runtime.games.leave(game.id, ana)
    api.run_jobs()  # the AI plays it out; its rate job fails (its retries wait out their pauses)
    assert runtime.games.load(game.id).status == "finished"
    runtime.dispatcher.agenda.look_at(game.id, 0)
    api.run_jobs()  # a look finds it still owed
    later = backlog(runtime, datetime.now(UTC) + timedelta(seconds=120))
    assert later["red7_ratings_behind_games"] == 1 and later["red7_ratings_behind_seconds"] >= 119


@pytest.fixture
def counted_api(redis_pair, key_prefix):
    text, raw = redis_pair
    runtime = build_runtime(settings_for(key_prefix, metrics_port=9464), clients=(counted(text), counted(raw)))
    return Api(create_app(runtime), runtime)


def test_each_request_observes_the_redis_round_trips_it_made(counted_api):
    api = counted_api
    signup, view = "/v1/players", "/v1/games/<game_id>"

    def observed(route: str) -> tuple[float, float]:
        return value("red7_redis_round_trips_count", route=route), value("red7_redis_round_trips_sum", route=route)

    before = observed(signup)
    ana = api.player("Ana")["token"]
    count, total = observed(signup)
    assert count == before[0] + 1
    assert 1 <= total - before[1] <= 16, "a sign-up writes the player in a few round trips, not dozens"
    game = api.game(ana, [HUMAN, ai()])
    api.run_jobs()
    before = observed(view)
    api.view(game["id"], ana)  # (may ask Redis nothing: the token and the fold cached, the game's changes tracked)
    count, total = observed(view)
    assert count == before[0] + 1 and 0 <= total - before[1] <= 12
    api.run_jobs()  # no request open: the jobs' round trips are nobody's
    assert observed(view) == (count, total)
    before_404 = observed("unmatched")
    api.call("GET", "/no/such/page")
    assert observed("unmatched") == (before_404[0] + 1, before_404[1])  # answered without Redis
