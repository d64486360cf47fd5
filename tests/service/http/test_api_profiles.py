"""Players others can find, through the API: handles, public profiles, the search, and deleting an account.

A deleted player's finished game is exported and verified the ways a user does it (``red7 replay verify`` on the
file, and importing it: ``importReplay`` verifies what it takes).
"""

from __future__ import annotations

import json
from typing import Any

from service.processes.cli import main
from tests.harness.support import HUMAN, ai


def sign_up(api, name: str, handle: str | None = None, **kwargs: Any) -> Any:
    body = {"name": name} if handle is None else {"name": name, "handle": handle}
    return api.call("POST", "/v1/players", json=body, **kwargs)


def player(api, name: str, handle: str | None = None) -> dict[str, Any]:
    response = sign_up(api, name, handle)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def finished_game(api, ana: dict[str, Any], bo: dict[str, Any]) -> str:
    """A basic game of Ana (seat 0) and Bo (seat 1), played to its end by whoever is to move folding."""
    game = api.game(ana["token"], [HUMAN, HUMAN], variant="basic")
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200
    tokens = {ana["id"]: ana["token"], bo["id"]: bo["token"]}
    view = api.view(game["id"])
    while view["status"] != "finished":
        mover = view["seats"][view["turn"]["seat"]]["player_id"]
        assert api.act(game["id"], tokens[mover], [{"type": "fold"}]).status_code == 200
        api.run_jobs()
        view = api.view(game["id"])
    return game["id"]


# --- handles -----------------------------------------------------------------------------------------------------


def test_a_handle_chosen_at_sign_up_is_in_the_answer_and_the_profile(api):
    ana = player(api, "Ana", "Ana_B")
    assert ana["handle"] == "Ana_B"
    me = api.call("GET", "/v1/players/me", ana["token"]).get_json()
    assert me == {
        "id": ana["id"],
        "name": "Ana",
        "handle": "Ana_B",
        "created_at": ana["created_at"],
        "webhook_url": None,
        "language": None,
        "challenge_from": "everyone",
        "talk_from": "opponents",
        "moderator": False,
        "live_listed": True,
        "archive_hidden": False,
        "unread_notifications": 0,
        "time_zone": "UTC",
        "weekends_off": False,
        "vacations": [],
        "vacation_hours_left": 240,
        "vacation_hours_per_year": 240,
    }


def test_a_handle_taken_whatever_its_case_refuses_the_sign_up_and_makes_nobody(api, runtime):
    player(api, "Ana", "Ana_B")
    prefix = runtime.settings.key_prefix
    before = sorted(runtime.redis.scan_iter(match=f"{prefix}*"))
    refused = sign_up(api, "Bo", "ANA_b")
    assert refused.status_code == 409 and refused.get_json()["code"] == "handle_taken"
    assert sorted(runtime.redis.scan_iter(match=f"{prefix}*")) == before


def test_a_handle_breaking_the_rule_or_reserved_is_refused_naming_the_field(api):
    token = player(api, "Ana")["token"]
    for handle, code in (
        ("an", "handle_invalid"),
        ("ana b", "handle_invalid"),
        ("x" * 21, "handle_invalid"),
        ("zoë", "handle_invalid"),
        ("me", "handle_reserved"),
        ("Admin", "handle_reserved"),
        ("p_0123456789abcdef", "handle_reserved"),
    ):
        for response in (sign_up(api, "Bo", handle), api.call("PATCH", "/v1/players/me", token, json={"handle": handle})):
            problem = response.get_json()
            assert response.status_code == 422 and problem["code"] == code, (handle, problem)
            assert problem["errors"][0]["field"] == "handle"
    assert sign_up(api, "Bo", 7).get_json()["code"] == "invalid_request"


