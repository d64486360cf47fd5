"""requestAnalysis and getAnalysis: a finished game's decision analysis, computed on its own queue (issue 23)."""

from __future__ import annotations

import json
import time

import pytest

from replays.analysis import analyse_document
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, play_out, settings_for

pytestmark = pytest.mark.every_store


def waiting(runtime):
    """The analyses waiting on the (only) queue shard, as (player, subject)."""
    return runtime.shards[0].analyses.waiting()


def finished_game(api):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("greedy")], variant="basic", seed=5)
    play_out(api, game["id"], ana["token"])
    return ana, game


def test_a_finished_game_is_analysed_on_its_own_queue_and_kept_with_its_replay(api, runtime):
    ana, game = finished_game(api)
    path = f"/v1/games/{game['id']}/analysis"
    before = api.call("GET", path)
    assert before.status_code == 404 and before.get_json()["code"] == "analysis_not_found"
    hashed = api.call("GET", f"/v1/games/{game['id']}/replay/export").get_json()["hash"]

    asked = api.call("POST", path, ana["token"])
    assert asked.status_code == 202 and asked.headers["Location"] == path
    assert asked.get_json() == {
        "game_id": game["id"],
        "replay_id": None,
        "status": "queued",
        "progress": {"done": 0, "total": 0},
        "url": path,
        "result": None,
    }
    # On the analyses' queue, in Ana's turn, never the games' (where the AI turns wait).
    assert waiting(runtime) == [(ana["id"], f"game:{game['id']}")] and runtime.queue.count == 0
    assert api.call("GET", path).get_json()["status"] == "queued"

    api.run_jobs()
    done = api.call("GET", path).get_json()
    assert done["status"] == "done"
    analysis = done["result"]
    assert done["progress"] == {"done": len(analysis["decisions"]), "total": len(analysis["decisions"])}
    assert {d["seat"] for d in analysis["decisions"]} == {0, 1}
    assert [p["seat"] for p in analysis["players"]] == [0, 1]
    replay = api.call("GET", f"/v1/games/{game['id']}/replay").get_json()
    steps = {step["index"]: step for step in replay["steps"]}
    for decision in analysis["decisions"]:
        assert steps[decision["step"]]["n"] == decision["n"] and steps[decision["step"]]["seat"] == decision["seat"]

    # Part of the replay and its export, outside the hash; the same events give byte-identical results.
    assert replay["analysis"] == analysis
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export").get_json()
    assert exported["analysis"] == analysis and exported["hash"] == hashed
    again = analyse_document({k: v for k, v in exported.items() if k != "analysis"})
    assert json.dumps(again, sort_keys=True) == json.dumps(analysis, sort_keys=True)
    assert api.call("POST", "/v1/replays", ana["token"], json=exported).status_code == 201

    # Asking again is harmless: the kept result, no job.
    twice = api.call("POST", path, ana["token"])
    assert twice.status_code == 202 and twice.get_json()["status"] == "done"
    assert waiting(runtime) == []


def test_a_token_asks_for_its_budget_of_analyses_then_429_on_both_operations(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, rate_limit_analysis="3 per hour"), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    bo, game, imported = imported_replay(api)
    games = [game["id"]]
    for seed in (6, 7):
        more = api.game(bo["token"], [HUMAN, ai("greedy")], variant="basic", seed=seed)
        play_out(api, more["id"], bo["token"])
        games.append(more["id"])
    asked = [api.call("POST", f"/v1/games/{g}/analysis", bo["token"]) for g in games]
    assert [a.status_code for a in asked] == [202, 202, 202]
    past = [
        api.call("POST", f"/v1/games/{games[0]}/analysis", bo["token"]),
        api.call("POST", f"/v1/replays/{imported['id']}/analysis", bo["token"]),
    ]
    for refused in past:
        assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited", refused.get_json()
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
    assert waiting(runtime) == [(bo["id"], f"game:{g}") for g in games], "nothing past the budget was queued"
    # Reading them is not asking: no budget; another token has its own.
    assert all(api.call("GET", f"/v1/games/{g}/analysis").status_code == 200 for g in games)
    ana = api.player("Ana")
    assert api.call("POST", f"/v1/replays/{imported['id']}/analysis", ana["token"]).status_code == 202


def test_a_game_in_play_is_not_analysed_and_an_unknown_one_is_not_found(api):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("greedy")], variant="basic", seed=5)
    for method in ("POST", "GET"):
        refused = api.call(method, f"/v1/games/{game['id']}/analysis", ana["token"])
        assert refused.status_code == 409 and refused.get_json()["code"] == "game_not_finished"
        missing = api.call(method, "/v1/games/g_nothing_here/analysis", ana["token"])
        assert missing.status_code == 404 and missing.get_json()["code"] == "game_not_found"


def test_an_analysis_is_asked_for_with_a_token(api):
    _, game = finished_game(api)
    anonymous = api.call("POST", f"/v1/games/{game['id']}/analysis")
    assert anonymous.status_code == 401


