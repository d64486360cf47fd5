"""Every error is problem+json with a stable code; nothing a client sends produces a 500."""

from __future__ import annotations

import pytest
import redis

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


def test_unknown_paths_and_methods(api):
    missing = api.call("GET", "/v1/nothing/here")
    assert missing.status_code == 404 and missing.get_json()["code"] == "not_found"
    assert missing.get_json()["instance"] == "/v1/nothing/here"
    wrong = api.call("DELETE", "/v1/games")
    assert wrong.status_code == 405 and wrong.get_json()["code"] == "method_not_allowed" and "POST" in wrong.headers["Allow"]


def test_bodies_must_be_json_objects_of_a_sane_size(api):
    token = api.player()["token"]
    form = api.call("POST", "/v1/games", token, data="seats=2", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415 and form.get_json()["code"] == "unsupported_media_type"
    broken = api.call("POST", "/v1/games", token, data='{"seats": [', headers={"Content-Type": "application/json"})
    assert broken.status_code == 400 and broken.get_json()["code"] == "malformed_json"
    not_an_object = api.call("POST", "/v1/games", token, json=[1, 2])
    assert not_an_object.status_code == 422
    huge = api.call("POST", "/v1/games", token, data="{" + " " * 70_000 + "}", headers={"Content-Type": "application/json"})
    assert huge.status_code == 413 and huge.get_json()["code"] == "payload_too_large"


def test_a_body_too_large_is_told_the_limit(api):
    """413 said "The data value transmitted exceeds the capacity limit." and no more."""
    token = api.player()["token"]
    limit = api.runtime.settings.max_body_bytes
    huge = api.call("POST", "/v1/games", token, data="{" + " " * 70_000 + "}", headers={"Content-Type": "application/json"})
    problem = huge.get_json()
    assert huge.status_code == 413 and problem["max_bytes"] == limit == 65536, problem
    assert f"at most {limit} bytes" in problem["detail"] and "70002" in problem["detail"]
    replay_limit = api.runtime.settings.max_replay_bytes
    padded = "{" + " " * replay_limit + "}"
    too_big = api.call("POST", "/v1/replays", token, data=padded, headers={"Content-Type": "application/json"})
    assert too_big.status_code == 413 and too_big.get_json()["max_bytes"] == replay_limit  # the route's own limit


def test_an_accept_header_that_takes_nothing_a_route_answers_with_is_a_406(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()], variant="basic")
    path = f"/v1/games/{game['id']}"
    refused = api.call("GET", path, token, headers={"Accept": "text/csv"})
    assert refused.status_code == 406 and refused.get_json()["code"] == "not_acceptable"
    assert "application/json" in refused.get_json()["detail"]
    for accept in ("application/json", "*/*", "application/*", "text/html;q=0.9, application/json;q=0.1", ""):
        assert api.call("GET", path, token, headers={"Accept": accept}).status_code == 200, accept
    assert api.call("GET", path, token).status_code == 200  # no Accept header: anything goes
    assert api.call("GET", f"{path}/stream", token, headers={"Accept": "application/json"}).status_code == 406
    assert api.call("GET", f"{path}/replay/view", headers={"Accept": "application/json"}).status_code == 406
    assert api.call("GET", f"{path}/replay/view", headers={"Accept": "text/html"}).mimetype == "text/html"
    ndjson = api.call("GET", f"{path}/replay", token, headers={"Accept": "application/x-ndjson"})
    assert ndjson.status_code == 200 and ndjson.mimetype == "application/x-ndjson"
    assert api.call("GET", f"{path}/replay", token, headers={"Accept": "text/csv"}).status_code == 406
    assert api.call("POST", f"{path}/actions", token, json={"steps": []}, headers={"Accept": "text/plain"}).status_code == 406
    for accept in ("application/json; charset=utf-8", "application/json;v=1, text/html;q=0.5"):  # parameters count for nothing
        assert api.call("GET", path, token, headers={"Accept": accept}).status_code == 200, accept
    ndjson = api.call("GET", f"{path}/replay", token, headers={"Accept": "application/x-ndjson; charset=utf-8"})
    assert ndjson.mimetype == "application/x-ndjson"
    token_id = api.call("GET", "/v1/players/me/tokens", token).get_json()["tokens"][0]["id"]
    revoked = api.call("DELETE", f"/v1/players/me/tokens/{token_id}", token, headers={"Accept": "text/plain"})
    assert revoked.status_code == 204  # no body to negotiate