def test_a_handle_is_changed_later_and_the_old_one_is_kept_for_its_player_a_while(api):
    ana, bo = player(api, "Ana"), player(api, "Bo")
    assert api.call("PATCH", "/v1/players/me", ana["token"], json={"handle": "ana"}).get_json()["handle"] == "ana"
    changed = api.call("PATCH", "/v1/players/me", ana["token"], json={"handle": "ana_b"})
    assert changed.status_code == 200 and changed.get_json()["handle"] == "ana_b"
    taken = api.call("PATCH", "/v1/players/me", bo["token"], json={"handle": "Ana", "name": "Bob"})
    assert taken.status_code == 409 and taken.get_json()["code"] == "handle_taken"
    assert api.call("GET", "/v1/players/me", bo["token"]).get_json()["name"] == "Bo"  # refused: nothing changed
    assert api.call("GET", "/v1/players/ana").get_json()["code"] == "player_not_found"
    back = api.call("PATCH", "/v1/players/me", ana["token"], json={"handle": "ANA"})
    assert back.status_code == 200 and back.get_json()["handle"] == "ANA"
    removed = api.call("PATCH", "/v1/players/me", ana["token"], json={"handle": None})
    assert removed.get_json()["handle"] is None and api.call("GET", "/v1/players/ana").status_code == 404


# --- profiles ----------------------------------------------------------------------------------------------------


def test_a_profile_is_read_by_id_or_handle_without_a_token(api):
    ana, bo = player(api, "Ana", "Ana_B"), player(api, "Bo", "bobo")
    game_id = finished_game(api, ana, bo)
    winner = api.view(game_id)["winner"]
    by_id = api.call("GET", f"/v1/players/{ana['id']}")
    assert by_id.status_code == 200 and by_id.headers["Cache-Control"] == "no-cache"
    assert by_id.get_json() == {
        "id": ana["id"],
        "handle": "Ana_B",
        "name": "Ana",
        "since": ana["created_at"],
        "games": {"played": 1, "won": int(winner == 0)},
    }
    assert api.call("GET", "/v1/players/ana_b").get_json() == by_id.get_json()
    assert api.call("GET", "/v1/players/BOBO").get_json()["games"] == {"played": 1, "won": int(winner == 1)}
    for nobody in ("nobody", "p_0123456789abcdef", "x", "%7Bana_b%7D"):
        missing = api.call("GET", f"/v1/players/{nobody}")
        assert missing.status_code == 404 and missing.get_json()["code"] == "player_not_found"


def test_profiles_and_searches_never_show_a_token_or_a_webhook(api):
    ana = player(api, "Ana", "ana")
    hooked = api.call("PATCH", "/v1/players/me", ana["token"], json={"webhook_url": "https://example.org/hook"}).get_json()
    issued = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}).get_json()
    secrets = [ana["token"], issued["token"], issued["id"], "example.org", hooked["webhook_secret"], "first token", "phone"]
    bodies = [
        api.call("GET", f"/v1/players/{ana['id']}").get_data(as_text=True),
        api.call("GET", "/v1/players/ana").get_data(as_text=True),
        api.call("GET", "/v1/players?handle=an", issued["token"]).get_data(as_text=True),
        api.call("GET", "/v1/players", issued["token"]).get_data(as_text=True),
    ]
    for body in bodies:
        assert "ana" in body and not [secret for secret in secrets if secret in body], body
        assert "webhook" not in body and "token" not in body


# --- search ------------------------------------------------------------------------------------------------------


def test_search_finds_players_by_the_start_of_their_handle_a_page_at_a_time(api):
    token = player(api, "Me")["token"]
    for name, handle in (("Ana", "Ana"), ("Anabel", "anabel"), ("Andre", "ANDRE"), ("Bo", "bobo"), ("Cy", None)):
        player(api, name, handle)
    first = api.call("GET", "/v1/players?handle=AN&limit=2", token)
    assert first.status_code == 200 and first.headers["Cache-Control"] == "private"
    page = first.get_json()
    assert [p["handle"] for p in page["players"]] == ["Ana", "anabel"] and page["next_cursor"]
    rest = api.call("GET", f"/v1/players?handle=an&limit=2&cursor={page['next_cursor']}", token).get_json()
    assert [(p["handle"], p["name"]) for p in rest["players"]] == [("ANDRE", "Andre")] and rest["next_cursor"] is None
    everyone = api.call("GET", "/v1/players", token).get_json()
    assert [p["handle"] for p in everyone["players"]] == ["Ana", "anabel", "ANDRE", "bobo"]
    assert set(everyone["players"][0]) == {"id", "handle", "name"}


