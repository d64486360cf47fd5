"""Scoped tokens at the edge (issue 37): every operation names its scope in one table and in the document, a token
without it is refused as RFC 6750 §3.1 says, one with it gets through, none mints a wider one, and a token stored
before scopes existed keeps every power."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import fakeredis
import pytest

from service.domain.scopes import FULL, SCOPES, ordered
from service.http.app import create_app
from service.http.problems import scope_code
from service.http.scopes import OPERATION_SCOPES
from service.runtime import build_runtime
from service.storage.players import hash_token
from service.storage.players.keys import token_key, tokens_key
from tests.harness.support import Api, settings_for
from tests.service.http.test_api_reports import grant as make_moderator

HTTP_METHODS = ("get", "put", "post", "delete", "patch")
#: Bodies that pass a route's schema, where an operation needs one to be told apart from a refused scope.
BODIES = {
    "updateMe": {"name": "Bo"},
    "createToken": {"label": "phone"},
}


def spec_of(api: Api) -> dict[str, Any]:
    return api.call("GET", "/v1/openapi.json").get_json()


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in HTTP_METHODS
    ]


def token_with(api: Api, full: str, scopes: list[str], label: str = "scoped") -> str:
    answer = api.call("POST", "/v1/players/me/tokens", full, json={"label": label, "scopes": scopes})
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["scopes"] == ordered(scopes)
    return answer.get_json()["token"]


def test_every_operation_has_its_line_in_the_table(api):
    """A new operation fails here until service/http/scopes.py names its scope (or marks it public)."""
    missing = [op["operationId"] for _, _, op in operations(spec_of(api)) if op["operationId"] not in OPERATION_SCOPES]
    assert not missing, f"add these to service/http/scopes.py: {missing}"
    assert {scope for scope in OPERATION_SCOPES.values() if scope is not None} <= FULL


def test_the_document_declares_each_operations_scope(api):
    spec = spec_of(api)
    flows = spec["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert (flows["authorizationUrl"], flows["tokenUrl"]) == ("/oauth/authorize", "/oauth/token")
    assert flows["scopes"] == SCOPES and all(flows["scopes"].values())
    for method, path, op in operations(spec):
        scope = OPERATION_SCOPES[op["operationId"]]
        if scope is None:
            assert op["security"] in ([], [{"apiKey": []}]) and "x-scopes" not in op, f"{method} {path}"
            continue
        assert op["x-scopes"] == [scope], f"{method} {path}"
        assert f"Scope: `{scope}`." in op["description"]
        assert "WWW-Authenticate" in op["responses"]["403"]["headers"], f"{method} {path}: its refusal documented"
        if op["security"]:  # a token is required: the bearer token, or an oauth2 one with the scope
            assert op["security"] == [{"bearer": []}, {"oauth2": [scope]}], f"{method} {path}: {op['security']}"


@pytest.mark.every_store
def test_every_operation_refuses_a_token_without_its_scope_and_takes_one_with_it(api, backend):
    checked = 0
    for method, path, op in operations(spec_of(api)):
        scope = OPERATION_SCOPES[op["operationId"]]
        if scope is None:
            continue
        player = api.player(f"P{checked}")
        if scope == "moderation":
            make_moderator(api, player["token"])
        concrete = re.sub(r"\{[^}]+\}", "g_nope", path)
        body = BODIES.get(op["operationId"])
        without = token_with(api, player["token"], sorted(FULL - {scope}), "without")
        refused = api.call(method, concrete, without, json=body)
        refused.get_data()
        where = f"{op['operationId']} ({method} {path})"
        assert refused.status_code == 403, f"{where}: {refused.status_code} {refused.get_data(as_text=True)[:200]}"
        problem = refused.get_json()
        assert problem["code"] == scope_code(scope) and problem["scope"] == scope, where
        assert refused.headers["WWW-Authenticate"] == f'Bearer error="insufficient_scope", scope="{scope}"', where
        assert scope not in refused.headers["X-OAuth-Scopes"].split(", "), where
        with_it = token_with(api, player["token"], [scope], "with")
        taken = api.call(method, concrete, with_it, json=body)
        taken.get_data()  # a stream runs while it is read
        assert taken.status_code != 403, f"{where}: {taken.get_data(as_text=True)[:200]}"
        assert taken.headers["X-OAuth-Scopes"] == scope, where
        checked += 1
    assert checked >= 50


def test_a_webhook_needs_its_own_scope(api):
    full = api.player()["token"]
    profile = token_with(api, full, ["profile:write"])
    assert api.call("PATCH", "/v1/players/me", profile, json={"name": "Bo"}).status_code == 200
    refused = api.call("PATCH", "/v1/players/me", profile, json={"webhook_url": "https://example.com/hook"})
    assert (refused.status_code, refused.get_json()["code"]) == (403, "insufficient_scope_webhook")
    assert refused.headers["WWW-Authenticate"] == 'Bearer error="insufficient_scope", scope="webhook"'
    both = token_with(api, full, ["profile:write", "webhook"])
    assert api.call("PATCH", "/v1/players/me", both, json={"webhook_url": ""}).status_code == 200


@pytest.mark.every_store
def test_a_token_cannot_mint_a_wider_one(api, backend):
    full = api.player()["token"]
    minter = token_with(api, full, ["tokens", "play"])
    wider = api.call("POST", "/v1/players/me/tokens", minter, json={"label": "x", "scopes": ["play", "lobby"]})
    assert wider.status_code == 403
    assert (wider.get_json()["code"], wider.get_json()["scopes"]) == ("scope_exceeds_token", ["lobby"])
    assert api.call("POST", "/v1/players/me/tokens", minter, json={"label": "x", "scopes": ["account:delete"]}).status_code == 403
    narrower = api.call("POST", "/v1/players/me/tokens", minter, json={"label": "bot", "scopes": ["play"]})
    assert narrower.status_code == 201 and narrower.get_json()["scopes"] == ["play"]
    same = api.call("POST", "/v1/players/me/tokens", minter, json={"label": "same"})  # default: the minter's own
    assert same.status_code == 201 and same.get_json()["scopes"] == ["play", "tokens"]
    again = api.call("POST", "/v1/players/me/tokens", same.get_json()["token"], json={"label": "again"})
    assert again.get_json()["scopes"] == ["play", "tokens"]
    none = api.call("POST", "/v1/players/me/tokens", minter, json={"label": "none", "scopes": []})
    assert none.status_code == 201 and none.get_json()["scopes"] == []
    assert api.call("GET", "/v1/games/g_nope", none.get_json()["token"]).status_code == 403
    assert api.call("GET", "/v1/games/g_nope").status_code == 404  # without a token: as to anyone
    listed = {t["label"]: t["scopes"] for t in api.call("GET", "/v1/players/me/tokens", full).get_json()["tokens"]}
    assert listed["first token"] == ordered(FULL) and listed["bot"] == ["play"] and listed["same"] == ["play", "tokens"]
    unknown = api.call("POST", "/v1/players/me/tokens", full, json={"label": "x", "scopes": ["root"]})
    assert (unknown.status_code, unknown.get_json()["code"]) == (422, "invalid_request")


def test_a_retried_issue_answers_the_same_scopes(api):
    full = api.player()["token"]
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    body = {"label": "bot", "scopes": ["lobby", "play"]}
    first = api.call("POST", "/v1/players/me/tokens", full, json=body, headers=headers)
    retry = api.call("POST", "/v1/players/me/tokens", full, json=body, headers=headers)
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json() and first.get_json()["scopes"] == ["play", "lobby"]


@pytest.mark.every_store
def test_a_token_stored_before_scopes_keeps_every_power(api, backend, runtime):
    """A token as a store written before this change holds it: the lookup key holds the player's id alone."""
    player = api.player()
    old = "r7_stored-before-scopes-" + uuid.uuid4().hex
    digest = hash_token(old)
    prefix = runtime.settings.key_prefix
    record = {"hash": digest, "label": "old phone", "created_at": "2025-01-01T00:00:00Z"}
    runtime.redis.hset(tokens_key(prefix, player["id"]), "t_old", json.dumps(record))
    runtime.redis.set(token_key(prefix, digest), player["id"])
    me = api.call("GET", "/v1/players/me", old)
    assert me.status_code == 200 and me.headers["X-OAuth-Scopes"] == ", ".join(ordered(FULL))
    listed = {t["id"]: t for t in api.call("GET", "/v1/players/me/tokens", old).get_json()["tokens"]}
    assert listed["t_old"]["scopes"] == ordered(FULL) and listed["t_old"]["current"]
    minted = api.call("POST", "/v1/players/me/tokens", old, json={"label": "full again"})
    assert minted.status_code == 201 and minted.get_json()["scopes"] == ordered(FULL)
    assert api.call("DELETE", "/v1/players/me", old).status_code == 204  # account:delete, which it never asked for