def test_an_analysis_the_queue_lost_is_queued_again_when_asked_for_later(api, runtime):
    ana, game = finished_game(api)
    path = f"/v1/games/{game['id']}/analysis"
    assert api.call("POST", path, ana["token"]).status_code == 202
    runtime.shards[0].analyses.clear()  # lost with the queue's Redis, and no ticker has put it back
    runtime.analyses.store.progress(game["id"], 3, 40, 0)  # running, last heard of long ago
    assert api.call("GET", path).get_json()["status"] == "running"
    again = api.call("POST", path, ana["token"])
    assert again.status_code == 202 and again.get_json()["status"] == "queued"
    assert waiting(runtime) == [(ana["id"], f"game:{game['id']}")]
    api.run_jobs()
    assert api.call("GET", path).get_json()["status"] == "done"


def test_an_analysis_queued_now_is_not_queued_twice_but_in_each_askers_turn(api, runtime):
    ana, game = finished_game(api)
    bo = api.player("Bo")
    path = f"/v1/games/{game['id']}/analysis"
    assert api.call("POST", path, ana["token"]).status_code == 202
    assert api.call("POST", path, ana["token"]).get_json()["status"] == "queued"
    assert waiting(runtime) == [(ana["id"], f"game:{game['id']}")]
    # Bo asks for it too: it waits in his turn as well (not behind whatever else Ana asked for), and runs once.
    assert api.call("POST", path, bo["token"]).get_json()["status"] == "queued"
    assert sorted(waiting(runtime)) == sorted([(ana["id"], f"game:{game['id']}"), (bo["id"], f"game:{game['id']}")])
    api.run_jobs()
    assert api.call("GET", path).get_json()["status"] == "done" and waiting(runtime) == []


def test_the_turns_an_ai_plays_for_a_resigned_player_count_for_no_one(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN, ai("greedy")], variant="basic", seed=9)
    assert api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]}).status_code == 200
    # Each plays one turn, then Ana resigns: an AI plays her seat to the end.
    played = set()
    for _ in range(50):
        api.run_jobs()
        view = api.view(game["id"], ana["token"])
        turn = view["turn"]["seat"] if view["turn"] else None
        if turn in (0, 1) and turn not in played:
            token = (ana, bo)[turn]["token"]
            legal = api.view(game["id"], token)["legal_steps"]
            first = next(s for s in legal if s["can_win"] and not s["draws"] and s["type"] != "fold")
            steps = [{k: first[k] for k in ("type", "card", "seat", "to") if k in first}]
            if not first["ends_turn"]:
                steps.append({"type": "end_turn"})
            assert api.act(game["id"], token, steps).status_code == 200
            played.add(turn)
        if played == {0, 1}:
            break
    assert api.call("POST", f"/v1/games/{game['id']}/leave", ana["token"]).status_code == 200
    play_out(api, game["id"], bo["token"])
    api.call("POST", f"/v1/games/{game['id']}/analysis", bo["token"])
    api.run_jobs()
    analysis = api.call("GET", f"/v1/games/{game['id']}/analysis").get_json()["result"]
    anas = [d for d in analysis["decisions"] if d["seat"] == 0]
    assert anas and anas[0]["by"] == "player" and {d["by"] for d in anas[1:]} <= {"ai"}
    assert analysis["players"][0]["decisions"] == sum(1 for d in anas if d["by"] == "player")
    assert all(d["by"] == "player" for d in analysis["decisions"] if d["seat"] != 0)


# --- imported replays ----------------------------------------------------------------------


def imported_replay(api):
    """A finished game's export, imported by Bo: what someone reviewing a replay they were sent has."""
    _, game = finished_game(api)
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export").get_json()
    bo = api.player("Bo")
    imported = api.call("POST", "/v1/replays", bo["token"], json=exported)
    assert imported.status_code == 201, imported.get_json()
    return bo, game, imported.get_json()


def test_an_imported_replay_is_analysed_as_its_game_is_and_its_replay_carries_it(api, runtime):
    bo, game, imported = imported_replay(api)
    path = f"/v1/replays/{imported['id']}/analysis"
    before = api.call("GET", path)
    assert before.status_code == 404 and before.get_json()["code"] == "analysis_not_found"

    asked = api.call("POST", path, bo["token"])
    assert asked.status_code == 202 and asked.headers["Location"] == path
    assert asked.get_json() == {
        "game_id": game["id"],
        "replay_id": imported["id"],
        "status": "queued",
        "progress": {"done": 0, "total": 0},
        "url": path,
        "result": None,
    }
    assert waiting(runtime) == [(bo["id"], f"replay:{imported['id']}")] and runtime.queue.count == 0, "the analyses' queue"
    api.run_jobs()
    done = api.call("GET", path).get_json()
    assert done["status"] == "done" and done["replay_id"] == imported["id"]

    # The same events, the same seed: byte for byte the analysis the game itself gets.
    assert api.call("POST", f"/v1/games/{game['id']}/analysis", bo["token"]).status_code == 202
    api.run_jobs()
    own = api.call("GET", f"/v1/games/{game['id']}/analysis").get_json()["result"]
    assert json.dumps(done["result"], sort_keys=True) == json.dumps(own, sort_keys=True)

    # The imported replay carries it, outside its hash; its viewer draws it.
    replay = api.call("GET", imported["url"]).get_json()
    assert replay["analysis"] == done["result"] and replay["hash"] == imported["hash"]
    page = api.call("GET", imported["view_url"]).get_data(as_text=True)
    assert '"analysis"' in page

    twice = api.call("POST", path, bo["token"])
    assert twice.status_code == 202 and twice.get_json()["status"] == "done" and waiting(runtime) == []


