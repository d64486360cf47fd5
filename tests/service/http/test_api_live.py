"""Live games to watch over HTTP: the list and its filters, the watchers counted as spectators' feeds open and close
(long-polls, streams, and a connection dropped without a close), a player's ``live_listed`` setting, and a
duplicate tournament round never listed while it runs."""

from __future__ import annotations

import time

import pytest

from tests.harness.support import HUMAN, ai
from tests.harness.tournaments import play_round
from tests.service.http.test_api_tournaments import terms

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def listed(api, query: str = "") -> dict[str, dict]:
    api.runtime.live.forget()  # the kept candidates: a game made a moment ago is looked at
    response = api.call("GET", f"/v1/live-games{query}")
    assert response.status_code == 200, response.get_json()
    return {game["id"]: game for game in response.get_json()["games"]}


def started(api, token: str, **options) -> str:
    game = api.game(token, [HUMAN, ai()], **options)
    api.run_jobs()
    return game["id"]


def test_games_in_play_are_listed_with_their_filters_and_the_highest_rated_first(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    basic = started(api, ana["token"], variant="basic")
    advanced = started(api, bo["token"], variant="advanced", action_rules=True)
    waiting = api.game(ana["token"], [HUMAN, HUMAN])["id"]
    found = listed(api)
    assert set(found) == {basic, advanced}, "a game still waiting for players is not being played"
    assert found[basic]["watchers"] == 0 and found[basic]["seats"] == ["Ana", "AI 1 (greedy)"]
    assert found[basic]["view_url"] == f"/v1/games/{basic}" and found[basic]["rating"] == 1000
    assert set(listed(api, "?variant=basic")) == {basic}
    assert set(listed(api, "?action_rules=true")) == {advanced}
    assert set(listed(api, "?rated=true")) == set()
    assert set(listed(api, "?players=3")) == set()
    api.runtime.live.rating = lambda player, ladder: 1500 if player == bo["id"] else 900
    assert list(listed(api)) == [advanced, basic], "the highest rated first"
    assert waiting not in listed(api)
    bad = api.call("GET", "/v1/live-games?order=newest")
    assert bad.status_code == 422


def test_watchers_are_counted_as_spectators_come_and_go(api):
    ana = api.player("Ana")
    game = started(api, ana["token"])
    live = api.runtime.live
    clock = {"now": 1_800_000_000_000}
    live.now_ms = lambda: clock["now"]
    api.call("GET", f"/v1/games/{game}/events?after=0&limit=1")  # a spectator's poll
    assert listed(api)[game]["watchers"] == 1
    api.call("GET", f"/v1/games/{game}/events?after=0&limit=1")  # the same spectator again: one watcher
    assert listed(api)[game]["watchers"] == 1
    api.call("GET", f"/v1/games/{game}/events?after=0&limit=1", ana["token"])  # a player is no spectator
    assert listed(api)[game]["watchers"] == 1
    stream = api.call("GET", f"/v1/games/{game}/stream", headers={"X-Forwarded-For": "203.0.113.9"})
    assert stream.status_code == 200
    assert listed(api)[game]["watchers"] == 2, "an open stream is a watcher of its own"
    stream.close()  # the spectator leaves: the lease goes at once
    assert listed(api)[game]["watchers"] == 1
    dropped = api.call("GET", f"/v1/games/{game}/stream")  # never closed: a process that died, a cut cable
    assert listed(api)[game]["watchers"] == 2
    clock["now"] += 31_000  # the poll's lease (wait 0 + 30 s) ran out; the stream's (heartbeat + 30 s) too
    assert listed(api)[game]["watchers"] == 0, "a dropped connection stops counting when its lease runs out"
    dropped.close()


def test_a_player_who_keeps_their_games_off_the_list_is_respected(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    hers, his = started(api, ana["token"]), started(api, bo["token"])
    updated = api.call("PATCH", "/v1/players/me", ana["token"], json={"live_listed": False})
    assert updated.status_code == 200 and updated.get_json()["live_listed"] is False
    assert set(listed(api)) == {his}
    assert api.call("GET", f"/v1/games/{hers}").status_code == 200, "who has the link still watches"
    api.call("PATCH", "/v1/players/me", ana["token"], json={"live_listed": True})
    assert set(listed(api)) == {hers, his}


def test_a_duplicate_round_is_never_listed_while_it_runs(api):
    org = api.player("Org")
    field = [api.player(f"Player {chr(65 + n)}") for n in range(6)]
    made = api.call("POST", "/v1/tournaments", org["token"], json=terms(duplicate=True)).get_json()
    for player in field:
        assert api.call("POST", f"/v1/tournaments/{made['id']}/entries", player["token"]).status_code == 200
    time.sleep(0.5)  # entries close
    first = api.call("GET", f"/v1/tournaments/{made['id']}/rounds/1", field[0]["token"]).get_json()
    round_games = {t["game_id"] for t in first["tables"]}
    assert all(api.runtime.games.load(g).status == "active" for g in round_games)
    outside = started(api, org["token"])
    for query in ("", "?players=3", "?order=watchers"):
        assert not round_games & set(listed(api, query)), "a duplicate round's deal is secret until it ends"
    assert outside in listed(api)
    play_round(api.runtime, made["id"])
    assert not round_games & set(listed(api)), "over: no longer in play"


def test_an_ordinary_game_of_a_tournament_is_listed(api):
    org = api.player("Org")
    field = [api.player(f"Player {chr(65 + n)}") for n in range(3)]
    made = api.call("POST", "/v1/tournaments", org["token"], json=terms()).get_json()
    for player in field:
        api.call("POST", f"/v1/tournaments/{made['id']}/entries", player["token"])
    time.sleep(0.5)
    first = api.call("GET", f"/v1/tournaments/{made['id']}/rounds/1", field[0]["token"]).get_json()
    assert {t["game_id"] for t in first["tables"]} <= set(listed(api))
