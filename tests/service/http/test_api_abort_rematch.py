"""Abort (a game called off by a player before every seat has moved once) and rematch (a finished game's players agree
on another): through the API, the lists, the feeds, the replays and the jobs."""

from __future__ import annotations

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.engine.tables import order
from tests.harness.support import HUMAN, Api, ai, settings_for

#: Seat 0 starts (seat 1 shows the highest palette card); discarding G4 leaves seat 0 winning (Green: its V2 is even).
DECK = [str(c) for c in order(hands=["R6 B3 G4 Y2 O5 I1 V5", "R1 O1 Y1 G1 B1 I7 V1"], palettes=["V2", "R7"])]
DISCARD_G4 = {"type": "discard", "card": "G4", "draw": False}
FOLD = {"type": "fold"}


def two_players(api, **options):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], deck=DECK, **options)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200 and joined.get_json()["turn"]["seat"] == 0
    return ana, bo, game["id"]


def my_games(api, token: str) -> list[str]:
    return [g["id"] for g in api.call("GET", "/v1/players/me/games", token).get_json()["games"]]


# --- abort -----------------------------------------------------------------------------------------------------------


def test_a_player_aborts_a_game_before_every_seat_has_moved_and_it_ends_with_no_winner(api):
    ana, bo, game_id = two_players(api)
    assert api.view(game_id, bo["token"])["abortable"] is True
    aborted = api.call("POST", f"/v1/games/{game_id}/abort", bo["token"])
    assert aborted.status_code == 200, aborted.get_json()
    view = aborted.get_json()
    assert (view["status"], view["phase"], view["turn"], view["legal_steps"], view["winner"]) == (
        "aborted",
        "aborted",
        None,
        [],
        None,
    )
    assert view["abortable"] is False and len(view["you"]["hand"]) == 7
    assert game_id not in my_games(api, ana["token"]) and game_id not in my_games(api, bo["token"])
    page = api.call("GET", f"/v1/games/{game_id}/events?after={view['version'] - 1}", ana["token"]).get_json()
    assert page["finished"] is True and page["events"][-1]["type"] == "game_aborted" and page["events"][-1]["seat"] == 1
    played = api.act(game_id, ana["token"], [DISCARD_G4])
    assert played.status_code == 409 and played.get_json()["code"] == "game_not_active"
    again = api.call("POST", f"/v1/games/{game_id}/abort", ana["token"])
    assert again.status_code == 409 and again.get_json()["code"] == "game_not_active"


def test_an_aborted_game_shows_no_more_than_it_did_and_is_no_replay_to_export(api):
    ana, _, game_id = two_players(api)
    api.call("POST", f"/v1/games/{game_id}/abort", ana["token"])
    dealt = next(e for e in api.call("GET", f"/v1/games/{game_id}/events").get_json()["events"] if e["type"] == "round_dealt")
    assert dealt["hands"] == [None, None] and dealt["deck"] is None  # a spectator sees no hand, not even now
    replay = api.call("GET", f"/v1/games/{game_id}/replay", ana["token"]).get_json()
    assert replay["complete"] is False and "aborted the game" in replay["steps"][-1]["text"]
    export = api.call("GET", f"/v1/games/{game_id}/replay/export", ana["token"])
    assert export.status_code == 409 and export.get_json()["code"] == "game_not_finished"


def test_once_every_seat_has_moved_a_player_leaves_instead_of_aborting(api):
    ana, bo, game_id = two_players(api)
    assert api.act(game_id, ana["token"], [DISCARD_G4]).status_code == 200
    assert api.view(game_id)["abortable"] is True  # Bo has not moved yet
    assert api.act(game_id, bo["token"], [{"type": "play", "card": "I7"}, {"type": "end_turn"}]).status_code == 200
    late = api.call("POST", f"/v1/games/{game_id}/abort", ana["token"])
    assert late.status_code == 409 and late.get_json()["code"] == "abort_too_late"
    assert api.view(game_id)["abortable"] is False
    assert api.call("POST", f"/v1/games/{game_id}/leave", ana["token"]).status_code == 200


