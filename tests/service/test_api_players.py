"""Players: creation, tokens, the caller's profile and games."""

from __future__ import annotations

from tests.service.conftest import HUMAN, ai


def test_creating_a_player_returns_its_id_and_a_token_once(api):
    response = api.call("POST", "/v1/players", json={"name": "Ana"})
    assert response.status_code == 201
    body = response.get_json()
    assert body["name"] == "Ana" and body["id"].startswith("p_") and body["token"].startswith("r7_")
    assert response.headers["Location"] == f"/v1/players/{body['id']}"
    me = api.call("GET", "/v1/players/me", body["token"]).get_json()
    assert me == {"id": body["id"], "name": "Ana", "created_at": body["created_at"], "webhook_url": None}


def test_tokens_are_stored_only_hashed(api, runtime):
    token = api.player()["token"]
    stored = [runtime.redis.hgetall(k) for k in runtime.redis.scan_iter(match=f"{runtime.settings.key_prefix}player:*")]
    assert stored and all(token not in str(values) for values in stored)
    assert not list(runtime.redis.scan_iter(match=f"*{token}*"))


def test_player_names_are_validated_with_field_paths(api):
    for body in ({}, {"name": ""}, {"name": "x" * 41}, {"name": 5}, {"name": "Ana", "extra": 1}):
        response = api.call("POST", "/v1/players", json=body)
        assert response.status_code == 422
        problem = response.get_json()
        assert problem["code"] == "invalid_request"
        assert {e["field"] for e in problem["errors"]} & {"name", "extra"}


def test_calls_without_or_with_a_wrong_token_are_refused(api):
    assert api.call("GET", "/v1/players/me").get_json()["code"] == "token_required"
    assert api.call("GET", "/v1/players/me", "r7_nope").get_json()["code"] == "invalid_token"
    wrong_scheme = api.call("GET", "/v1/players/me", headers={"Authorization": "Basic abc"})
    assert wrong_scheme.status_code == 401 and wrong_scheme.get_json()["code"] == "invalid_token"


def test_setting_a_webhook_shows_its_signing_secret_once(api):
    token = api.player()["token"]
    response = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": "https://example.org/hook"})
    body = response.get_json()
    assert response.status_code == 200 and body["webhook_url"] == "https://example.org/hook" and len(body["webhook_secret"]) > 20
    assert "webhook_secret" not in api.call("GET", "/v1/players/me", token).get_json()
    renamed = api.call("PATCH", "/v1/players/me", token, json={"name": "Bo"}).get_json()
    assert renamed["name"] == "Bo" and "webhook_secret" not in renamed
    removed = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": None}).get_json()
    assert removed["webhook_url"] is None
    bad = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": "ftp://x"})
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "webhook_url"


def test_my_games_put_the_ones_where_it_is_my_turn_first(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    waiting = api.game(ana["token"], [HUMAN, HUMAN])
    finished = api.game(ana["token"], [HUMAN, ai("random")], variant="basic")
    mine_to_move = None
    for _ in range(10):
        candidate = api.game(ana["token"], [HUMAN, HUMAN], seed=_)
        api.call("POST", f"/v1/games/{candidate['id']}/join", bo["token"], json={"code": candidate["join_code"]})
        if api.view(candidate["id"], ana["token"])["turn"]["seat"] == 0:
            mine_to_move = candidate
            break
    assert mine_to_move is not None
    api.run_jobs()  # the AI moves first if it is to start
    assert api.act(finished["id"], ana["token"], [{"type": "fold"}]).status_code == 200
    games = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert games[0]["id"] == mine_to_move["id"] and games[0]["your_turn"]
    statuses = [g["status"] for g in games]
    assert statuses.index("waiting") > statuses.index("active")
    assert games[-1]["id"] == finished["id"] and games[-1]["status"] == "finished"
    assert waiting["id"] in {g["id"] for g in games}
    assert [g["id"] for g in api.call("GET", "/v1/players/me/games", bo["token"]).get_json()["games"]][:1] != [waiting["id"]]


def test_api_keys_restrict_creating_players_and_games(redis_pair, key_prefix):
    from service.app import create_app
    from service.runtime import build_runtime
    from tests.service.conftest import Api, settings_for

    runtime = build_runtime(settings_for(key_prefix, api_keys=("k1", "k2")), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    refused = api.call("POST", "/v1/players", json={"name": "Ana"})
    assert refused.status_code == 401 and refused.get_json()["code"] == "api_key_required"
    created = api.call("POST", "/v1/players", json={"name": "Ana"}, headers={"X-Api-Key": "k2"})
    assert created.status_code == 201
    token = created.get_json()["token"]
    game = {"seats": [HUMAN, ai()]}
    assert api.call("POST", "/v1/games", token, json=game).get_json()["code"] == "api_key_required"
    assert api.call("POST", "/v1/games", token, json=game, headers={"X-Api-Key": "k1"}).status_code == 201
