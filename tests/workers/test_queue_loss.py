"""A queue Redis that lost its data: the stores' games in play put every game back on the agenda.

The agenda, the jobs and the shares live on the queue's Redis; the stores keep which games are in play
(``service/storage/inplay.py``).  The ticker rebuilds the agenda from them when its marker is missing or names
another run of the queue's Redis.  (``tests/faults/test_queue_loss.py`` wipes a real one under play.)
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from service.storage.inplay import BUCKETS, GamesInPlay, bucket_of
from tests.harness.support import HUMAN, ai, play_out
from workers.ticker import Ticker


def wipe_queue(api) -> None:
    """What the queue's Redis holds, gone (the test's stores and queue share one in-memory Redis: only the queue's
    keys go)."""
    raw = api.runtime.raw_redis
    prefix = api.runtime.settings.key_prefix
    for pattern in (f"{prefix}agenda*", "rq:*", f"{prefix}jobs:*", f"{prefix}shares*", f"{prefix}ticker", f"{prefix}analyses:*"):
        for key in raw.scan_iter(match=pattern):
            raw.delete(key)


def in_play(api) -> set[str]:
    return set(api.runtime.games.games_in_play())


@given(st.text(min_size=1, max_size=40))
def test_a_game_keeps_its_bucket(game_id):
    assert 0 <= bucket_of(game_id) < BUCKETS
    assert bucket_of(game_id) == bucket_of(str(game_id))


def test_the_index_spreads_over_its_buckets(api):
    index = GamesInPlay(api.runtime.redis, "idx-test:")
    ids = [f"g_{n:04d}" for n in range(200)]
    for game_id in ids:
        index.add(game_id)
    assert set(index.scan()) == set(ids)
    assert len({bucket_of(g) for g in ids}) == BUCKETS
    assert "g_0001" in index and "g_9999" not in index
    index.discard("g_0001")
    assert "g_0001" not in index


def test_a_game_is_in_play_from_its_creation_until_it_owes_nothing(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    waiting = api.game(token, [HUMAN, HUMAN], listed=True)
    assert {game["id"], waiting["id"]} <= in_play(api)  # a table waiting for its players too
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"
    # Unrated, it still owes its compaction (RED7_COMPACT_AFTER after its end): in play until then, so that a queue
    # Redis lost meanwhile has it compacted all the same.
    assert game["id"] in in_play(api)
    assert waiting["id"] in in_play(api)
    grace = api.runtime.settings.compact_after
    api.runtime.clock = api.runtime.dispatcher.clock = lambda: datetime.now(UTC) + timedelta(seconds=grace + 1)
    api.run_jobs()  # the ticker finds it due, the job compacts it
    assert api.runtime.store.compacted(game["id"])
    api.runtime.dispatcher.agenda.look_at(game["id"], 0)
    Ticker(api.runtime, "test").tick()  # its next look: nothing more to do
    assert game["id"] not in in_play(api)  # it owes nothing more
    assert waiting["id"] in in_play(api)


def test_a_queue_redis_wiped_gets_every_game_in_play_back_on_its_way(api):
    token = api.player()["token"]
    ai_game = api.game(token, [ai("random"), ai("greedy")])  # its AI's job queued
    timed = api.game(token, [HUMAN, ai()], turn_timeout=600, seed=4)  # a deadline on the agenda
    wipe_queue(api)
    agenda = api.runtime.dispatcher.agenda
    assert agenda.when(ai_game["id"]) is None and api.runtime.queue.count == 0
    ticker = Ticker(api.runtime, "test")
    assert ticker.tick() >= 2  # put back on the agenda, due now, and looked at at once
    assert ticker.seeded == 1
    assert [j.args[0] for j in api.runtime.queue.get_jobs()] == [ai_game["id"]]
    api.run_jobs()
    assert api.view(ai_game["id"], token)["status"] == "finished"
    # The deadline is on the agenda again, at its time; it fires then.
    assert agenda.when(timed["id"]) is not None
    ticker.tick()
    assert ticker.seeded == 1  # the marker names this run: not rebuilt at every tick
    api.runtime.dispatcher.clock = lambda: datetime.now(UTC) + timedelta(seconds=601)
    agenda.look_at(timed["id"], 0)
    ticker.tick()
    assert "turn_deadline" in [j.func_name for j in api.runtime.queue.get_jobs()]


def test_analyses_asked_for_and_not_done_are_back_in_their_askers_turns_after_the_queue_is_wiped(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    games = []
    for player, seed in ((ana, 5), (bo, 6), (ana, 7)):
        game = api.game(player["token"], [HUMAN, ai("greedy")], variant="basic", seed=seed)
        play_out(api, game["id"], player["token"])
        games.append(game["id"])
    for player, game_id in zip((ana, bo, ana), games, strict=True):
        assert api.call("POST", f"/v1/games/{game_id}/analysis", player["token"]).status_code == 202
    queue = api.runtime.shards[0].analyses
    running = queue.take("an analyst that dies with the queue", 0)
    assert running is not None and running.subject == f"game:{games[0]}"
    api.runtime.analyses.run(games[2])  # done before the loss: nothing to put back
    Ticker(api.runtime, "settle").tick()  # the agenda's marker, noted on this run
    wipe_queue(api)
    assert queue.waiting() == [] and queue.running() == {}
    ticker = Ticker(api.runtime, "test")
    ticker.tick()
    assert ticker.seeded == 1
    assert sorted(queue.waiting()) == sorted([(ana["id"], f"game:{games[0]}"), (bo["id"], f"game:{games[1]}")])
    api.run_jobs()
    assert all(api.runtime.analyses.done(g) for g in games)
    assert list(api.runtime.analyses.pending()) == []


def test_a_marker_that_names_another_run_of_the_queue_redis_rebuilds_the_agenda(api, monkeypatch):
    """A restart under ``appendfsync everysec`` keeps the marker but may have lost the last second of the agenda."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()], turn_timeout=600, seed=4)
    ticker = Ticker(api.runtime, "test")
    ticker.tick()
    assert ticker.seeded == 1
    agenda = api.runtime.dispatcher.agenda
    agenda.forget(game["id"])  # lost in the last second before a crash
    monkeypatch.setattr(Ticker, "run_id", lambda self: "a later run")
    ticker._run_checked = 0.0  # as if a second went by
    ticker.tick()
    assert ticker.seeded == 2
    assert agenda.when(game["id"]) is not None