@pytest.mark.parametrize(
    "path",
    ["/v1/games/%00", "/v1/games/" + "x" * 5000, "/v1/games/{}/events?limit=1e9", "/v1/games/../../etc", "/v1/games/%ff%fe"],
)
def test_odd_paths_never_fail_the_server(api, path):
    assert api.call("GET", path).status_code in (404, 422)


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer " + "x" * 10_000},
        {"If-Match": '""'},
        {"If-Match": 'W/"abc"'},
        {"Idempotency-Key": "k" * 300},
        {"Content-Type": "application/json; charset=latin-1"},
        {"Last-Event-ID": "not-a-number"},
    ],
)
def test_odd_headers_never_fail_the_server(api, headers):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    merged = {"Authorization": f"Bearer {token}", **headers}
    for method, path, body in (
        ("POST", f"/v1/games/{game['id']}/actions", {"steps": [{"type": "fold"}]}),
        ("GET", f"/v1/games/{game['id']}", None),
    ):
        response = api.client.open(path, method=method, headers=merged, json=body)
        assert response.status_code < 500, response.get_data(as_text=True)


@pytest.mark.parametrize("value", ["\u00b2", "\u00b9\u00b2", "9" * 5000, "1" * 14, "-1", "1.0", ""])
def test_versions_and_event_numbers_in_headers_are_ascii_digits_or_refused(api, value):
    """Headers arrive as latin-1: "²" passes str.isdigit but not int(); 5000 digits pass neither Python's int limit."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    acted = api.act(game["id"], token, [{"type": "fold"}], headers={"If-Match": f'"{value}"'})
    assert acted.status_code == 400 and acted.get_json()["code"] == "invalid_precondition"
    assert len(acted.get_data()) < 2000  # the header is not echoed whole
    streamed = api.call("GET", f"/v1/games/{game['id']}/stream", token, headers={"Last-Event-ID": value})
    assert streamed.status_code == 422 and streamed.get_json()["errors"][0]["field"] == "Last-Event-ID"


def test_a_weak_etag_in_if_none_match_matches_too(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, HUMAN])
    for tag in (f'W/"{game["version"]}"', f'"{game["version"]}"', f'"0", W/"{game["version"]}"'):
        response = api.call("GET", f"/v1/games/{game['id']}", token, headers={"If-None-Match": tag})
        assert response.status_code == 304, tag
    assert api.call("GET", f"/v1/games/{game['id']}", token, headers={"If-None-Match": 'W/"1"'}).status_code == 200


def test_strings_that_are_not_unicode_are_refused_before_anything_stores_them(api):
    """JSON lets "\\ud800" stand alone; Redis (UTF-8) cannot store it, and it must not become a 500."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, HUMAN])
    for method, path, body in (
        ("POST", "/v1/players", '{"name": "A\\ud800"}'),
        ("PATCH", "/v1/players/me", '{"name": "\\udcff"}'),
        ("POST", f"/v1/games/{game['id']}/join", '{"code": "\\udcff"}'),
        ("POST", "/v1/players/me/tokens", '{"label": "x\\uDBFF"}'),
    ):
        response = api.call(method, path, token, data=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and response.get_json()["code"] == "malformed_json", path
    paired = api.call("POST", "/v1/players", data='{"name": "A\\ud83c\\udccf"}', headers={"Content-Type": "application/json"})
    assert paired.status_code == 201 and paired.get_json()["name"] == "A\U0001f0cf"  # a pair is one character


def test_deeply_nested_bodies_are_malformed_json_on_every_route(api):
    """20,000 nested arrays are 40 KiB, well under the body limit, and blew Python's recursion limit: a 500."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, HUMAN])
    deep_array = "[" * 20_000 + "]" * 20_000
    deep_object = '{"a":' * 990 + "1" + "}" * 990  # parses, just: what parses must not fail further on either
    for body in (deep_array, deep_object, f'{{"name": {deep_array}}}', "[" * 65 + "]" * 65):
        for method, path in (
            ("POST", "/v1/players"),
            ("PATCH", "/v1/players/me"),
            ("POST", "/v1/players/me/tokens"),
            ("POST", "/v1/games"),
            ("POST", f"/v1/games/{game['id']}/join"),
            ("POST", f"/v1/games/{game['id']}/actions"),
            ("POST", f"/v1/games/{game['id']}/leave"),
            ("POST", "/v1/replays"),
        ):
            response = api.call(method, path, token, data=body, headers={"Content-Type": "application/json"})
            assert response.status_code == 400 and response.get_json()["code"] == "malformed_json", (path, body[:20])
    nested = api.call("POST", "/v1/games", token, data="[" * 64 + "]" * 64, headers={"Content-Type": "application/json"})
    assert nested.status_code == 422  # 64 levels are allowed (and then refused by the schema, as a list)


def test_whole_numbers_in_bodies_are_not_silently_truncated(api):
    """seed 1.5 must not quietly become seed 1: a client that sent it has a bug worth hearing about."""
    token = api.player()["token"]
    for field, value in (("seed", 1.5), ("turn_timeout", 30.5), ("seed", "7"), ("turn_timeout", True)):
        response = api.call("POST", "/v1/games", token, json={"seats": [HUMAN, ai()], field: value})
        assert response.status_code == 422 and response.get_json()["errors"][0]["field"] == field, (field, value)
    game = api.game(token, [HUMAN, HUMAN])
    bo = api.player("Bo")["token"]
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo, json={"code": game["join_code"], "seat": 1.5})
    assert joined.status_code == 422 and joined.get_json()["errors"][0]["field"] == "seat"
    body = {"steps": [{"type": "fold"}], "expected_version": 2.5}
    acted = api.call("POST", f"/v1/games/{game['id']}/actions", token, json=body)
    assert acted.status_code == 422 and acted.get_json()["errors"][0]["field"] == "expected_version"


def test_the_problem_catalogue_lists_every_code(api):
    codes = {p["code"]: p for p in api.call("GET", "/v1/problems").get_json()["problems"]}
    for code in ("version_conflict", "not_your_turn", "discard_not_winning", "invalid_request", "rate_limited"):
        assert code in codes
    assert codes["version_conflict"]["status"] == 409 and codes["not_your_turn"]["status"] == 422


def test_health_and_readiness(api):
    assert api.call("GET", "/healthz").get_json() == {"status": "ok"}
    assert api.call("GET", "/readyz").get_json() == {"status": "ready"}


def test_readiness_fails_cleanly_when_redis_is_gone(key_prefix):
    import redis

    nowhere = {"port": 1, "socket_connect_timeout": 0.2}
    dead = (redis.Redis(**nowhere, decode_responses=True), redis.Redis(**nowhere))
    runtime = build_runtime(settings_for(key_prefix), clients=dead)
    client = create_app(runtime).test_client()
    response = client.get("/readyz")
    assert response.status_code == 503 and response.get_json()["code"] == "store_unavailable"
    assert response.headers["Retry-After"] == "5"
    assert client.post("/v1/players", json={"name": "Ana"}).status_code == 503


@pytest.mark.parametrize(
    "error",
    [
        redis.exceptions.CrossSlotTransactionError("keys in different slots"),
        redis.exceptions.SlotNotCoveredError("x"),
        redis.exceptions.ClusterDownError("CLUSTERDOWN"),
        redis.exceptions.TimeoutError("timed out"),
    ],
)
def test_every_store_error_cluster_errors_included_is_a_503_never_a_500(api, monkeypatch, error):
    token = api.player()["token"]

    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(api.runtime.players, "grant_by_digest", failing)  # every token lookup
    response = api.client.get("/v1/players/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 503 and response.get_json()["code"] == "store_unavailable"
    assert response.headers["Retry-After"] == "5" and response.mimetype == "application/problem+json"


def test_rate_limits_answer_429_with_retry_after(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, rate_limit_signup="3 per minute"), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    statuses = [api.call("POST", "/v1/players", json={"name": f"p{i}"}).status_code for i in range(5)]
    assert statuses[:3] == [201, 201, 201] and statuses[3:] == [429, 429]
    limited = api.responses[-1][1]
    assert limited.get_json()["code"] == "rate_limited" and int(limited.headers["Retry-After"]) > 0


def test_per_token_limits(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, rate_limit_token="4 per minute"), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token, other = api.player()["token"], api.player()["token"]
    statuses = [api.call("GET", "/v1/players/me", token).status_code for _ in range(6)]
    assert statuses == [200] * 4 + [429] * 2
    assert api.call("GET", "/v1/players/me", other).status_code == 200


def test_rate_limit_headers_describe_the_limit_nearest_to_running_out(redis_pair, key_prefix):
    limits = {"rate_limit_token": "4 per minute", "rate_limit_address": "10 per minute"}
    runtime = build_runtime(settings_for(key_prefix, **limits), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token = api.player()["token"]
    responses = [api.call("GET", "/v1/players/me", token) for _ in range(5)]
    assert [r.headers["X-RateLimit-Limit"] for r in responses] == ["4"] * 5  # the token's, not the address's
    assert [r.headers["X-RateLimit-Remaining"] for r in responses] == ["3", "2", "1", "0", "0"]
    assert all("Retry-After" not in r.headers for r in responses[:4])
    assert responses[4].status_code == 429 and 0 < int(responses[4].headers["Retry-After"]) <= 61  # whole seconds, up
    assert int(responses[0].headers["X-RateLimit-Reset"]) > 0


def test_cors_for_configured_origins(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, cors_origins=("https://play.example",)), clients=redis_pair)
    client = create_app(runtime).test_client()
    preflight = client.options(
        "/v1/games/g_1/actions",
        headers={
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key, Content-Type",
        },
    )
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "if-match" in preflight.headers["Access-Control-Allow-Headers"].lower()
    simple = client.get("/healthz", headers={"Origin": "https://play.example"})
    assert "ETag" in simple.headers.get("Access-Control-Expose-Headers", "")
    other = client.get("/healthz", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    revoke = client.options(  # a web app signing out: DELETE with a bearer token
        "/v1/players/me/tokens/t_1",
        headers={
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "DELETE",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    assert "DELETE" in revoke.headers["Access-Control-Allow-Methods"]
    assert "authorization" in revoke.headers["Access-Control-Allow-Headers"].lower()


def test_a_tokens_budget_is_one_across_every_route(redis_pair, key_prefix):
    """The promise of docs/security.md: one budget per token and one per address, not one per route."""
    runtime = build_runtime(settings_for(key_prefix, rate_limit_token="6 per minute"), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token, other = api.player("Ana")["token"], api.player("Bo")["token"]
    game = api.game(other, [{"kind": "human"}, {"kind": "human"}])  # the other token's budget
    paths = ["/v1/players/me", f"/v1/games/{game['id']}", f"/v1/games/{game['id']}/events", "/v1/players/me/games"]
    answers = [api.call("GET", paths[i % len(paths)], token) for i in range(8)]
    assert [r.status_code for r in answers] == [200] * 6 + [429] * 2
    assert [r.headers["X-RateLimit-Remaining"] for r in answers[:6]] == ["5", "4", "3", "2", "1", "0"]
    assert api.call("GET", "/v1/players/me/tokens", token).status_code == 429  # a route it had not used yet


def test_an_addresss_budget_is_one_across_every_route(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, rate_limit_address="5 per minute"), clients=redis_pair)
    client = create_app(runtime).test_client()
    paths = ["/v1/players/me", "/v1/games/g_nope", "/v1/replays/r_nope", "/v1/games/g_nope/events"]
    statuses = [client.get(paths[i % len(paths)]).status_code for i in range(7)]
    assert statuses[5:] == [429, 429] and 429 not in statuses[:5]


def proxied(redis_pair, key_prefix, hops: int):
    settings = settings_for(key_prefix, rate_limit_address="3 per minute", trusted_proxy_hops=hops)
    return create_app(build_runtime(settings, clients=redis_pair)).test_client()


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget(redis_pair, key_prefix):
    client = proxied(redis_pair, key_prefix, hops=1)
    for _ in range(3):
        assert client.get("/v1/games/g_nope", headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 404
    assert client.get("/v1/games/g_nope", headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 429
    assert client.get("/v1/games/g_nope", headers={"X-Forwarded-For": "198.51.100.9"}).status_code == 404
    # The proxy appends the address it saw: what a client wrote before it is not believed.
    forged = {"X-Forwarded-For": "192.0.2.1, 203.0.113.7"}
    assert client.get("/v1/games/g_nope", headers=forged).status_code == 429


def test_without_a_trusted_proxy_a_forwarded_header_changes_nothing(redis_pair, key_prefix):
    client = proxied(redis_pair, key_prefix, hops=0)
    statuses = [client.get("/v1/games/g_nope", headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code for i in range(5)]
    assert statuses == [404, 404, 404, 429, 429]
