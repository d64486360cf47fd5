"""Quotas: a player may be in so many unfinished games, and their games in play may hold so many AI seats."""

from __future__ import annotations

import pytest

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


@pytest.fixture
def limited(redis_pair, key_prefix):
    settings = settings_for(key_prefix, max_games_in_play=2, max_ai_seats_in_play=3)
    runtime = build_runtime(settings, clients=redis_pair)
    return Api(create_app(runtime), runtime)


def refused(api: Api, token: str, seats: list[dict]) -> dict:
    response = api.call("POST", "/v1/games", token, json={"seats": seats})
    assert response.status_code == 409, response.get_json()
    return response.get_json()


def test_a_player_in_as_many_games_as_allowed_creates_no_more_until_one_ends(limited):
    api = limited
    token = api.player()["token"]
    first = api.game(token, [HUMAN, HUMAN])
    api.game(token, [HUMAN, HUMAN])
    problem = refused(api, token, [HUMAN, HUMAN])
    assert problem["code"] == "game_limit_reached" and problem["limit"] == 2
    assert api.call("DELETE", f"/v1/games/{first['id']}", token).status_code == 200  # called off: no longer in play
    api.game(token, [HUMAN, HUMAN])


def test_a_player_in_as_many_games_as_allowed_joins_no_more(limited):
    api = limited
    ana, bo = api.player("Ana")["token"], api.player("Bo")["token"]
    api.game(bo, [HUMAN, HUMAN])
    api.game(bo, [HUMAN, HUMAN])
    open_game = api.game(ana, [HUMAN, HUMAN])
    joined = api.call("POST", f"/v1/games/{open_game['id']}/join", bo, json={"code": open_game["join_code"]})
    assert joined.status_code == 409 and joined.get_json()["code"] == "game_limit_reached"


def test_the_ai_seats_of_a_players_games_in_play_are_limited(limited):
    api = limited
    token = api.player()["token"]
    api.game(token, [HUMAN, ai(), ai()])
    problem = refused(api, token, [HUMAN, ai(), ai()])
    assert problem["code"] == "ai_seat_limit_reached" and problem["limit"] == 3 and problem["held"] == 2
    api.game(token, [HUMAN, ai()])  # 3 in all: allowed


def test_a_finished_game_frees_its_ai_seats(limited):
    api = limited
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy"), ai("random")])
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"
    api.game(token, [ai("random"), ai("greedy"), ai("random")])


def test_quotas_are_settings_with_defaults_and_zero_means_none():
    assert Settings.from_env({}).max_games_in_play == 100 and Settings.from_env({}).max_ai_seats_in_play == 24
    env = {"RED7_MAX_GAMES_IN_PLAY": "0", "RED7_MAX_AI_SEATS_IN_PLAY": "6"}
    assert (Settings.from_env(env).max_games_in_play, Settings.from_env(env).max_ai_seats_in_play) == (0, 6)