def test_an_earlier_look_stays_when_the_agenda_is_rebuilt(api):
    agenda = api.runtime.dispatcher.agenda
    agenda.look_at("g_early", 1000)
    agenda.look_at("g_late", 10**13)
    agenda.seed(["g_early", "g_late", "g_new"], 5000)
    assert (agenda.when("g_early"), agenda.when("g_late"), agenda.when("g_new")) == (1000, 5000, 5000)


def test_a_game_that_is_gone_or_over_leaves_the_index_when_the_ticker_looks(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    api.run_jobs()
    games = api.runtime.games
    games.in_play.add(game["id"])  # as a crash between its last append and its leaving would leave it
    games.in_play.add("g_not_there")  # as a crash between its entry and its first append would
    api.runtime.dispatcher.compact_after = 0  # over games are not compacted here: it owes nothing more
    wipe_queue(api)
    ticker = Ticker(api.runtime, "test")
    ticker.tick()
    assert not {game["id"], "g_not_there"} & in_play(api)
    assert api.runtime.dispatcher.agenda.when(game["id"]) is None


def test_games_made_before_the_index_was_kept_are_entered_by_red7_migrate(api):
    token = api.player()["token"]
    done = api.game(token, [ai("random"), ai("greedy")])
    api.run_jobs()
    playing = api.game(token, [HUMAN, ai()], turn_timeout=600, seed=4)
    waiting = api.game(token, [HUMAN, HUMAN], listed=True)
    games = api.runtime.games
    for game_id in (done["id"], playing["id"], waiting["id"]):
        games.in_play.discard(game_id)  # as a store written before the index was kept holds them
    looked, entered = games.index_games_in_play()
    assert looked >= 3 and entered >= 2
    assert {playing["id"], waiting["id"]} <= in_play(api) and done["id"] not in in_play(api)
    assert games.index_games_in_play()[1] == entered  # again: the same