def test_a_waiting_game_is_called_off_by_its_creator_a_dealt_one_aborted_and_a_stranger_aborts_nothing(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    waiting = api.game(ana["token"], [HUMAN, HUMAN])
    refused = api.call("POST", f"/v1/games/{waiting['id']}/abort", ana["token"])
    assert refused.status_code == 409 and refused.get_json()["code"] == "game_not_active"
    assert "cancelGame" in refused.get_json()["detail"]
    creator, _, game_id = two_players(api)
    stranger = api.call("POST", f"/v1/games/{game_id}/abort", bo["token"])
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "not_a_player"
    cancel = api.call("DELETE", f"/v1/games/{game_id}", creator["token"])
    assert cancel.status_code == 409 and cancel.get_json()["code"] == "game_not_waiting"


def test_an_abort_retried_with_its_idempotency_key_is_answered_as_it_was(api):
    _, bo, game_id = two_players(api)
    key = {"Idempotency-Key": "abort-1"}
    first = api.call("POST", f"/v1/games/{game_id}/abort", bo["token"], headers=key)
    retry = api.call("POST", f"/v1/games/{game_id}/abort", bo["token"], headers=key)
    assert first.status_code == retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json()


def test_an_aborted_game_s_ai_plays_no_more(api):
    ana = api.player("Ana")
    game = api.game(ana["token"], [ai("greedy"), HUMAN], deck=DECK)  # the AI's seat 0 is to move
    assert game["turn"]["seat"] == 0 and game["abortable"]
    aborted = api.call("POST", f"/v1/games/{game['id']}/abort", ana["token"]).get_json()
    api.run_jobs()
    after = api.view(game["id"])
    assert after["status"] == "aborted" and after["version"] == aborted["version"]


# --- rematch ---------------------------------------------------------------------------------------------------------


def finished(api, **options):
    """A basic game (one round) of Ana and Bo, dealt from DECK: Ana discards G4, Bo folds, Ana wins."""
    ana, bo, game_id = two_players(api, variant="basic", **options)
    api.act(game_id, ana["token"], [DISCARD_G4])
    api.act(game_id, bo["token"], [FOLD])
    assert api.view(game_id)["status"] == "finished"
    return ana, bo, game_id


def offer(api, game_id: str, token: str, **kwargs):
    return api.call("POST", f"/v1/games/{game_id}/rematch", token, **kwargs)


def test_a_rematch_starts_when_both_players_want_one_each_moved_one_seat_round(api):
    ana, bo, game_id = finished(api, action_rules=True, turn_timeout=90, timeout_action="ai")
    first = offer(api, game_id, ana["token"])
    assert first.status_code == 200 and first.get_json()["rematch_offers"] == [0] and first.get_json()["rematch"] is None
    assert offer(api, game_id, ana["token"]).get_json()["rematch_offers"] == [0]  # again: nothing more
    accepted = offer(api, game_id, bo["token"]).get_json()
    rematch_id = accepted["rematch"]
    assert rematch_id and accepted["rematch_offers"] == [0, 1] and accepted["status"] == "finished"
    new = api.view(rematch_id, ana["token"])
    assert new["status"] == "active" and new["origin"] == "rematch" and new["rematch_of"] == game_id
    assert [s["player_id"] for s in new["seats"]] == [bo["id"], ana["id"]]  # Bo sat second: Bo sits first
    assert (new["variant"], new["action_rules"], new["turn_timeout"], new["timeout_action"]) == ("basic", True, 90, "ai")
    assert new["dealing"] == "random" and new["you"]["seat"] == 1  # dealt afresh, not from the custom deck
    assert api.view(game_id)["rematch"] == rematch_id
    assert rematch_id in my_games(api, ana["token"]) and rematch_id in my_games(api, bo["token"])
    types = [e["type"] for e in api.call("GET", f"/v1/games/{game_id}/events?after=0&limit=500").get_json()["events"]]
    assert types[-3:] == ["rematch_offered", "rematch_offered", "rematch_started"]
    assert offer(api, game_id, bo["token"]).get_json()["rematch"] == rematch_id  # later offers change nothing


def test_ai_seats_and_resigned_ones_are_ai_seats_of_their_level_in_the_rematch(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN, ai("random")], variant="basic", seed=4)
    api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert api.call("POST", f"/v1/games/{game['id']}/leave", bo["token"]).status_code == 200  # a greedy AI plays on
    while (view := api.view(game["id"]))["status"] != "finished":
        if view["turn"] and view["turn"]["seat"] == 0:
            api.act(game["id"], ana["token"], [FOLD])
        api.run_jobs()
    refused = offer(api, game["id"], bo["token"])
    assert refused.status_code == 409 and refused.get_json()["code"] == "seat_resigned"
    rematch_id = offer(api, game["id"], ana["token"]).get_json()["rematch"]  # Ana is the only player left
    seats = api.view(rematch_id)["seats"]
    assert [(s["kind"], s["level"], s["player_id"]) for s in seats] == [
        ("ai", "greedy", None),
        ("ai", "random", None),
        ("human", None, ana["id"]),
    ]
    assert api.runtime.games.load(rematch_id).created_by == ana["id"]