def test_search_needs_a_token_and_refuses_what_is_no_prefix_or_cursor(api):
    token = player(api, "Ana", "ana")["token"]
    assert api.call("GET", "/v1/players?handle=an").get_json()["code"] == "token_required"
    for query, field in (
        ("handle=a%20b", "handle"),
        ("handle=" + "a" * 21, "handle"),
        ("limit=21", "limit"),
        ("handle=an&cursor=bo.p_0123456789abcdef", "cursor"),
        ("cursor=no%20cursor", "cursor"),
    ):
        refused = api.call("GET", f"/v1/players?{query}", token)
        assert refused.status_code == 422 and refused.get_json()["errors"][0]["field"] == field, query


# --- handles at the table ----------------------------------------------------------------------------------------


def test_a_games_view_and_the_list_of_games_show_each_seated_players_handle(api):
    ana, bo = player(api, "Ana", "ana"), player(api, "Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN, ai("greedy")], variant="basic")
    api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    seats = api.view(game["id"], ana["token"])["seats"]
    assert [(s["name"], s["handle"], s["player_id"]) for s in seats] == [
        ("Ana", "ana", ana["id"]),
        ("Bo", None, bo["id"]),
        ("AI 2 (greedy)", None, None),
    ]
    api.call("PATCH", "/v1/players/me", bo["token"], json={"handle": "bobo"})
    assert api.view(game["id"], ana["token"])["seats"][1]["handle"] == "bobo"  # the handle now, not the view rendered before
    listed = api.call("GET", "/v1/players/me/games", bo["token"]).get_json()["games"][0]
    assert listed["seats"] == ["Ana", "Bo", "AI 2 (greedy)"] and listed["handles"] == ["ana", "bobo", None]


# --- deleting an account -----------------------------------------------------------------------------------------


def test_a_deleted_account_answers_nobody_frees_its_handle_and_its_replays_still_verify(api, tmp_path, capsys):
    ana, bo = player(api, "Ana", "ana"), player(api, "Bo", "bobo")
    hooked = api.call("PATCH", "/v1/players/me", ana["token"], json={"webhook_url": "https://example.org/hook"})
    assert hooked.status_code == 200
    phone = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}).get_json()["token"]
    game_id = finished_game(api, ana, bo)
    waiting = api.game(ana["token"], [HUMAN, HUMAN], variant="basic")
    in_play = api.game(bo["token"], [HUMAN, HUMAN], variant="basic")
    api.call("POST", f"/v1/games/{in_play['id']}/join", ana["token"], json={"code": in_play["join_code"]})

    deleted = api.call("DELETE", "/v1/players/me", ana["token"])
    assert deleted.status_code == 204 and not deleted.data

    for token in (ana["token"], phone):
        assert api.call("GET", "/v1/players/me", token).get_json()["code"] == "invalid_token"
    for ref in (ana["id"], "ana"):
        assert api.call("GET", f"/v1/players/{ref}").get_json()["code"] == "player_not_found"
    assert api.call("GET", "/v1/players?handle=ana", bo["token"]).get_json()["players"] == []
    assert api.view(waiting["id"])["status"] == "cancelled"
    resigned = api.view(in_play["id"], bo["token"])["seats"][1]
    assert (resigned["name"], resigned["handle"], resigned["player_id"]) == (
        "deleted player (resigned; AI greedy)",
        None,
        ana["id"],
    )
    seat = api.view(game_id, bo["token"])["seats"][0]
    assert (seat["name"], seat["handle"], seat["player_id"]) == ("deleted player", None, ana["id"])
    assert player(api, "Cy", "ANA")["handle"] == "ANA"  # the handle is free at once

    exported = api.call("GET", f"/v1/games/{game_id}/replay/export")
    assert exported.status_code == 200
    document = exported.get_json()
    assert document["seats"][0]["name"] == "deleted player" and "Ana" not in exported.get_data(as_text=True)
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(document))
    assert main(["replay", "verify", str(path)]) == 0 and "OK" in capsys.readouterr().out
    imported = api.call("POST", "/v1/replays", bo["token"], json=document)
    assert imported.status_code == 201, imported.get_json()
    events = api.call("GET", f"/v1/games/{game_id}/events?after=0&limit=500").get_json()["events"]
    assert [e["name"] for e in events if e["type"] == "seat_taken"] == ["deleted player", "Bo"]


def test_deleting_needs_the_players_token(api):
    assert api.call("DELETE", "/v1/players/me").get_json()["code"] == "token_required"
    assert api.call("DELETE", "/v1/players/me", "r7_nope").get_json()["code"] == "invalid_token"
