"""The ladders as a projection of the finished rated games: each game applied once, in the order games finished,
however often and in whatever order its job runs; and ``red7 ratings rebuild`` finds the same bytes."""

from __future__ import annotations

import json
import random
import threading
import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Variant
from service.application.commands import NewGame, SeatRequest
from service.application.followups import Due, due
from service.application.ratings import HIDDEN_BECAUSE
from service.common.errors import NotFound
from service.domain.ratings import Applied, Placing, Result, Rules, fold
from service.processes.cli import main as red7
from service.storage.ratings import RatingStore
from workers import jobs

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def result(game_id: str, at_ms: int, *places: tuple[str, int]) -> Result:
    at = datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return Result(game_id, "basic", at, tuple(Placing(n, p, p.upper(), place) for n, (p, place) in enumerate(places)))


def some_results(count: int, seed: int) -> list[Result]:
    rng = random.Random(seed)
    players = [f"p{n}" for n in range(6)]
    out = []
    for n in range(count):
        seated = rng.sample(players, rng.randint(2, 4))
        places = list(range(1, len(seated) + 1))
        rng.shuffle(places)
        out.append(result(f"g{n:03d}", 1_780_000_000_000 + rng.randint(0, 50) * 1000, *zip(seated, places, strict=True)))
    return out


@pytest.mark.on_cluster
def test_a_game_is_applied_once_however_many_jobs_apply_it_at_once(redis_client, key_prefix):
    store = RatingStore(redis_client, key_prefix)
    game = result("g1", 1_780_000_000_000, ("a", 1), ("b", 2), ("c", 3))
    outcomes: list[bool] = []
    threads = [threading.Thread(target=lambda: outcomes.append(store.apply(game)[0])) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes) == [False] * 7 + [True], "one of eight twins applied it; the others found it applied"
    assert store.apply(game)[0] is False, "and a retry later too"
    assert store.export("basic") == fold([game])["basic"].stored()
    assert store.version("basic") == 1


