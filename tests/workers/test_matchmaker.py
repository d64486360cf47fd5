"""The matchmaker in the workers: one at a time holds its role, its passes seat tickets, and an offline player is
seated hours later and hears of it by webhook."""

from __future__ import annotations

import json
import threading

from tests.harness.deployment import wait_until
from tests.service.application.test_matchmaking_service import Clock
from tests.workers.test_jobs import Receiver, receiver, verify  # noqa: F401 (fixture)
from workers.matchmaker import Matchmaker, start_matchmaker
from workers.runner import drain, start_embedded

TICKETS = "/v1/match-tickets"


def test_one_matchmaker_at_a_time_holds_the_role_and_one_that_stops_hands_it_on(api):
    first, second = Matchmaker(api.runtime, "worker-1"), Matchmaker(api.runtime, "worker-2")
    assert first.holds_role() and not second.holds_role()
    assert first.tick() == 0 and second.tick() == 0  # the other one passes, this one waits
    first.release()
    assert second.holds_role() and not first.holds_role()


def test_a_matchmaker_seats_two_players_within_a_pass_of_their_tickets(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    stop = threading.Event()
    thread = start_matchmaker(api.runtime, "worker-1", stop)
    try:
        a = api.call("POST", TICKETS, ana["token"], json={"player_counts": [2]}).get_json()
        api.call("POST", TICKETS, bo["token"], json={"player_counts": [2]})
        seen = wait_until(
            lambda: (t := api.call("GET", f"{TICKETS}/{a['id']}", ana["token"]).get_json())["game_id"] and t,
            5,
            "the matchmaker seats them",
        )
        assert api.view(seen["game_id"], ana["token"])["status"] == "active"
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()


def test_the_embedded_server_runs_a_matchmaker_too(api, jobs_installed):
    before = set(threading.enumerate())
    stop = start_embedded(api.runtime, idle=1)
    started = [t for t in threading.enumerate() if t not in before]
    try:
        ana = api.player("Ana")
        ticket = api.call("POST", TICKETS, ana["token"], json={"player_counts": [2], "ai_fill_after": 0.5}).get_json()
        seen = wait_until(
            lambda: api.call("GET", f"{TICKETS}/{ticket['id']}", ana["token"]).get_json()["game_id"],
            10,
            "the AI seat fills the table",
        )
        wait_until(lambda: api.view(seen, ana["token"])["legal_steps"] or api.view(seen)["version"] > 4, 10, "the game is played")
    finally:
        stop.set()
        wait_until(lambda: not any(t.is_alive() for t in started), 5, "every embedded thread ends once stopped")


def test_an_offline_correspondence_player_is_seated_an_hour_later_and_hears_of_it(api, receiver):  # noqa: F811
    """Ana asks for a game at three days a turn and goes away; an hour later Bo asks for the same: they are seated
    together without Ana doing anything, and she finds the game by webhook, in her ticket and in her list."""
    clock = Clock()
    api.runtime.matches.clock = clock
    ana, bo = api.player("Ana"), api.player("Bo")
    secret = api.call("PATCH", "/v1/players/me", ana["token"], json={"webhook_url": receiver}).get_json()["webhook_secret"]
    body = {"player_counts": [2, 3, 4], "days_per_turn": 3, "expires_in": 7 * 24 * 3600}
    mine = api.call("POST", TICKETS, ana["token"], json=body).get_json()
    matchmaker = Matchmaker(api.runtime, "worker-1")
    matchmaker.tick()
    clock.advance(3600)  # an hour on: Ana is offline
    matchmaker.tick()
    api.call("POST", TICKETS, bo["token"], json=body)
    assert matchmaker.tick() == 1
    drain(api.runtime)  # the webhook deliveries
    told = [json.loads(body) for _, body in Receiver.received]
    found = [t for t in told if t["event"] == "match_found"]
    assert [t["player_id"] for t in found] == [ana["id"]] and {t["player_id"] for t in told} == {ana["id"]}
    assert all(verify(secret, headers, raw) for headers, raw in Receiver.received)
    game_id = found[0]["game_id"]
    ticket = api.call("GET", f"{TICKETS}/{mine['id']}", ana["token"]).get_json()
    assert (ticket["status"], ticket["game_id"], ticket["waited_seconds"]) == ("matched", game_id, 3600.0)
    games = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert [g["id"] for g in games] == [game_id]
    view = api.view(game_id, ana["token"])
    assert view["turn_timeout"] == 3 * 24 * 3600 and {s["player_id"] for s in view["seats"]} == {ana["id"], bo["id"]}
