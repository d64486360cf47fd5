"""Tournaments over HTTP: the seven operations, their refusals as problems, and a duplicate round's games refused to
everyone not at the table on every route that reads a game, until the round ends."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.harness.tournaments import play_round

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def soon(seconds: float = 0.4) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def terms(**chosen: Any) -> dict[str, Any]:
    return {"name": "Cup", "table_size": 3, "rounds": 1, "entries_close": soon(), "min_players": 3, "max_players": 12, **chosen}


def problem(response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    body = response.get_json()
    assert body["code"] == code, body
    return body


def test_create_list_get_enter_and_withdraw(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    key = {"Idempotency-Key": "cup-1"}
    body = terms(entries_close=soon(3600))
    made = api.call("POST", "/v1/tournaments", ana["token"], json=body, headers=key)
    assert made.status_code == 201 and made.headers["Location"] == f"/v1/tournaments/{made.get_json()['id']}"
    again = api.call("POST", "/v1/tournaments", ana["token"], json=body, headers=key)
    assert again.get_json()["id"] == made.get_json()["id"] and again.headers.get("Idempotent-Replayed") == "true"
    reused = api.call("POST", "/v1/tournaments", ana["token"], json={**body, "rounds": 2}, headers=key)
    problem(reused, 422, "idempotency_key_reused")
    tid = made.get_json()["id"]
    listed = api.call("GET", "/v1/tournaments?status=entering&format=swiss").get_json()
    assert [t["id"] for t in listed["tournaments"]] == [tid] and listed["tournaments"][0]["entrants"] == 0
    assert api.call("GET", "/v1/tournaments?format=round_robin").get_json()["tournaments"] == []
    entered = api.call("POST", f"/v1/tournaments/{tid}/entries", bo["token"])
    assert entered.status_code == 200 and [e["player_id"] for e in entered.get_json()["entrants"]] == [bo["id"]]
    problem(api.call("POST", f"/v1/tournaments/{tid}/entries", bo["token"]), 409, "already_entered")
    left = api.call("DELETE", f"/v1/tournaments/{tid}/entries", bo["token"]).get_json()
    assert left["entrants"][0]["withdrawn"] == "choice"
    problem(api.call("POST", f"/v1/tournaments/{tid}/entries", bo["token"]), 409, "tournament_withdrawn")
    problem(api.call("DELETE", f"/v1/tournaments/{tid}/entries", ana["token"]), 403, "not_entered")
    shown = api.call("GET", f"/v1/tournaments/{tid}").get_json()
    assert (shown["status"], shown["settings"]["table_size"], shown["version"]) == ("entering", 3, 3)
    standings = api.call("GET", f"/v1/tournaments/{tid}/standings").get_json()
    assert [line["player_id"] for line in standings["groups"][0]] == [bo["id"]]


def test_refusals_are_problems_with_their_codes_in_the_callers_language(api):
    ana = api.player("Ana")
    problem(api.call("POST", "/v1/tournaments", ana["token"], json=terms(group_size=3)), 422, "invalid_tournament_settings")
    problem(api.call("POST", "/v1/tournaments", ana["token"], json={"name": "x"}), 422, "invalid_request")
    problem(api.call("POST", "/v1/tournaments", json=terms()), 401, "token_required")
    gated = api.call("POST", "/v1/tournaments", ana["token"], json=terms(entries_close=soon(60), rating_min=3000)).get_json()
    entry = api.call("POST", f"/v1/tournaments/{gated['id']}/entries?lang=pl", ana["token"])
    refused = problem(entry, 403, "rating_out_of_range")
    assert refused["title"] == "Twój ranking jest poza zakresem turnieju"
    problem(api.call("GET", "/v1/tournaments/t_0000000000000000"), 404, "tournament_not_found")
    problem(api.call("GET", f"/v1/tournaments/{gated['id']}/rounds/1"), 404, "tournament_round_not_found")
    problem(api.call("GET", f"/v1/tournaments/{gated['id']}/rounds/first"), 404, "tournament_round_not_found")
    problem(api.call("GET", "/v1/tournaments?cursor=nonsense"), 422, "invalid_request")


#: Every route that reads a game, and whether a player seated at the game reads it while the round runs.
READS = [
    ("/v1/games/{id}", True),
    ("/v1/games/{id}/events", True),
    ("/v1/games/{id}/stream", True),
    ("/v1/games/{id}/replay", True),
    ("/v1/games/{id}/replay/export", False),  # a game in play is never exported (game_not_finished)
    ("/v1/games/{id}/replay/view", False),  # a spectator's page: nobody's seat
    ("/v1/games/{id}/analysis", False),  # a finished game's, public
]


def test_a_duplicate_rounds_games_are_refused_outside_their_table_on_every_read_until_it_ends(api):
    org = api.player("Org")
    field = [api.player(f"Player {chr(65 + n)}") for n in range(6)]
    outsider = api.player("Eve")
    made = api.call("POST", "/v1/tournaments", org["token"], json=terms(duplicate=True)).get_json()
    for player in field:
        assert api.call("POST", f"/v1/tournaments/{made['id']}/entries", player["token"]).status_code == 200
    time.sleep(0.5)  # entries close
    first = api.call("GET", f"/v1/tournaments/{made['id']}/rounds/1", field[0]["token"]).get_json()
    assert len(first["tables"]) == 2 and first["deals"] == [] and first["your_game"] is not None
    game_id = first["your_game"]
    mine = next(t for t in first["tables"] if t["game_id"] == game_id)
    other_table = next(t for t in first["tables"] if t["game_id"] != game_id)
    seated = next(p for p in field if p["id"] == mine["seats"][0])
    elsewhere = next(p for p in field if p["id"] == other_table["seats"][0])
    seeds = {api.runtime.games.load(t["game_id"]).seed for t in first["tables"]}
    assert len(seeds) == 1, "both tables of three are dealt alike"
    for path, seated_reads in READS:
        url = path.format(id=game_id) + ("?wait=0" if path.endswith("/stream") else "")
        for token in (outsider["token"], elsewhere["token"], None):
            problem(api.call("GET", url, token), 403, "tournament_round_running")
        if seated_reads:
            read = api.call("GET", url, seated["token"])
            assert read.status_code == 200, path
            read.close()  # a stream holds its request's context (and its caller) until it is closed
    play_round(api.runtime, made["id"])
    closed = api.call("GET", f"/v1/tournaments/{made['id']}/rounds/1").get_json()
    assert closed["closed"] and [d["size"] for d in closed["deals"]] == [3]
    for path, _ in READS:
        url = path.format(id=game_id)
        if path.endswith("/stream") or path.endswith("/analysis"):
            continue  # a finished game's stream ends at once; its analysis is asked for first (404 until then)
        assert api.call("GET", url, outsider["token"]).status_code == 200, path
    assert api.call("GET", f"/v1/tournaments/{made['id']}").get_json()["status"] == "finished"