@pytest.mark.on_cluster
def test_games_applied_at_once_and_out_of_order_make_the_ladder_of_the_order_they_finished(redis_client, key_prefix):
    """Jobs of one ladder race (the script's version check makes them apply one after another), and some games that
    finished earlier are applied after later ones (the ladder rewinds those and applies them again)."""
    store = RatingStore(redis_client, key_prefix)
    results = some_results(40, seed=7)
    arrival = list(results)
    random.Random(3).shuffle(arrival)
    lanes = [arrival[n::4] for n in range(4)]

    def apply_all(lane: list[Result]) -> None:
        for item in lane:
            store.apply(item)
            store.apply(item)  # and a duplicate right after

    threads = [threading.Thread(target=apply_all, args=(lane,)) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert store.export("basic") == fold(results)["basic"].stored(), "byte for byte the fold in finish order"
    assert store.version("basic") == len(results), "each game written once"


def rated_games(runtime, count: int, seed: int) -> list[str]:
    """``count`` rated all-AI games (the creator only watches), of both variants and 2 to 4 seats; their ids."""
    rng = random.Random(seed)
    creator = runtime.accounts.sign_up("Ana").player
    ids = []
    for _ in range(count):
        seats = [SeatRequest("ai", rng.choice(["random", "greedy"])) for _ in range(rng.randint(2, 4))]
        seats[0] = SeatRequest("ai", "greedy")
        seats[1] = SeatRequest("ai", "random")
        variant = rng.choice([Variant.BASIC, Variant.ADVANCED])
        game = runtime.games.create(creator, NewGame(seats, variant=variant, rated=True)).game
        ids.append(game.id)
    return ids


def test_a_rated_game_is_rated_by_its_job_once_and_the_rebuild_finds_the_same_bytes(api, runtime, capsys, monkeypatch):
    games = rated_games(runtime, 8, seed=1)
    unrated = runtime.games.create(
        runtime.accounts.sign_up("Bo").player, NewGame([SeatRequest("ai", "greedy"), SeatRequest("ai", "random")])
    ).game
    api.run_jobs()
    for game_id in games:
        game = runtime.games.load(game_id)
        assert game.status == "finished" and runtime.ratings.applied(game)
        assert jobs.rate(game_id, game.version).startswith("applied before"), "a duplicate job applies nothing"
    finished = runtime.games.load(unrated.id)
    assert finished.status == "finished" and not runtime.ratings.applied(finished)
    assert jobs.rate(unrated.id, finished.version).startswith("nothing to do")
    report = runtime.ratings.rebuild()
    assert report.games == len(games) and report.identical
    counted = sum(games for games, _, _ in report.ladders.values())
    assert counted == len(games)
    store = runtime.ratings.store
    for ladder in ("basic", "advanced"):
        exported = store.export(ladder)
        assert set(exported["games"]) <= set(games)
        assert sum(len(g) for g in exported["played"].values()) >= len(exported["games"])


def test_red7_ratings_rebuild_compares_and_repairs(api, runtime, capsys, monkeypatch, redis_pair):
    rated_games(runtime, 4, seed=2)
    api.run_jobs()
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")  # a store to read (the test's own, just below)
    monkeypatch.setattr("service.runtime.build_runtime", lambda settings: runtime)
    assert red7(["ratings", "rebuild"]) == 0
    out = capsys.readouterr().out
    assert "4 finished rated games" in out and "DIFFERENT" not in out and out.count("identical") == 2
    store = runtime.ratings.store
    ladder = next(name for name in ("basic", "advanced") if store.export(name)["games"])
    player = next(iter(store.export(ladder)["records"]))
    redis_pair[0].hset(
        store.key(ladder, "records"),
        player,
        '{"name":"x","mu":"99.000000","sigma":"1.000000","played":1,"won":1,"places":1,"by_players":{}}',
    )  # a ladder gone wrong
    assert red7(["ratings", "rebuild"]) == 1
    assert "DIFFERENT" in capsys.readouterr().out
    assert red7(["ratings", "rebuild", "--write"]) == 0
    assert red7(["ratings", "rebuild"]) == 0, "written back: the fold of the streams again"


def test_the_rate_job_is_due_when_a_rated_game_finishes_and_queued_again_until_its_ladder_has_it(api, runtime):
    (game_id,) = rated_games(runtime, 1, seed=3)
    dispatcher = runtime.dispatcher
    queue = runtime.queue
    while (game := runtime.games.load(game_id)).status != "finished":  # the AI turns, with no rate job run
        for item in due(game):
            if item.job == "ai_turn":
                jobs.ai_turn(game_id, item.version)
            elif item.job == "score_round":
                jobs.score_round(game_id, item.version)
    assert [d.job for d in due(game) if d.job != "notify"] == ["rate", "compact"]
    rate_id = Due("rate", game_id, game.version).job_id(dispatcher.namespace)
    queued = {job.id for job in queue.jobs}
    assert rate_id in queued, "the append that finished it queued the rate job"
    for job in queue.jobs:
        job.delete()  # lost: a Redis that lost its queue, or a process gone between the append and the enqueue
    runtime.raw_redis.delete(*runtime.raw_redis.keys(f"{runtime.settings.key_prefix}jobs:*") or ["none"])
    assert not runtime.ratings.applied(game)
    assert dispatcher.reoffer(game, due(game)), "the agenda's next look queues it again"
    assert rate_id in {job.id for job in queue.jobs}
    api.run_jobs()
    assert runtime.ratings.applied(game)
    assert not dispatcher.reoffer(game, due(game)), "applied: nothing more to queue"
    assert runtime.queue.count == 0


def test_ratings_of_a_player_give_each_ladder_rating_rank_history_and_record(api, runtime):
    """What a public profile (getPlayer) shows: per ladder the rating, rank, provisional flag, last changes, record."""
    ana = runtime.accounts.sign_up("Ana").player
    for variant in (Variant.BASIC, Variant.BASIC, Variant.ADVANCED):
        request = NewGame(
            [SeatRequest("human"), SeatRequest("ai", "random"), SeatRequest("ai", "greedy")], variant=variant, rated=True
        )
        game = runtime.games.create(ana, request).game
        runtime.games.leave(game.id, ana)  # resigns: last, and the AIs play it out
    api.run_jobs()
    mine = runtime.ratings.ratings_of(ana.id)
    assert mine["player_id"] == ana.id and set(mine["ladders"]) == {"basic", "advanced"}
    basic = mine["ladders"]["basic"]
    assert basic["played"] == 2 and basic["won"] == 0 and basic["average_place"] == 3.0
    assert basic["by_players"] == {"3": {"played": 2, "won": 0, "average_place": 3.0}}
    assert basic["provisional"] and basic["counted"] == 2, "two results against AI levels: still provisional"
    assert basic["rank"] is None and basic["ranked"] == 2, "the leaderboard ranks the AI levels (anchors), not her yet"
    history = basic["history"]
    assert len(history) == 2 and all(h["place"] == 3 and h["players"] == 3 and h["change"] < 0 for h in history)
    assert all(h["counted"] and h["not_counted"] is None for h in history), "the AI levels count for a newcomer"
    assert history[0]["finished_at"] >= history[1]["finished_at"], "the latest first"
    assert history[0]["before"] == history[1]["after"], "one game's rating after is the next one's before"
    assert basic["rating"] == history[0]["after"]
    assert runtime.ratings.ratings_of("p_nobody") == {"player_id": "p_nobody", "ladders": {}}


# --- the rules against farming, stored (issue 34) -----------------------------------------------------------------

#: Rules small enough that a few games make ratings established and pairs reach their limit
#: (service/domain/ratings/counting.py).
SMALL = Rules(established_sigma=8.0, established_games=2, pair_limit=2, pair_window_ms=20_000)


def mixed_results(draw: st.DrawFn) -> list[Result]:
    players = ["p0", "p1", "p2", "p3", "ai:random", "ai:greedy"]
    out = []
    for n in range(draw(st.integers(1, 24))):
        seated = draw(st.lists(st.sampled_from(players), min_size=2, max_size=4, unique=True))
        places = draw(st.lists(st.integers(1, 4), min_size=len(seated), max_size=len(seated)))
        at = 1_780_000_000_000 + draw(st.integers(0, 60)) * 1000
        out.append(result(f"g{n:03d}", at, *zip(seated, places, strict=True)))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.composite(mixed_results)(), st.randoms(use_true_random=False), st.data())