def test_answers_say_what_the_token_may_do(api):
    full = api.player()["token"]
    play = token_with(api, full, ["play", "profile:read"])
    assert api.call("GET", "/v1/players/me", play).headers["X-OAuth-Scopes"] == "play, profile:read"
    assert "X-OAuth-Scopes" not in api.call("GET", "/v1/rules").headers  # no token, no scopes
    assert "X-OAuth-Scopes" not in api.call("GET", "/v1/players/me/games").headers  # 401: no token
    codes = {p["code"]: p["status"] for p in api.call("GET", "/v1/problems").get_json()["problems"]}
    assert all(codes[scope_code(scope)] == 403 for scope in SCOPES) and codes["scope_exceeds_token"] == 403


def test_cors_lets_a_page_read_the_scopes():
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    settings = settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:", cors_origins=("https://app.example",))
    client = create_app(build_runtime(settings, clients=clients)).test_client()
    token = client.post("/v1/players", json={"name": "Ana"}).get_json()["token"]
    answer = client.get("/v1/players/me", headers={"Authorization": f"Bearer {token}", "Origin": "https://app.example"})
    exposed = {name.strip().lower() for name in answer.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"x-oauth-scopes", "www-authenticate"} <= exposed


def test_an_operation_without_its_line_is_for_full_tokens_only():
    from service.http.scoping import needed

    assert needed("anOperationAddedWithoutItsLine") == FULL
    assert needed("getRules") == FULL and needed("listRules") is None
    assert needed("updateMe", {"name": "Bo"}) == {"profile:write"}
    assert needed("updateMe", {"webhook_url": ""}) == {"profile:write", "webhook"}
