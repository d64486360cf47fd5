"""Challenges through the API: every operation, every refusal with its status and code, expiry in simulated time, the
cap read from its setting — on fakeredis and the real Redis."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from service.domain.challenges import format_time, parse_time
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for
from tests.service.http.test_openapi import json_schema


@pytest.fixture
def spec(api) -> dict[str, Any]:
    return api.client.get("/v1/openapi.json").get_json()


def challenge(api: Api, token: str, *players: str, status: int = 201, **options: Any) -> dict[str, Any]:
    response = api.call("POST", "/v1/challenges", token, json={"players": list(players), **options})
    assert response.status_code == status, response.get_json()
    return response.get_json()


def problem(response, status: int, code: str) -> dict[str, Any]:
    body = response.get_json()
    assert (response.status_code, body["code"]) == (status, code), body
    return body


def conforms(spec: dict[str, Any], component: str, body: Any) -> None:
    schema = json_schema(spec, {"$ref": f"#/components/schemas/{component}"})
    errors = list(Draft202012Validator(schema).iter_errors(body))
    assert not errors, f"{errors[0].message} at {list(errors[0].absolute_path)}"


def test_a_challenge_accepted_by_everyone_starts_a_game_both_play(api, spec):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    response = api.call(
        "POST",
        "/v1/challenges",
        ana["token"],
        json={"players": [bo["id"], cy["id"]], "seats": [HUMAN, HUMAN, ai(), HUMAN], "turn_timeout": 600, "rated": True},
    )
    assert response.status_code == 201 and response.headers["Location"] == f"/v1/challenges/{response.get_json()['id']}"
    assert response.headers["Cache-Control"] == "private"
    made = response.get_json()
    conforms(spec, "Challenge", made)
    assert (made["status"], made["role"], made["game_id"], made["version"]) == ("open", "challenger", None, 1)
    assert [(c["id"], c["answer"]) for c in made["challenged"]] == [(bo["id"], "pending"), (cy["id"], "pending")]
    path = f"/v1/challenges/{made['id']}"
    seen = api.call("GET", path, bo["token"]).get_json()
    assert seen["role"] == "challenged" and {k: v for k, v in seen.items() if k != "role"} == {
        k: v for k, v in made.items() if k != "role"
    }
    first = api.call("POST", f"{path}/accept", bo["token"])
    assert first.status_code == 200 and first.get_json()["status"] == "open"
    started = api.call("POST", f"{path}/accept", cy["token"]).get_json()
    conforms(spec, "Challenge", started)
    assert started["status"] == "started" and started["game_id"]
    game = api.view(started["game_id"], bo["token"])
    assert game["status"] == "active" and game["you"]["seat"] == 1 and game["turn_timeout"] == 600
    assert [s["player_id"] for s in game["seats"]] == [ana["id"], bo["id"], None, cy["id"]]
    listed = api.call("GET", "/v1/players/me/games", cy["token"]).get_json()["games"]
    assert [g["id"] for g in listed] == [started["game_id"]]
    again = api.call("POST", f"{path}/accept", bo["token"])  # accepted already: nothing more happens
    assert again.status_code == 200 and again.get_json() == {**started, "role": "challenged"}


def test_a_declined_challenge_is_over_for_everyone_and_says_why(api, spec):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    made = challenge(api, ana["token"], bo["id"], cy["id"], days_per_turn=7)
    path = f"/v1/challenges/{made['id']}"
    declined = api.call("POST", f"{path}/decline", cy["token"], json={"reason": "too_slow"})
    assert declined.status_code == 200
    body = declined.get_json()
    conforms(spec, "Challenge", body)
    assert (body["status"], body["decline_reason"], body["challenged"][1]["answer"]) == ("declined", "too_slow", "declined")
    problem(api.call("POST", f"{path}/accept", bo["token"]), 409, "challenge_not_open")
    generic = challenge(api, bo["token"], ana["id"])
    assert (
        api.call("POST", f"/v1/challenges/{generic['id']}/decline", ana["token"], json={}).get_json()["decline_reason"]
        == "generic"
    )
    refused = api.call("POST", f"/v1/challenges/{generic['id']}/decline", ana["token"], json={"reason": "bored"})
    assert problem(refused, 422, "invalid_request")["errors"][0]["field"] == "reason"


def test_the_challenger_cancels_an_open_challenge_and_nobody_else_may(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    made = challenge(api, ana["token"], bo["id"])
    path = f"/v1/challenges/{made['id']}"
    problem(api.call("DELETE", path, bo["token"]), 403, "not_the_challenger")
    problem(api.call("POST", f"{path}/accept", ana["token"]), 403, "not_challenged")
    problem(api.call("POST", f"{path}/decline", ana["token"], json={"reason": "later"}), 403, "not_challenged")
    for method, suffix, body in (
        ("GET", "", None),
        ("DELETE", "", None),
        ("POST", "/accept", None),
        ("POST", "/decline", {"reason": "later"}),
    ):
        problem(api.call(method, f"{path}{suffix}", cy["token"], json=body), 404, "challenge_not_found")
    problem(api.call("GET", "/v1/challenges/c_0000000000000000", ana["token"]), 404, "challenge_not_found")
    cancelled = api.call("DELETE", path, ana["token"])
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert api.call("DELETE", path, ana["token"]).get_json() == cancelled.get_json()  # again: nothing more
    problem(api.call("POST", f"{path}/accept", bo["token"]), 409, "challenge_not_open")
    assert api.call("GET", path).status_code == 401


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"players": ["{ana}"]}, 422, "cannot_challenge_yourself"),
        ({"players": ["{bo}", "{bo}"]}, 422, "player_challenged_twice"),
        ({"players": ["{bo}", "{cy}", "{di}", "{ed}"]}, 422, "too_many_challenged"),
        ({"players": ["{bo}"], "seats": [HUMAN, HUMAN, HUMAN]}, 422, "challenge_seats_mismatch"),
        ({"players": ["{bo}"], "seats": [HUMAN, ai()]}, 422, "challenge_seats_mismatch"),
        ({"players": ["nobody"]}, 422, "unknown_players"),
        ({"players": []}, 422, "invalid_request"),
        ({"players": ["{bo}"], "turn_timeout": 60, "days_per_turn": 1}, 422, "invalid_request"),
        ({"players": ["{bo}"], "days_per_turn": 4}, 422, "invalid_request"),
        ({"players": ["{bo}"], "expires_in": 14 * 24 * 3600 + 1}, 422, "invalid_request"),
        ({"players": ["{bo}"], "expires_in": 59}, 422, "invalid_request"),
    ],
)
def test_a_challenge_that_cannot_be_is_refused_with_its_code(api, body, status, code):
    people = {name.lower(): api.player(name)["id"] for name in ("Bo", "Cy", "Di", "Ed")}
    ana = api.player("Ana")
    people["ana"] = ana["id"]
    sent = {**body, "players": [p.format(**people) for p in body["players"]]}
    found = problem(api.call("POST", "/v1/challenges", ana["token"], json=sent), status, code)
    if code == "too_many_challenged":
        assert found["limit"] == 3
    if code == "unknown_players":
        assert found["players"] == ["nobody"]
    assert api.call("GET", "/v1/challenges", ana["token"]).get_json()["challenges"] == []


def test_an_open_challenge_to_a_player_is_not_sent_twice(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    challenge(api, ana["token"], bo["id"])
    found = problem(
        api.call("POST", "/v1/challenges", ana["token"], json={"players": [cy["id"], bo["id"]]}), 409, "already_challenged"
    )
    assert found["players"] == ["Bo"]
    challenge(api, bo["token"], ana["id"])  # Bo may challenge Ana: it is his own challenge


def test_the_inbox_pages_newest_first_and_filters_by_status(api, spec):
    ana = api.player("Ana")
    others = [api.player(name) for name in ("Bo", "Cy", "Di")]
    received = [challenge(api, other["token"], ana["id"]) for other in others]
    sent = challenge(api, ana["token"], others[0]["id"])
    api.call("POST", f"/v1/challenges/{received[1]['id']}/decline", ana["token"], json={"reason": "later"})
    first = api.call("GET", "/v1/challenges?limit=3", ana["token"])
    assert first.status_code == 200 and first.headers["Cache-Control"] == "private"
    page = first.get_json()
    conforms(spec, "ChallengeList", page)
    assert [c["id"] for c in page["challenges"]] == [sent["id"], received[2]["id"], received[1]["id"]]
    assert [c["role"] for c in page["challenges"]] == ["challenger", "challenged", "challenged"]
    rest = api.call("GET", f"/v1/challenges?limit=3&cursor={page['next_cursor']}", ana["token"]).get_json()
    assert ([c["id"] for c in rest["challenges"]], rest["next_cursor"]) == ([received[0]["id"]], None)
    declined = api.call("GET", "/v1/challenges?status=declined", ana["token"]).get_json()["challenges"]
    assert [c["id"] for c in declined] == [received[1]["id"]]
    problem(api.call("GET", "/v1/challenges?status=maybe", ana["token"]), 422, "invalid_request")
    problem(api.call("GET", "/v1/challenges?cursor=nonsense", ana["token"]), 422, "invalid_request")
    assert api.call("GET", "/v1/challenges").status_code == 401


def test_a_challenge_expires_in_simulated_time_and_then_refuses_an_acceptance(api, runtime, monkeypatch):
    at = [parse_time(runtime.challenges.clock())]
    monkeypatch.setattr(runtime.challenges, "clock", lambda: format_time(at[0]))
    ana, bo = api.player("Ana"), api.player("Bo")
    made = challenge(api, ana["token"], bo["id"], expires_in=3600)
    assert parse_time(made["expires_at"]) == at[0] + timedelta(hours=1)
    path = f"/v1/challenges/{made['id']}"
    at[0] += timedelta(minutes=59)
    assert api.call("GET", path, bo["token"]).get_json()["status"] == "open"
    at[0] += timedelta(minutes=1)
    assert api.call("GET", path, bo["token"]).get_json()["status"] == "expired"
    late = problem(api.call("POST", f"{path}/accept", bo["token"]), 409, "challenge_expired")
    assert late["expires_at"] == made["expires_at"]
    problem(api.call("DELETE", path, ana["token"]), 409, "challenge_expired")
    expired = api.call("GET", "/v1/challenges?status=expired", bo["token"]).get_json()["challenges"]
    assert [c["id"] for c in expired] == [made["id"]]
    assert challenge(api, ana["token"], bo["id"])["status"] == "open"  # an expired one is no longer "open": Bo again
    day = challenge(api, bo["token"], ana["id"])
    assert parse_time(day["expires_at"]) - parse_time(day["created_at"]) == timedelta(days=1)  # RED7_CHALLENGE_EXPIRY


def test_retries_with_an_idempotency_key_are_answered_not_done_again(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = api.call("POST", "/v1/challenges", ana["token"], json={"players": [bo["id"]]}, headers=key)
    again = api.call("POST", "/v1/challenges", ana["token"], json={"players": [bo["id"]]}, headers=key)
    assert (first.status_code, again.status_code) == (201, 201) and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json() and again.headers["Location"] == first.headers["Location"]
    problem(
        api.call("POST", "/v1/challenges", ana["token"], json={"players": [bo["id"]], "rated": True}, headers=key),
        422,
        "idempotency_key_reused",
    )
    path = f"{first.headers['Location']}/accept"
    accepted = api.call("POST", path, bo["token"], headers=key)
    retried = api.call("POST", path, bo["token"], headers=key)
    assert retried.headers["Idempotent-Replayed"] == "true" and retried.get_json() == accepted.get_json()
    assert accepted.get_json()["status"] == "started"
    assert len(api.call("GET", "/v1/challenges", bo["token"]).get_json()["challenges"]) == 1


@pytest.fixture
def capped(redis_pair, key_prefix) -> Api:
    """An API whose caps are set as an operator sets them: RED7_MAX_OPEN_CHALLENGES, RED7_MAX_GAMES_IN_PLAY."""
    settings = settings_for(key_prefix, max_open_challenges=2, max_games_in_play=1)
    runtime = build_runtime(settings, clients=redis_pair)
    return Api(create_app(runtime), runtime)


def test_the_caps_on_open_challenges_and_games_in_play_are_kept(capped):
    api = capped
    ana, bo, cy, di = (api.player(name) for name in ("Ana", "Bo", "Cy", "Di"))
    to_bo = challenge(api, ana["token"], bo["id"])
    challenge(api, ana["token"], cy["id"])
    found = problem(
        api.call("POST", "/v1/challenges", ana["token"], json={"players": [di["id"]]}), 409, "challenge_limit_reached"
    )
    assert found["limit"] == 2
    api.call("DELETE", f"/v1/challenges/{to_bo['id']}", ana["token"])
    to_di = challenge(api, ana["token"], di["id"])  # the cancelled one's place
    api.game(di["token"], [HUMAN, HUMAN])  # Di's one game in play
    mine = problem(api.call("POST", f"/v1/challenges/{to_di['id']}/accept", di["token"]), 409, "game_limit_reached")
    assert mine["limit"] == 1
    api.game(bo["token"], [HUMAN, HUMAN])
    problem(api.call("POST", "/v1/challenges", bo["token"], json={"players": [cy["id"]]}), 409, "game_limit_reached")
    from_cy = challenge(api, cy["token"], ana["id"])
    api.game(cy["token"], [HUMAN, HUMAN])  # the challenger has no room any more when Ana accepts
    theirs = problem(api.call("POST", f"/v1/challenges/{from_cy['id']}/accept", ana["token"]), 409, "challenge_cannot_start")
    assert (theirs["player_id"], theirs["reason"], theirs["limit"]) == (cy["id"], "game_limit_reached", 1)


def test_a_deleted_accounts_open_challenges_end(api):
    """Deleting an account cancels the challenges it sent and declines those it received."""
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    sent = challenge(api, ana["token"], bo["id"])
    received = challenge(api, cy["token"], ana["id"])
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    assert api.call("GET", f"/v1/challenges/{sent['id']}", bo["token"]).get_json()["status"] == "cancelled"
    declined = api.call("GET", f"/v1/challenges/{received['id']}", cy["token"]).get_json()
    assert declined["status"] == "declined"
    assert api.call("GET", "/v1/challenges?status=open", bo["token"]).get_json()["challenges"] == []


def test_an_inbox_is_capped_as_an_operator_sets_it_and_many_accounts_from_one_address_are_budgeted(redis_pair, key_prefix):
    """RED7_MAX_CHALLENGES_RECEIVED holds one inbox (``challenge_inbox_full``, nothing made); RED7_RATE_LIMIT_CHALLENGE
    holds an address however many accounts it makes (issue 34: 50 accounts put 77 challenges in one inbox)."""
    settings = settings_for(key_prefix, max_challenges_received=3, rate_limit_challenge="5 per hour")
    runtime = build_runtime(settings, clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    bo, cy = api.player("Bo"), api.player("Cy")
    senders = [api.player(f"S{n}") for n in range(7)]
    for sender in senders[:3]:
        challenge(api, sender["token"], bo["id"])
    full = problem(
        api.call("POST", "/v1/challenges", senders[3]["token"], json={"players": [cy["id"], bo["id"]]}),
        409,
        "challenge_inbox_full",
    )
    assert (full["players"], full["limit"]) == (["Bo"], 3)
    assert api.call("GET", "/v1/challenges", cy["token"]).get_json()["challenges"] == []  # nothing made, for Cy either
    assert api.call("GET", "/v1/challenges", senders[3]["token"]).get_json()["challenges"] == []
    challenge(api, senders[4]["token"], cy["id"])  # the fifth of the address's hour
    limited = problem(api.call("POST", "/v1/challenges", senders[5]["token"], json={"players": [cy["id"]]}), 429, "rate_limited")
    assert int(api.responses[-1][1].headers["Retry-After"]) > 0 and limited["detail"]
    elsewhere = api.call(
        "POST", "/v1/challenges", senders[6]["token"], json={"players": [cy["id"]]}, environ_base={"REMOTE_ADDR": "198.51.100.7"}
    )
    assert elsewhere.status_code == 201, elsewhere.get_json()  # another address has a budget of its own
    assert api.call("GET", "/v1/challenges", cy["token"]).status_code == 200  # reads draw on no such budget