def test_a_declined_rematch_is_off(api):
    ana, bo, game_id = finished(api)
    offer(api, game_id, ana["token"])
    declined = api.call("POST", f"/v1/games/{game_id}/rematch/decline", bo["token"])
    assert declined.status_code == 200 and declined.get_json()["rematch_declined"] == 1
    again = offer(api, game_id, ana["token"])
    assert again.status_code == 409 and again.get_json()["code"] == "rematch_declined" and again.get_json()["declined_by"] == 1
    assert api.call("POST", f"/v1/games/{game_id}/rematch/decline", ana["token"]).status_code == 200  # nothing more


def test_a_rematch_is_offered_at_a_finished_games_end_by_its_players_only(api):
    ana, _, game_id = two_players(api)
    early = offer(api, game_id, ana["token"])
    assert early.status_code == 409 and early.get_json()["code"] == "game_not_finished"
    _, _, done = finished(api)
    stranger = api.player("Cy")
    assert offer(api, done, stranger["token"]).get_json()["code"] == "not_a_player"
    assert api.call("POST", f"/v1/games/{done}/rematch/decline", stranger["token"]).status_code == 403


def test_a_rematch_offer_retried_with_its_idempotency_key_makes_no_second_offer(api):
    ana, _, game_id = finished(api)
    key = {"Idempotency-Key": "rematch-1"}
    first = offer(api, game_id, ana["token"], headers=key)
    retry = offer(api, game_id, ana["token"], headers=key)
    assert retry.headers["Idempotent-Replayed"] == "true" and retry.get_json() == first.get_json()


def test_a_rematch_agreed_on_but_not_made_is_made_by_the_next_read_of_the_game(api, monkeypatch):
    ana, bo, game_id = finished(api)
    offer(api, game_id, ana["token"])

    def stopped(*args, **kwargs):
        raise ConnectionError("the process stopped between the offer's append and the rematch's")

    monkeypatch.setattr(api.runtime.games, "set_up", stopped)
    accepted = offer(api, game_id, bo["token"])
    assert accepted.status_code == 200  # the acceptance was stored: its answer names the rematch to be made
    rematch_id = accepted.get_json()["rematch"]
    assert rematch_id and not api.runtime.store.exists(rematch_id)
    monkeypatch.undo()
    assert api.view(game_id)["rematch"] == rematch_id  # a reader of the old game ...
    assert api.view(rematch_id)["status"] == "active"  # ... made it
    assert api.runtime.games.load(game_id).rematch_started


