"""requestAnalysis and getAnalysis: a finished game's decision analysis, computed on its own queue (issue 23)."""

from __future__ import annotations

import json

import pytest

from replays.analysis import analyse_document
from tests.support import HUMAN, ai, play_out

pytestmark = pytest.mark.every_store


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
        "status": "queued",
        "progress": {"done": 0, "total": 0},
        "url": path,
        "result": None,
    }
    # On the analyses' queue, never the games' (where the AI turns wait).
    assert runtime.analysis_queue.count == 1 and runtime.queue.count == 0
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
    assert runtime.analysis_queue.count == 0


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


def test_an_analysis_whose_worker_died_is_queued_again_when_asked_for_later(api, runtime):
    ana, game = finished_game(api)
    path = f"/v1/games/{game['id']}/analysis"
    assert api.call("POST", path, ana["token"]).status_code == 202
    runtime.analysis_queue.empty()  # the worker that took it died: nothing will finish it
    runtime.analyses.store.progress(game["id"], 3, 40, 0)  # running, last heard of long ago
    assert api.call("GET", path).get_json()["status"] == "running"
    again = api.call("POST", path, ana["token"])
    assert again.status_code == 202 and again.get_json()["status"] == "queued"
    assert runtime.analysis_queue.count == 1
    api.run_jobs()
    assert api.call("GET", path).get_json()["status"] == "done"


def test_an_analysis_running_now_is_not_queued_twice(api, runtime):
    ana, game = finished_game(api)
    path = f"/v1/games/{game['id']}/analysis"
    assert api.call("POST", path, ana["token"]).status_code == 202
    assert api.call("POST", path, ana["token"]).get_json()["status"] == "queued"
    assert runtime.analysis_queue.count == 1
