"""Blocks, mutes and who may reach a player through the API: every operation, its refusals with their status and
code, and privacy (a blocked player cannot tell a block from any other refusal) — on fakeredis and the real Redis."""

from __future__ import annotations

from typing import Any

import pytest

from service.application import blocks as blocking
from tests.harness.support import HUMAN, Api
from tests.service.http.test_api_challenges import conforms, problem


@pytest.fixture
def spec(api) -> dict[str, Any]:
    return api.client.get("/v1/openapi.json").get_json()


def without_request_id(headers: Any) -> dict[str, str]:
    """A response's headers less its ``X-Request-Id`` (new for every request, so it tells nothing of why)."""
    return {k: v for k, v in dict(headers).items() if k.lower() != "x-request-id"}


def named(api: Api, name: str, handle: str) -> dict[str, Any]:
    response = api.call("POST", "/v1/players", json={"name": name, "handle": handle})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


pytestmark = pytest.mark.every_store


def test_block_by_handle_or_id_list_a_page_at_a_time_and_unblock(api, spec):
    ana, bo, cy = named(api, "Ana", "ana_b"), named(api, "Bo", "bo_b"), api.player("Cy")
    first = api.call("PUT", "/v1/players/me/blocks/bo_b", ana["token"])
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-store"
    conforms(spec, "BlockedPlayer", first.get_json())
    assert first.get_json()["id"] == bo["id"] and first.get_json()["list"] == "blocks"
    again = api.call("PUT", f"/v1/players/me/blocks/{bo['id']}", ana["token"])  # by id: the same block
    assert again.get_json() == first.get_json()
    api.call("PUT", f"/v1/players/me/blocks/{cy['id']}", ana["token"])
    page = api.call("GET", "/v1/players/me/blocks?limit=1", ana["token"]).get_json()
    conforms(spec, "BlockList", page)
    rest = api.call("GET", f"/v1/players/me/blocks?limit=1&cursor={page['next_cursor']}", ana["token"]).get_json()
    assert page["limit"] == blocking.LIMITS["blocks"] and rest["next_cursor"] is None
    assert {page["players"][0]["id"], rest["players"][0]["id"]} == {bo["id"], cy["id"]}
    gone = api.call("DELETE", "/v1/players/me/blocks/bo_b", ana["token"])
    assert gone.status_code == 204 and api.call("DELETE", "/v1/players/me/blocks/bo_b", ana["token"]).status_code == 204
    assert [p["id"] for p in api.call("GET", "/v1/players/me/blocks", ana["token"]).get_json()["players"]] == [cy["id"]]


def test_mute_and_unmute_in_a_list_of_their_own(api, spec):
    ana, bo = api.player("Ana"), api.player("Bo")
    muted = api.call("PUT", f"/v1/players/me/mutes/{bo['id']}", ana["token"])
    assert muted.status_code == 200 and muted.get_json()["list"] == "mutes"
    conforms(spec, "BlockedPlayer", muted.get_json())
    mutes = api.call("GET", "/v1/players/me/blocks?list=mutes", ana["token"]).get_json()
    assert [p["id"] for p in mutes["players"]] == [bo["id"]]
    assert api.call("GET", "/v1/players/me/blocks", ana["token"]).get_json()["players"] == []
    assert api.call("DELETE", f"/v1/players/me/mutes/{bo['id']}", ana["token"]).status_code == 204
    assert api.call("GET", "/v1/players/me/blocks?list=mutes", ana["token"]).get_json()["players"] == []


def test_the_refusals_have_their_codes(api, monkeypatch):
    ana, bo, cy = named(api, "Ana", "ana_b"), api.player("Bo"), api.player("Cy")
    problem(api.call("PUT", "/v1/players/me/blocks/bo"), 401, "token_required")
    problem(api.call("PUT", "/v1/players/me/blocks/nobody_here", ana["token"]), 404, "player_not_found")
    problem(api.call("DELETE", "/v1/players/me/mutes/nobody_here", ana["token"]), 404, "player_not_found")
    problem(api.call("PUT", "/v1/players/me/blocks/ana_b", ana["token"]), 422, "cannot_block_yourself")
    problem(api.call("PUT", f"/v1/players/me/mutes/{ana['id']}", ana["token"]), 422, "cannot_block_yourself")
    problem(api.call("GET", "/v1/players/me/blocks?list=friends", ana["token"]), 422, "invalid_request")
    problem(api.call("GET", "/v1/players/me/blocks?limit=0", ana["token"]), 422, "invalid_request")
    problem(api.call("GET", "/v1/players/me/blocks?cursor=nonsense", ana["token"]), 422, "invalid_request")
    monkeypatch.setitem(blocking.LIMITS, "blocks", 1)
    api.call("PUT", f"/v1/players/me/blocks/{bo['id']}", ana["token"])
    capped = problem(api.call("PUT", f"/v1/players/me/blocks/{cy['id']}", ana["token"]), 409, "block_limit_reached")
    assert capped["limit"] == 1
    body = api.call("PATCH", "/v1/players/me", ana["token"], data="{", content_type="application/json")
    problem(body, 400, "malformed_json")


