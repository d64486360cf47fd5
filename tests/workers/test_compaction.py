"""Finished games compacted (service/application/compaction.py): after their grace, by the ticker's look and the
``compact`` job, or by ``red7 migrate``; every read, replay and verification the same after, byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from replays.verify import verify_replay
from service.application.compaction import compact_over
from service.http.app import create_app
from service.processes.cli import main as red7
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, play_out
from workers.ticker import Ticker

pytestmark = pytest.mark.every_store


def finished_game(api: Api, seed: int = 11) -> tuple[str, str]:
    """A 3-player advanced game with the action rules, all AIs, played to its end: (its creator's token, its id)."""
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), ai("random"), ai("greedy")], variant="advanced", action_rules=True, seed=seed)
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"
    return token, game["id"]


def reads(api: Api, token: str, game_id: str) -> dict[str, bytes]:
    """What a client reads of a game: its view, its events (all, and a page), its replay and the replay's file."""
    paths = [
        f"/v1/games/{game_id}",
        f"/v1/games/{game_id}/events",
        f"/v1/games/{game_id}/events?after=7&limit=5",
        f"/v1/games/{game_id}/replay",
        f"/v1/games/{game_id}/replay/export",
    ]
    out = {}
    for path in paths:
        response = api.call("GET", path, token)
        assert response.status_code == 200, (path, response.get_json())
        out[path] = response.get_data()
    return out


def later(api: Api, seconds: float) -> None:
    """Move the service's clocks on by ``seconds``."""
    api.runtime.clock = api.runtime.dispatcher.clock = lambda: datetime.now(UTC) + timedelta(seconds=seconds)


def cold(api: Api) -> Api:
    """The same stores through a runtime of its own: no fold cached, every read from Redis."""
    runtime = build_runtime(api.runtime.settings, clients=(api.runtime.redis, api.runtime.dispatcher.queue.connection))
    return Api(create_app(runtime), runtime)


def test_an_over_game_is_compacted_after_its_grace_and_reads_the_same(api):
    token, game_id = finished_game(api)
    store, agenda = api.runtime.store, api.runtime.dispatcher.agenda
    before = reads(cold(api), token, game_id)
    version = store.version(game_id)
    grace = api.runtime.settings.compact_after
    assert grace > 0
    when = agenda.when(game_id)
    now_ms = datetime.now(UTC).timestamp() * 1000
    assert when is not None and now_ms + grace * 1000 - 60_000 < when <= now_ms + grace * 1000  # its grace, from its end

    ticker = Ticker(api.runtime, "test")
    ticker.tick()
    assert api.runtime.queue.count == 0 and store.compacted(game_id) == 0  # not yet
    ticker.release()
    later(api, grace + 1)
    api.run_jobs()  # the ticker finds it due, queues ``compact``, the job compacts
    assert store.compacted(game_id) == version == store.version(game_id)
    assert api.runtime.redis.exists(store.events_key(game_id)) == 0

    again = cold(api)
    assert reads(again, token, game_id) == before  # byte for byte, folded from the packed record
    assert verify_replay(json.loads(before[f"/v1/games/{game_id}/replay/export"])).ok
    assert reads(api, token, game_id) == before  # and through the runtime that compacted it

    agenda.look_at(game_id, 0)  # its next look (a few seconds after the job): nothing more to do, it leaves the agenda
    ticker.tick()
    assert agenda.when(game_id) is None and api.runtime.queue.count == 0


def test_a_compacted_game_takes_a_rematch_offer_and_is_compacted_again(api):
    ana, bo = api.player("Ana")["token"], api.player("Bo")["token"]
    game = api.game(ana, [HUMAN, HUMAN], seed=3, variant="basic")
    game_id = game["id"]
    assert api.call("POST", f"/v1/games/{game_id}/join", bo, json={"code": game["join_code"]}).status_code == 200
    play_out(api, game_id, ana, bo)
    store, games = api.runtime.store, api.runtime.games
    assert games.compact(game_id).endswith("events compacted")
    version = store.version(game_id)
    offered = api.call("POST", f"/v1/games/{game_id}/rematch", ana, headers={"If-Match": f'"{version}"'})
    assert offered.status_code == 200, offered.get_json()
    assert store.version(game_id) > version == store.compacted(game_id)  # appended after the record, head checked
    assert not games.compacted(games.load(game_id))
    before = reads(cold(api), ana, game_id)
    assert games.compact(game_id).endswith("events compacted")
    assert store.compacted(game_id) == store.version(game_id)
    assert reads(cold(api), ana, game_id) == before


def test_a_game_in_play_is_never_compacted(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()], seed=4)
    api.run_jobs()
    assert api.runtime.games.compact(game["id"]) == "not over: nothing to compact"
    assert api.runtime.store.compacted(game["id"]) == 0


def test_red7_migrate_compacts_the_games_over_before_the_grace(api, backend, monkeypatch, capsys):
    token, over = finished_game(api)
    playing = api.game(token, [HUMAN, ai()], seed=4)["id"]
    store = api.runtime.store
    report = compact_over(store, datetime.now(UTC) - timedelta(hours=1))
    assert report.compacted == 0 and store.compacted(over) == 0  # over within the grace
    before = reads(cold(api), token, over)
    report = compact_over(store, datetime.now(UTC) + timedelta(seconds=1))
    assert report.compacted == 1 and report.skipped.get("in play") == 1, report.summary()
    assert store.compacted(over) == store.version(over) and store.compacted(playing) == 0
    assert reads(cold(api), token, over) == before
    assert compact_over(store, datetime.now(UTC) + timedelta(seconds=1)).skipped == {"compacted already": 1, "in play": 1}

    # the command: only games over for longer than RED7_COMPACT_AFTER (here: none, then every one)
    if backend == "fakeredis":
        monkeypatch.setattr("service.storage.connections.store_client", lambda url, connections: api.runtime.redis)
        monkeypatch.setenv("REDIS_URL", "redis://fakeredis.invalid:6379/0")
    else:
        from tests.harness.support import REAL_REDIS_URL

        monkeypatch.setenv("REDIS_URL", REAL_REDIS_URL or "")
    monkeypatch.setenv("RED7_KEY_PREFIX", api.runtime.settings.key_prefix)
    token, other = finished_game(api, seed=12)
    assert red7(["migrate"]) == 0
    assert "0 games compacted" in capsys.readouterr().out
    monkeypatch.setenv("RED7_COMPACT_AFTER", "0.001")
    assert red7(["migrate"]) == 0
    assert "1 games compacted" in capsys.readouterr().out
    assert store.compacted(other) == store.version(other)


@pytest.mark.on_cluster
def test_compact_over_finds_the_games_on_every_store(redis_pair, key_prefix):
    """``red7 migrate``'s pass scans every game's version key: on a cluster, on every primary."""
    from tests.harness.support import settings_for

    runtime = build_runtime(settings_for(key_prefix), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    made = [finished_game(api, seed) for seed in (11, 12, 13)]
    report = compact_over(runtime.store, datetime.now(UTC) + timedelta(seconds=1))
    assert report.compacted == 3, report.summary()
    for token, game_id in made:
        assert runtime.store.compacted(game_id) == runtime.store.version(game_id)
        assert api.view(game_id, token)["status"] == "finished"
