"""getPlayerStatistics and getGameStatistics over HTTP, on fakeredis and the real Redis: a game played through the
API counted as it finishes (and once, however often its finish is seen), by handle or id, a hidden archive and a
deleted account on both routes, the filters and their refusals, the document's schemas."""

from __future__ import annotations

import pytest

from tests.service.http.test_api_profiles import finished_game, player

pytestmark = pytest.mark.every_store


def test_a_finished_game_is_counted_for_its_players_and_everyone(api):
    ana, bo = player(api, "Ana", "Ana_S"), player(api, "Bo", "Bo_S")
    empty = api.call("GET", "/v1/players/Ana_S/statistics").get_json()
    assert empty["games"] == 0 and empty["accuracy"] == [] and empty["seats"] == []
    before = api.call("GET", "/v1/statistics").get_json()
    game_id = finished_game(api, ana, bo)
    game = api.runtime.games.load(game_id)
    api.runtime.statistics.count(game)  # the finish seen again: counted once
    by_handle = api.call("GET", "/v1/players/Ana_S/statistics")
    assert by_handle.status_code == 200 and by_handle.headers["Cache-Control"] == "private"
    stats = by_handle.get_json()
    assert stats == api.call("GET", f"/v1/players/{ana['id']}/statistics").get_json()
    assert stats["player_id"] == ana["id"] and stats["games"] == 1
    winner = game.state.winner
    assert stats["won"] == (1 if winner == 0 else 0)
    assert stats["seats"] == [{"seat": 0, "games": 1, "won": stats["won"], "percent": 100.0 * stats["won"]}]
    assert sum(p["count"] for p in stats["places"]) == 1
    assert stats["rounds_won"] == sum(r["count"] for r in stats["rounds_won_by_rule"])
    everyone = api.call("GET", "/v1/statistics?variant=basic&players=2")
    assert everyone.headers["Cache-Control"] == "public, max-age=30"
    group = everyone.get_json()["groups"]
    assert len(group) == 1 and group[0]["games"] == 1 + next(
        g["games"] for g in before["groups"] if g["variant"] == "basic" and g["players"] == 2
    )
    assert group[0]["rules"] and abs(sum(r["percent"] for r in group[0]["rules"]) - 100) < 1


def test_a_hidden_archive_and_a_deleted_account_hold_on_the_statistics(api):
    ana, bo = player(api, "Ana", "Ana_H"), player(api, "Bo", "Bo_H")
    finished_game(api, ana, bo)
    assert api.call("PATCH", "/v1/players/me", ana["token"], json={"archive_hidden": True}).status_code == 200
    others = api.call("GET", "/v1/players/Ana_H/statistics", bo["token"]).get_json()
    assert others["games"] == 0 and others["rounds_won"] == 0
    assert api.call("GET", "/v1/players/Ana_H/statistics").get_json()["games"] == 0
    assert api.call("GET", "/v1/players/Ana_H/statistics", ana["token"]).get_json()["games"] == 1
    assert api.call("DELETE", "/v1/players/me", bo["token"]).status_code == 204
    for ref in ("Bo_H", bo["id"]):
        gone = api.call("GET", f"/v1/players/{ref}/statistics")
        assert gone.status_code == 404 and gone.get_json()["code"] == "player_not_found"
    assert "Bo" not in api.call("GET", "/v1/statistics").get_data(as_text=True)


def test_bad_filters_are_refused_with_a_problem(api):
    for query in ("players=5", "players=two", "variant=huge"):
        response = api.call("GET", f"/v1/statistics?{query}")
        assert response.status_code == 422 and response.content_type == "application/problem+json", query
    assert api.call("GET", "/v1/players/nobody_here/statistics").status_code == 404