def test_who_may_reach_me_is_part_of_my_profile(api, spec):
    ana = api.player("Ana")
    me = api.call("GET", "/v1/players/me", ana["token"]).get_json()
    assert (me["challenge_from"], me["talk_from"]) == ("everyone", "opponents")
    conforms(spec, "Player", me)
    changed = api.call("PATCH", "/v1/players/me", ana["token"], json={"challenge_from": "played", "talk_from": "nobody"})
    assert changed.status_code == 200 and (changed.get_json()["challenge_from"], changed.get_json()["talk_from"]) == (
        "played",
        "nobody",
    )
    problem(api.call("PATCH", "/v1/players/me", ana["token"], json={"challenge_from": "friends"}), 422, "invalid_request")
    problem(api.call("PATCH", "/v1/players/me", ana["token"], json={"talk_from": 3}), 422, "invalid_request")
    assert api.call("GET", "/v1/players/me", ana["token"]).get_json()["challenge_from"] == "played"


def test_a_blocked_player_cannot_tell_a_block_from_a_setting(api):
    """Bo is blocked by Ana; Cyd takes challenges from nobody: what Bo hears from each is the same, but the name."""
    ana, bo, cy = named(api, "Ana", "ana_b"), named(api, "Bo", "bo_b"), named(api, "Cyd", "cy_b")
    profile_before = api.call("GET", "/v1/players/ana_b", bo["token"]).get_json()
    api.call("PUT", "/v1/players/me/blocks/bo_b", ana["token"])
    api.call("PATCH", "/v1/players/me", cy["token"], json={"challenge_from": "nobody"})
    by_block = api.call("POST", "/v1/challenges", bo["token"], json={"players": ["ana_b"]})
    by_setting = api.call("POST", "/v1/challenges", bo["token"], json={"players": ["cy_b"]})
    assert by_block.status_code == by_setting.status_code == 403
    a, c = by_block.get_json(), by_setting.get_json()
    assert a.pop("request_id") != c.pop("request_id")  # new for every request: it tells nothing of why
    assert a["code"] == c["code"] == "challenge_refused"
    assert {k: str(v).replace("Ana", "X") for k, v in a.items()} == {k: str(v).replace("Cyd", "X") for k, v in c.items()}
    assert without_request_id(by_block.headers) == without_request_id(by_setting.headers)
    assert api.call("GET", "/v1/players/ana_b", bo["token"]).get_json() == profile_before
    assert api.call("GET", "/v1/challenges", ana["token"]).get_json()["challenges"] == []
    seen = api.call("GET", "/v1/players/me/blocks", bo["token"]).get_json()
    assert seen["players"] == []  # Bo's own list says nothing of Ana's


def test_a_seat_at_a_blockers_listed_table_is_refused_as_a_full_tables_is(api):
    ana, bo, cy, di = api.player("Ana"), api.player("Bo"), api.player("Cy"), api.player("Di")
    table = api.game(ana["token"], [HUMAN, HUMAN], listed=True)
    api.call("PUT", f"/v1/players/me/blocks/{ana['id']}", bo["token"])  # Bo blocks Ana: Bo cannot sit at her table
    refused = problem(api.call("POST", f"/v1/games/{table['id']}/join", bo["token"], json={}), 409, "game_full")
    assert refused["detail"] == refused["title"] == "Every seat of this game is taken"  # the lobby's own words, no more
    assert set(refused) == {"type", "title", "status", "detail", "code", "instance", "request_id"}
    api.call("PUT", f"/v1/players/me/blocks/{cy['id']}", ana["token"])  # and the other way: Ana blocks Cy
    problem(api.call("POST", f"/v1/games/{table['id']}/join", cy["token"], json={}), 409, "game_full")
    assert api.call("POST", f"/v1/games/{table['id']}/join", di["token"], json={}).status_code == 200


def test_a_blockers_listed_table_is_not_in_the_blocked_players_open_tables(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    table = api.game(ana["token"], [HUMAN, HUMAN], listed=True)

    def listed(token: str) -> list[str]:
        return [g["id"] for g in api.call("GET", "/v1/games", token).get_json()["games"]]

    assert table["id"] in listed(bo["token"])
    api.call("PUT", f"/v1/players/me/blocks/{bo['id']}", ana["token"])
    assert table["id"] not in listed(bo["token"]) and table["id"] in listed(cy["token"])
    api.call("PUT", f"/v1/players/me/blocks/{ana['id']}", cy["token"])  # the other way
    assert table["id"] not in listed(cy["token"])
