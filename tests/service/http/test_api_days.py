"""Time controls over HTTP: giveTime, the calendar in updateMe, vacations in the view, the games by urgency."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.harness.support import HUMAN
from tests.service.http.test_api_games import two_humans


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_give_time_moves_the_deadline_within_its_limits(api):
    ana, bo, game = two_humans(api, turn_timeout=60, seed=2)
    mover, other = ([ana, bo][game["turn"]["seat"]], [bo, ana][game["turn"]["seat"]])
    before = when(game["turn"]["deadline"])
    own = api.call("POST", f"/v1/games/{game['id']}/time", mover["token"], json={"seconds": 10})
    assert own.status_code == 409 and own.get_json()["code"] == "not_their_turn"
    given = api.call("POST", f"/v1/games/{game['id']}/time", other["token"], json={"seconds": 45})
    assert given.status_code == 200
    assert when(given.get_json()["turn"]["deadline"]) == before + timedelta(seconds=45)
    too_much = api.call("POST", f"/v1/games/{game['id']}/time", other["token"], json={"seconds": 16})
    assert too_much.status_code == 409 and too_much.get_json()["code"] == "give_time_limit_reached"
    assert too_much.get_json()["limit"] == 60 and too_much.get_json()["left"] == 15
    events = api.call("GET", f"/v1/games/{game['id']}/events", other["token"]).get_json()["events"]
    (event,) = [e for e in events if e["type"] == "time_given"]
    assert {k: event[k] for k in ("seat", "to", "seconds", "by")} == {
        "seat": 1 - game["turn"]["seat"],
        "to": game["turn"]["seat"],
        "seconds": 45,
        "by": f"player:{other['id']}",
    }


def test_give_time_needs_a_turn_limit(api):
    ana, bo, game = two_humans(api, seed=2)
    other = [bo, ana][game["turn"]["seat"]]
    refused = api.call("POST", f"/v1/games/{game['id']}/time", other["token"], json={"seconds": 10})
    assert refused.status_code == 409 and refused.get_json()["code"] == "no_turn_limit"


def test_a_calendar_refused_changes_nothing_and_a_vacation_shows_in_the_view(api):
    ana, bo, game = two_humans(api, days_per_turn=3, seed=2)
    bad = api.call("PATCH", "/v1/players/me", ana["token"], json={"name": "Anna", "time_zone": "Mars/Olympus"})
    assert bad.status_code == 422 and api.call("GET", "/v1/players/me", ana["token"]).get_json()["name"] == "Ana"
    end = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0)
    me = api.call(
        "PATCH", "/v1/players/me", ana["token"], json={"time_zone": "Europe/Paris", "vacation": {"end": end.isoformat()}}
    ).get_json()
    assert me["time_zone"] == "Europe/Paris" and me["vacations"][0]["end"] == end.isoformat().replace("+00:00", ".000Z")
    assert me["vacation_hours_left"] == 240 - 48
    seen = api.view(game["id"], bo["token"])
    assert seen["seats"][0]["vacation_until"] == me["vacations"][0]["end"] and seen["seats"][1]["vacation_until"] is None
    if seen["turn"]["seat"] == 0:  # Ana's clock stands still until she is back
        assert seen["turn"]["paused_until"] == me["vacations"][0]["end"]
        assert when(seen["turn"]["deadline"]) >= end + timedelta(days=3) - timedelta(seconds=5)
    too_long = api.call(
        "PATCH",
        "/v1/players/me",
        ana["token"],
        json={"vacation": {"start": (end + timedelta(days=1)).isoformat(), "end": (end + timedelta(days=10)).isoformat()}},
    )
    assert too_long.status_code == 409 and too_long.get_json()["code"] == "vacation_limit_reached"
    back = api.call("PATCH", "/v1/players/me", ana["token"], json={"vacation": None}).get_json()
    assert back["vacations"] == [] and api.view(game["id"], bo["token"])["seats"][0]["vacation_until"] is None


def test_my_games_to_play_come_first_the_nearest_deadline_first(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    made = {}
    for days in (14, 1, 3):
        game = api.game(bo["token"], [HUMAN, HUMAN], days_per_turn=days, seed=2)
        api.call("POST", f"/v1/games/{game['id']}/join", ana["token"], json={"code": game["join_code"]})
        view = api.view(game["id"], bo["token"])
        while view["legal_steps"]:  # Bo to move: he plays his turn, and it is Ana's
            step = ([s for s in view["legal_steps"] if s["can_win"] and s["type"] != "fold"] or view["legal_steps"])[0]
            chosen = {k: step[k] for k in ("type", "card", "seat", "to") if k in step}
            view = api.act(game["id"], bo["token"], [chosen]).get_json()
        made[days] = game["id"]
    listed = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    mine = [g for g in listed if g["your_turn"]]
    assert [g["days_per_turn"] for g in mine] == sorted(g["days_per_turn"] for g in mine)
    assert all(g["deadline"] and g["time_left"] > 0 for g in mine)
    assert len(mine) == 3


def test_time_given_with_an_idempotency_key_is_given_once_however_often_it_is_sent(api):
    """The operation documented the header and refused it (400 idempotency_key_not_supported); time given adds up,
    so a retry after a lost answer must not give it twice."""
    ana, bo, game = two_humans(api, turn_timeout=60, seed=2)
    other = [bo, ana][game["turn"]["seat"]]
    before = when(game["turn"]["deadline"])
    path, key = f"/v1/games/{game['id']}/time", {"Idempotency-Key": "give-1"}
    first = api.call("POST", path, other["token"], json={"seconds": 20}, headers=key)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    again = api.call("POST", path, other["token"], json={"seconds": 20}, headers=key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["ETag"] == first.headers["ETag"]
    assert when(again.get_json()["turn"]["deadline"]) == before + timedelta(seconds=20)  # given once
    events = api.call("GET", f"/v1/games/{game['id']}/events", other["token"]).get_json()["events"]
    assert len([e for e in events if e["type"] == "time_given"]) == 1
    other_body = api.call("POST", path, other["token"], json={"seconds": 30}, headers=key)
    assert other_body.status_code == 422 and other_body.get_json()["code"] == "idempotency_key_reused"
    fresh = api.call("POST", path, other["token"], json={"seconds": 30}, headers={"Idempotency-Key": "give-2"})
    assert fresh.status_code == 200 and when(fresh.get_json()["turn"]["deadline"]) == before + timedelta(seconds=50)
