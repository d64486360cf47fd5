"""The terms of use: accepted at sign-up; when their version changes, every call of a player who has not accepted the
new one is refused naming the address, until ``acceptTerms``."""

from __future__ import annotations

from typing import Any

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


def serve(redis_pair: Any, key_prefix: str, **settings: Any) -> Api:
    runtime = build_runtime(settings_for(key_prefix, **settings), clients=redis_pair)
    return Api(create_app(runtime), runtime)


def test_without_terms_nothing_is_asked(api):
    assert api.call("GET", "/v1/terms").get_json() == {"terms_version": "", "terms_url": "/terms"}
    ana = api.player("Ana")
    assert api.call("GET", "/v1/players/me", ana["token"]).status_code == 200


def test_signing_up_accepts_the_version_in_force(redis_pair, key_prefix):
    api = serve(redis_pair, key_prefix, terms_version="v1", terms_url="https://example.com/terms")
    refused = api.call("POST", "/v1/players", json={"name": "Ana"})
    assert refused.status_code == 403
    assert refused.get_json()["code"] == "terms_not_accepted"
    assert refused.get_json()["terms_url"] == "https://example.com/terms" and refused.get_json()["terms_version"] == "v1"
    assert api.call("POST", "/v1/players", json={"name": "Ana", "accept_terms": "v0"}).status_code == 403
    ana = api.call("POST", "/v1/players", json={"name": "Ana", "accept_terms": "v1"}).get_json()
    assert api.call("GET", "/v1/players/me", ana["token"]).status_code == 200
    assert api.call("POST", "/v1/games", ana["token"], json={"seats": [HUMAN, ai()]}).status_code == 201


def test_a_new_version_refuses_every_call_until_it_is_accepted(redis_pair, key_prefix):
    before = serve(redis_pair, key_prefix, terms_version="v1")
    ana = before.call("POST", "/v1/players", json={"name": "Ana", "accept_terms": "v1"}).get_json()
    game = before.game(ana["token"], [HUMAN, ai()])
    after = serve(redis_pair, key_prefix, terms_version="v2", public_url="https://red7.example.com")
    for method, path in (("GET", "/v1/players/me"), ("GET", f"/v1/games/{game['id']}"), ("POST", "/v1/games")):
        refused = after.call(method, path, ana["token"], json={"seats": [HUMAN, ai()]} if method == "POST" else None)
        assert refused.status_code == 403, (method, path)
        problem = refused.get_json()
        assert problem["code"] == "terms_not_accepted" and problem["terms_url"] == "https://red7.example.com/terms"
        assert "https://red7.example.com/terms" in problem["detail"]
    wrong = after.call("POST", "/v1/players/me/terms", ana["token"], json={"terms_version": "v1"})
    assert wrong.status_code == 422 and wrong.get_json()["code"] == "terms_version_mismatch"
    accepted = after.call("POST", "/v1/players/me/terms", ana["token"], json={"terms_version": "v2"})
    assert accepted.status_code == 200 and accepted.get_json()["terms_version"] == "v2"
    assert after.call("GET", f"/v1/games/{game['id']}", ana["token"]).status_code == 200


def test_a_player_who_has_not_accepted_new_terms_may_still_delete_their_account(redis_pair, key_prefix):
    before = serve(redis_pair, key_prefix, terms_version="v1")
    ana = before.call("POST", "/v1/players", json={"name": "Ana", "accept_terms": "v1"}).get_json()
    after = serve(redis_pair, key_prefix, terms_version="v2")
    assert after.call("GET", "/v1/players/me", ana["token"]).status_code == 403
    assert after.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    assert after.call("GET", "/v1/players/me", ana["token"]).get_json()["code"] == "invalid_token"


@pytest.mark.parametrize("language", ["de", "ru"])
def test_the_refusal_names_the_address_in_every_language(redis_pair, key_prefix, language):
    api = serve(redis_pair, key_prefix, terms_version="v1", terms_url="https://example.com/t")
    refused = api.call("POST", f"/v1/players?lang={language}", json={"name": "Ana"}).get_json()
    assert "https://example.com/t" in refused["detail"] and "v1" in refused["detail"]


def test_the_sample_terms_page_is_served(redis_pair, key_prefix):
    api = serve(redis_pair, key_prefix, terms_version="2026-11")
    page = api.client.get("/terms")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "2026-11" in page.get_data(as_text=True) and "harass" in page.get_data(as_text=True)