def test_an_imported_replays_analysis_is_asked_for_with_a_token_of_a_replay_there_is(api):
    bo, _, imported = imported_replay(api)
    assert api.call("POST", f"/v1/replays/{imported['id']}/analysis").status_code == 401
    for method in ("POST", "GET"):
        missing = api.call(method, "/v1/replays/r_nothing_here/analysis", bo["token"])
        assert missing.status_code == 404 and missing.get_json()["code"] == "not_found", method


def test_an_imported_replays_analysis_goes_when_its_import_goes(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, imported_replay_ttl=3), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    bo, _, imported = imported_replay(api)
    path = f"/v1/replays/{imported['id']}/analysis"
    assert api.call("POST", path, bo["token"]).status_code == 202
    key = runtime.imported_analyses.store.key(imported["id"])
    assert 0 < runtime.redis.pttl(key) <= 3000, "kept no longer than its import, set with the claim"
    time.sleep(3.2)
    gone = api.call("GET", path)
    assert gone.status_code == 404 and gone.get_json()["code"] == "not_found"
    # Its job, run late, writes nothing: no analysis is left behind without an expiry.
    api.run_jobs()
    assert runtime.redis.exists(key) == 0


# --- a player's mistakes across their games ---------------------------------------------------


def test_a_players_mistakes_are_gathered_from_their_analysed_games_and_the_others_named(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    shared = api.game(ana["token"], [HUMAN, HUMAN], variant="basic", seed=7)
    joined = api.call("POST", f"/v1/games/{shared['id']}/join", bo["token"], json={"code": shared["join_code"]})
    assert joined.status_code == 200
    play_out(api, shared["id"], ana["token"], bo["token"])
    later = api.game(ana["token"], [HUMAN, ai("greedy")], variant="basic", seed=5)
    play_out(api, later["id"], ana["token"])
    assert api.call("POST", f"/v1/games/{shared['id']}/analysis", ana["token"]).status_code == 202
    api.run_jobs()
    analysis = api.call("GET", f"/v1/games/{shared['id']}/analysis").get_json()["result"]

    def mine(token, label):
        answer = api.call("GET", f"/v1/players/me/mistakes?label={label}", token)
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "private", answer.get_json()
        return answer.get_json()

    worse = {"inaccuracy": {"inaccuracy", "mistake", "blunder"}, "mistake": {"mistake", "blunder"}, "blunder": {"blunder"}}
    for seat, player in ((0, ana), (1, bo)):
        for label, labels in worse.items():
            page = mine(player["token"], label)
            expected = [d for d in analysis["decisions"] if d["seat"] == seat and d["label"] in labels]
            assert [m["decision"] for m in page["mistakes"]] == expected, (seat, label)
            assert all(m["game_id"] == shared["id"] and m["seat"] == seat for m in page["mistakes"])
            for m in page["mistakes"]:
                assert m["view_url"] == f"/v1/games/{shared['id']}/replay/view#step={m['decision']['step']}"
            # The newer game, Ana's against an AI, has no analysis yet: named, so that a client can ask for it.
            assert page["unanalysed"] == ([later["id"]] if player is ana else []) and page["next_cursor"] is None
    everything = mine(ana["token"], "inaccuracy")["mistakes"]
    assert everything, "a basic game between two players who take the first winning step has inaccuracies at least"
    # Issue 38: the decisions' discards always carry draw: true (the choice to draw, where granted), so each mistake
    # says its game's variant: a basic game's discard draws nothing.
    assert {m["variant"] for m in everything} == {"basic"}


def test_a_players_mistakes_come_a_page_of_games_at_a_time(api):
    ana = api.player("Ana")
    played = []
    for seed in (5, 6, 7):
        game = api.game(ana["token"], [HUMAN, ai("random")], variant="basic", seed=seed)
        play_out(api, game["id"], ana["token"])
        played.append(game["id"])
    seen, cursor = [], None
    while True:
        query = "games=2" + (f"&cursor={cursor}" if cursor else "")
        page = api.call("GET", f"/v1/players/me/mistakes?{query}", ana["token"]).get_json()
        seen.extend(page["unanalysed"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == played[::-1], "newest game first, each once"
    for bad in ("games=0", "games=51", "label=awful", "cursor=f.1.g_x"):
        refused = api.call("GET", f"/v1/players/me/mistakes?{bad}", ana["token"])
        assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request", bad
    assert api.call("GET", "/v1/players/me/mistakes").status_code == 401