def test_a_rematch_agreed_on_but_not_made_is_made_by_its_job(api, monkeypatch):
    ana, bo, game_id = finished(api)
    offer(api, game_id, ana["token"])

    def stopped(*args, **kwargs):
        raise ConnectionError("the process stopped between the offer's append and the rematch's")

    monkeypatch.setattr(api.runtime.games, "set_up", stopped)
    rematch_id = offer(api, game_id, bo["token"]).get_json()["rematch"]
    monkeypatch.undo()
    api.run_jobs()  # the start_rematch job the acceptance's append queued (or the ticker's look at the game)
    assert api.runtime.store.exists(rematch_id) and api.runtime.games.load(game_id).rematch_started
    assert api.runtime.games.load(rematch_id).origin == "rematch"


@pytest.fixture
def one_game_each(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, max_games_in_play=1), clients=redis_pair)
    return Api(create_app(runtime), runtime)


def test_a_rematch_respects_each_players_games_in_play(one_game_each):
    api = one_game_each
    ana, bo, game_id = finished(api)
    other = api.game(bo["token"], [HUMAN, HUMAN])  # Bo is in as many games as a player may be
    refused = offer(api, game_id, bo["token"])
    assert refused.status_code == 409 and refused.get_json()["code"] == "game_limit_reached"
    assert api.call("DELETE", f"/v1/games/{other['id']}", bo["token"]).status_code == 200
    assert offer(api, game_id, bo["token"]).status_code == 200  # Bo's offer stands ...
    other = api.game(bo["token"], [HUMAN, HUMAN])  # ... and Bo is at the limit again
    blocked = offer(api, game_id, ana["token"])  # the offer that would seat Bo in one game more
    problem = blocked.get_json()
    assert blocked.status_code == 409 and problem["code"] == "game_limit_reached"
    assert (problem["player_id"], problem["limit"]) == (bo["id"], 1) and "Bo" in problem["detail"]
    assert api.view(game_id)["rematch_offers"] == [1]  # Ana's acceptance was not taken
    assert api.call("DELETE", f"/v1/games/{other['id']}", bo["token"]).status_code == 200
    assert offer(api, game_id, ana["token"]).get_json()["rematch"]


def test_a_finished_games_replay_tells_its_rematch_and_verifies_when_imported(api):
    ana, bo, game_id = finished(api, listed=True)
    offer(api, game_id, bo["token"])
    rematch_id = offer(api, game_id, ana["token"]).get_json()["rematch"]
    exported = api.call("GET", f"/v1/games/{game_id}/replay/export", ana["token"])
    assert exported.status_code == 200, exported.get_json()
    replay = exported.get_json()
    assert replay["complete"] is True and replay["events"][0]["listed"] is True
    assert [s["text"] for s in replay["steps"][-3:]] == [
        "Bo offers a rematch.",
        f"Ana wants a rematch too: every player does, and it starts as game {rematch_id}.",
        f"The rematch started: game {rematch_id}.",
    ]
    imported = api.call("POST", "/v1/replays", ana["token"], json=replay)
    assert imported.status_code == 201, imported.get_json()


def test_an_aborted_game_whose_unlisting_was_lost_leaves_the_lists_when_they_are_read(api, monkeypatch):
    ana, bo, game_id = two_players(api)
    monkeypatch.setattr(api.runtime.games.lists, "forget", lambda game: None)  # the abort's unlisting never happened
    assert api.call("POST", f"/v1/games/{game_id}/abort", ana["token"]).status_code == 200
    monkeypatch.undo()
    assert api.runtime.players.count_games(bo["id"]) == 1
    assert game_id not in my_games(api, bo["token"])  # not shown (nor a 500) ...
    assert api.runtime.players.count_games(bo["id"]) == 0  # ... and unlisted as it was read
