"""Quick match over HTTP: createMatchTicket, getMatchTicket, cancelMatchTicket, their refusals, and the game a match
makes as its players find it — on fakeredis and the real Redis."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import Api, settings_for
from tests.service.http.test_openapi import json_schema

TICKETS = "/v1/match-tickets"


@pytest.fixture
def spec(api) -> dict[str, Any]:
    return api.client.get("/v1/openapi.json").get_json()


def conforms(spec: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    schema = json_schema(spec, {"$ref": "#/components/schemas/MatchTicket"})
    errors = list(Draft202012Validator(schema).iter_errors(body))
    assert not errors, errors[0].message
    return body


def open_ticket(api, token: str, **body: Any) -> Any:
    return api.call("POST", TICKETS, token, json=body)


def test_a_ticket_is_opened_read_and_cancelled_by_its_player(api, spec):
    ana = api.player("Ana")
    opened = open_ticket(api, ana["token"], player_counts=[2, 3], days_per_turn=3, ai_fill_after=60, ai_level="expert")
    assert opened.status_code == 201
    body = conforms(spec, opened.get_json())
    assert opened.headers["Location"] == f"{TICKETS}/{body['id']}" and opened.headers["Cache-Control"] == "private"
    assert (body["status"], body["player_counts"], body["days_per_turn"], body["turn_seconds"]) == ("waiting", [2, 3], 3, None)
    assert (body["ai_fill_after"], body["ai_level"], body["game_id"], body["closed_at"]) == (60.0, "expert", None, None)
    # Around a new player's 1000: 100 either side, a point wider each 0.6 s waited (a slow answer: a few more).
    low, high = body["rating_range_now"]["low"], body["rating_range_now"]["high"]
    assert low + high == 2000 and 900 - 5 <= low <= 900, body["rating_range_now"]
    read = api.call("GET", f"{TICKETS}/{body['id']}", ana["token"])
    assert read.status_code == 200 and conforms(spec, read.get_json())["status"] == "waiting"
    cancelled = api.call("DELETE", f"{TICKETS}/{body['id']}", ana["token"])
    assert cancelled.status_code == 200 and conforms(spec, cancelled.get_json())["status"] == "cancelled"
    assert cancelled.get_json()["closed_at"] is not None
    assert api.call("DELETE", f"{TICKETS}/{body['id']}", ana["token"]).get_json()["status"] == "cancelled"


def test_two_players_are_matched_and_find_their_game_in_the_ticket_and_their_list(api, spec):
    ana, bo = api.player("Ana"), api.player("Bo")
    a = open_ticket(api, ana["token"], player_counts=[2]).get_json()
    b = open_ticket(api, bo["token"], player_counts=[2]).get_json()
    api.runtime.matches.match_pass()
    seen = [api.call("GET", f"{TICKETS}/{t['id']}", p["token"]).get_json() for t, p in ((a, ana), (b, bo))]
    assert [conforms(spec, s)["status"] for s in seen] == ["matched", "matched"]
    game_id = seen[0]["game_id"]
    assert game_id and seen[1]["game_id"] == game_id
    view = api.view(game_id, ana["token"])
    assert view["status"] == "active" and [s["player_id"] for s in view["seats"]] == [ana["id"], bo["id"]]
    assert view["turn_timeout"] == 60
    for player in (ana, bo):
        games = api.call("GET", "/v1/players/me/games", player["token"]).get_json()["games"]
        assert [g["id"] for g in games] == [game_id]
    refused = api.call("DELETE", f"{TICKETS}/{a['id']}", ana["token"])
    assert refused.status_code == 409 and refused.get_json()["code"] == "match_ticket_matched"
    assert refused.get_json()["game_id"] == game_id


def test_one_open_ticket_per_kind_of_game_names_the_open_one(api):
    ana = api.player("Ana")
    first = open_ticket(api, ana["token"]).get_json()
    again = open_ticket(api, ana["token"], player_counts=[4], turn_seconds=60)
    assert again.status_code == 409 and again.get_json()["code"] == "match_ticket_already_open"
    assert again.get_json()["ticket_id"] == first["id"]
    assert open_ticket(api, ana["token"], turn_seconds=30).status_code == 201  # another time control: another kind


def test_a_player_holds_at_most_max_match_tickets(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, max_match_tickets=2), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    ana = api.player("Ana")
    assert open_ticket(api, ana["token"], turn_seconds=30).status_code == 201
    assert open_ticket(api, ana["token"], turn_seconds=60).status_code == 201
    capped = open_ticket(api, ana["token"], turn_seconds=120)
    assert capped.status_code == 409 and capped.get_json()["code"] == "match_ticket_limit_reached"
    assert capped.get_json()["limit"] == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"player_counts": [5]}, "player_counts"),
        ({"player_counts": [2, 2]}, "player_counts"),
        ({"player_counts": []}, "player_counts"),
        ({"turn_seconds": 45}, "turn_seconds"),
        ({"days_per_turn": 4}, "days_per_turn"),
        ({"turn_seconds": 60, "days_per_turn": 3}, "days_per_turn"),
        ({"rating_range": 300, "rating_range_max": 200}, "rating_range_max"),
        ({"ai_level": "genius"}, "ai_level"),
        ({"ai_fill_after": -1}, "ai_fill_after"),
        ({"expires_in": 0}, "expires_in"),
        ({"rated": "yes"}, "rated"),
    ],
)
def test_a_ticket_that_makes_no_sense_is_refused_naming_the_field(api, body, field):
    refused = open_ticket(api, api.player("Ana")["token"], **body)
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request"
    assert field in {error["field"].split(".")[0] for error in refused.get_json()["errors"]}, refused.get_json()


def test_an_expiry_over_the_servers_maximum_is_refused(api):
    refused = open_ticket(api, api.player("Ana")["token"], expires_in=14 * 24 * 3600 + 1)
    assert refused.status_code == 422


def test_someone_elses_ticket_and_an_unknown_one_are_404_and_a_ticket_needs_a_token(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    ticket = open_ticket(api, ana["token"]).get_json()
    for method in ("GET", "DELETE"):
        for token, path in ((bo["token"], ticket["id"]), (ana["token"], "mt_0000")):
            answer = api.call(method, f"{TICKETS}/{path}", token)
            assert answer.status_code == 404 and answer.get_json()["code"] == "match_ticket_not_found"
    assert open_ticket(api, None).status_code == 401
    assert api.call("GET", f"{TICKETS}/{ticket['id']}", None).status_code == 401


def test_a_create_retried_with_its_idempotency_key_gets_the_same_ticket(api):
    ana = api.player("Ana")
    key = {"Idempotency-Key": "ticket-1"}
    first = api.call("POST", TICKETS, ana["token"], json={"player_counts": [2]}, headers=key)
    again = api.call("POST", TICKETS, ana["token"], json={"player_counts": [2]}, headers=key)
    assert first.status_code == again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"] and "Idempotent-Replayed" not in first.headers
    reused = api.call("POST", TICKETS, ana["token"], json={"player_counts": [3]}, headers=key)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"


def test_a_deleted_accounts_waiting_tickets_are_cancelled(api):
    ana = api.player("Ana")
    opened = open_ticket(api, ana["token"], player_counts=[2], variant="basic").get_json()
    kind = api.runtime.matches.get(api.runtime.players.get(ana["id"]), opened["id"]).kind.key
    assert ana["id"] in api.runtime.matches.pools.load(kind).by_player
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    assert ana["id"] not in api.runtime.matches.pools.load(kind).by_player  # nobody is matched with a deleted player