def test_with_the_rules_at_work_the_stored_ladder_is_its_rebuild_whatever_order_games_are_applied_in(
    redis_client, key_prefix, results, rng, data
):
    """The ladder a store keeps, its games applied in any order (some twice), and players hidden and shown again
    between them, is byte for byte the fold of its games in the order they finished less the hidden players:
    which results count (established opponents, the pair limit) never depends on the order jobs ran in."""
    prefix = f"{key_prefix}{uuid.uuid4().hex[:8]}:"
    store = RatingStore(redis_client, prefix, rules=SMALL)
    arrival = list(results) + rng.sample(results, min(3, len(results)))
    rng.shuffle(arrival)
    try:
        for item in arrival:
            store.apply(item)
            if data.draw(st.booleans()):
                player = data.draw(st.sampled_from(["p0", "p1", "ai:random"]))
                if data.draw(st.booleans()):
                    store.hide("basic", player, data.draw(st.sampled_from(HIDDEN_BECAUSE)))
                else:
                    store.show("basic", player, "banned")
        hidden = store.hidden("basic")
        assert store.export("basic") == fold(results, SMALL)["basic"].stored(hidden)
        assert store.version("basic") == len({r.game_id for r in results}), "each game written once"
    finally:
        for key in redis_client.scan_iter(match=f"{prefix}*"):
            redis_client.delete(key)


@pytest.mark.on_cluster
def test_a_hidden_player_leaves_the_board_stays_off_it_and_comes_back_when_shown(redis_client, key_prefix):
    store = RatingStore(redis_client, key_prefix, rules=SMALL)
    games = [result(f"g{n}", 1_780_000_000_000 + n * 1000, ("p0", 1), ("ai:random", 2)) for n in range(5)]
    for game in games[:4]:  # p0 established after two, then they count for the AI too
        store.apply(game)
    assert set(store.export("basic")["board"]) == {"p0", "ai:random"}
    store.hide("basic", "p0", "banned")
    store.hide("basic", "p0", "deleted")
    assert store.hidden("basic") == {"p0": ("banned", "deleted")}
    store.apply(games[4])
    exported = store.export("basic")
    assert set(exported["board"]) == {"ai:random"} and set(exported["ranked"]) == {"p0", "ai:random"}
    assert store.standing("basic", "p0").rank is None and store.rank_of("basic", "p0") is None
    assert exported == fold(games, SMALL)["basic"].stored({"p0"})
    assert not store.show("basic", "p0", "banned"), "still deleted"
    assert "p0" not in store.export("basic")["board"]
    store.hide("basic", "p1", "banned")
    assert store.show("basic", "p1", "banned") and store.hidden("basic") == {"p0": ("deleted",)}
    store.hide("basic", "ai:random", "banned")
    assert store.show("basic", "ai:random", "banned"), "no reason left: back where its rating puts it"
    assert store.export("basic")["board"] == fold(games, SMALL)["basic"].stored({"p0"})["board"]


def test_a_deleted_accounts_name_leaves_every_leaderboard_its_games_stay_rated_and_the_rebuild_agrees(api, runtime):
    """Issue 34, item 1: a deleted account's name leaves getLeaderboard; its past games stay rated for the others
    (under its pseudonymous id), and ``red7 ratings rebuild`` still finds the same bytes."""
    runtime.ratings.store.rules = SMALL
    ana = runtime.accounts.sign_up("Ana").player
    for variant in [Variant.BASIC] * 4 + [Variant.ADVANCED] * 4:  # Ana established after two, then the AI too
        request = NewGame([SeatRequest("human"), SeatRequest("ai", "random")], variant=variant, rated=True)
        game = runtime.games.create(ana, request).game
        runtime.games.leave(game.id, ana)  # resigns: the AI plays it out
    api.run_jobs()
    for ladder in ("basic", "advanced"):
        board = runtime.ratings.leaderboard(ladder)
        assert {line["player_id"] for line in board["players"]} == {ana.id, "ai:random"}
        assert [line["name"] for line in board["players"] if line["player_id"] == ana.id] == ["Ana"]
    before = {ladder: runtime.ratings.store.export(ladder) for ladder in ("basic", "advanced")}
    runtime.accounts.delete(ana)
    for ladder in ("basic", "advanced"):
        board = runtime.ratings.leaderboard(ladder)
        assert [line["player_id"] for line in board["players"]] == ["ai:random"] and board["ranked"] == 1
        assert "Ana" not in json.dumps(board)
        exported = runtime.ratings.store.export(ladder)
        assert {k: v for k, v in exported.items() if k != "board"} == {k: v for k, v in before[ladder].items() if k != "board"}
        assert ana.id in exported["records"], "the pseudonymous id stays: its games stay rated for the AI"
    assert runtime.ratings.hidden_because(ana.id) == ("deleted",)
    with pytest.raises(NotFound):
        runtime.ratings.leaderboard("basic", around=ana.id)
    report = runtime.ratings.rebuild()
    assert report.identical, report.ladders
    runtime.ratings.show(ana.id, "banned")  # lifting a ban (issue 36) never brings a deleted account back
    assert ana.id not in runtime.ratings.store.export("basic")["board"]
    assert runtime.ratings.rebuild(write=True).identical


def test_the_rebuild_with_the_rules_at_work_finds_the_same_bytes_from_real_games(api, runtime):
    """Real games (people against each other and against AI levels) with rules that make some of them count and some
    not: the projection and the rebuild from the streams agree byte for byte."""
    runtime.ratings.store.rules = Rules(established_sigma=8.0, established_games=2, pair_limit=1, pair_window_ms=3_600_000)
    ana, bo = (runtime.accounts.sign_up(name).player for name in ("Ana", "Bo"))
    for n in range(6):
        against_ai = n < 4
        seats = [SeatRequest("human"), SeatRequest("ai", "random") if against_ai else SeatRequest("human")]
        creator = ana if n % 2 == 0 or not against_ai else bo
        game = runtime.games.create(creator, NewGame(seats, variant=Variant.BASIC, rated=True)).game
        if not against_ai:
            runtime.games.join(game.id, bo, game.join_code)
        runtime.games.leave(game.id, creator)  # resigns: AIs play the seats out
        if not against_ai:
            runtime.games.leave(game.id, bo)
        api.run_jobs()
    store = runtime.ratings.store
    games = [Applied.from_text(g, "basic", t) for g, t in store.export("basic")["games"].items()]
    people = [g for g in games if ana.id in g.result.players and bo.id in g.result.players]
    assert len(people) == 2 and sum(g.counted(ana.id) for g in people) == 1, "the second game of the pair did not count"
    assert any(g.limited.get(ana.id) == (bo.id,) for g in people)
    assert runtime.ratings.rebuild().identical


def test_a_rebuild_that_writes_takes_accounts_deleted_before_off_the_leaderboards(api, runtime, capsys, monkeypatch):
    """Accounts deleted before deleting one hid it from the ladders (their names stayed on getLeaderboard for good,
    issue 34): ``red7 ratings rebuild --write`` hides them; a rebuild that only compares writes nothing."""
    runtime.ratings.store.rules = SMALL
    ana, bo = (runtime.accounts.sign_up(name).player for name in ("Ana", "Bo"))
    for player in (ana, bo, ana, bo):
        game = runtime.games.create(player, NewGame([SeatRequest("human"), SeatRequest("ai", "random")], rated=True)).game
        runtime.games.leave(game.id, player)
    api.run_jobs()
    runtime.players.erase(bo.id, "2026-05-01T12:00:00.000Z")  # as an account was deleted before: the ladders not told
    assert bo.id in runtime.ratings.store.export("advanced")["board"]
    assert runtime.ratings.rebuild().hidden == [] and bo.id in runtime.ratings.store.export("advanced")["board"]
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")  # a store to read (the test's own, just below)
    monkeypatch.setattr("service.runtime.build_runtime", lambda settings: runtime)
    assert red7(["ratings", "rebuild", "--write"]) == 0
    assert "1 deleted accounts taken off the leaderboards" in capsys.readouterr().out
    exported = runtime.ratings.store.export("advanced")
    assert bo.id not in exported["board"] and {ana.id, bo.id} <= set(exported["ranked"])
    assert runtime.ratings.hidden_because(bo.id) == ("deleted",) and runtime.ratings.rebuild(write=True).hidden == []
