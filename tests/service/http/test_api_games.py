"""Games: creating, joining, viewing; the view shows each caller only what they may see."""

from __future__ import annotations

import pytest

from tests.engine.tables import order
from tests.harness.support import HUMAN, ai

#: Seat 0 starts (seat 1 shows the highest palette card) with a known hand.
DECK = [str(c) for c in order(hands=["R6 B3 G4 Y2 O5 I1 V5", "R1 O1 Y1 G1 B1 I7 V1"], palettes=["V2", "R7"])]


def two_humans(api, **options):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], **options)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200
    return ana, bo, joined.get_json()


def test_a_game_with_an_open_seat_waits_and_shows_the_creator_its_join_code(api):
    ana = api.player()
    game = api.game(ana["token"], [HUMAN, HUMAN], variant="basic", action_rules=True)
    assert game["status"] == "waiting" and game["phase"] == "waiting" and game["version"] == 2
    assert game["join_code"] and game["you"] == {"seat": 0, "hand": []}
    assert [s["open"] for s in game["seats"]] == [False, True]
    assert game["variant"] == "basic" and game["action_rules"] is True and game["dealing"] == "random"
    assert "join_code" not in api.view(game["id"])  # spectators cannot join by reading it


def test_joining_fills_the_last_seat_and_deals(api):
    _, _, game = two_humans(api)
    assert game["status"] == "active" and game["round"] == 1 and game["rule"] == "red"
    assert game["you"]["seat"] == 1 and len(game["you"]["hand"]) == 7
    assert all(len(s["palette"]) == 1 and s["hand_size"] == 7 for s in game["seats"])
    assert game["deck_size"] == 49 - 16 and game["target"] == 40
    assert "join_code" not in game


def test_join_errors(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    game = api.game(ana["token"], [HUMAN, HUMAN])
    path = f"/v1/games/{game['id']}/join"
    assert api.call("POST", path, bo["token"], json={"code": "wrong"}).get_json()["code"] == "bad_join_code"
    assert api.call("POST", path, ana["token"], json={"code": game["join_code"]}).get_json()["code"] == "already_seated"
    for taken in (0, 3):  # seat 0 is Ana's; a two-seat game has no seat 3
        refused = api.call("POST", path, bo["token"], json={"code": game["join_code"], "seat": taken})
        assert refused.status_code == 409 and refused.get_json()["code"] == "seat_not_open"
        assert refused.get_json()["open_seats"] == [1]
    assert api.call("POST", path, bo["token"], json={"code": game["join_code"]}).status_code == 200
    late = api.call("POST", path, cy["token"], json={"code": game["join_code"]})
    assert late.status_code == 409 and late.get_json()["code"] == "game_not_waiting"
    missing = api.call("POST", "/v1/games/g_nope/join", cy["token"], json={"code": "x"})
    assert missing.status_code == 404 and missing.get_json()["code"] == "game_not_found"


def test_the_creator_only_watches_a_game_without_human_seats_and_it_starts_at_once(api):
    ana = api.player()
    game = api.game(ana["token"], [ai("random"), ai("greedy"), ai("random")])
    assert game["status"] == "active" and "you" not in game
    assert all(s["kind"] == "ai" for s in game["seats"])
    api.run_jobs()
    final = api.view(game["id"], ana["token"])
    assert final["status"] == "finished" and final["winner"] is not None and final["finish"]


def test_each_player_sees_only_their_own_hand(api):
    ana, bo, game = two_humans(api)
    mine = api.view(game["id"], ana["token"])
    theirs = api.view(game["id"], bo["token"])
    spectator = api.view(game["id"])
    assert mine["you"]["seat"] == 0 and theirs["you"]["seat"] == 1 and "you" not in spectator
    assert not set(mine["you"]["hand"]) & set(theirs["you"]["hand"])
    assert set(theirs["you"]["hand"]).isdisjoint(str(mine)), "Ana's view shows one of Bo's cards"
    assert mine["seats"] == theirs["seats"] == spectator["seats"]


def test_the_view_carries_legal_steps_with_flags_for_the_seat_to_move_only(api):
    ana, bo, game = two_humans(api, deck=DECK)
    mine = api.view(game["id"], ana["token"])
    assert mine["turn"] == {
        "seat": 0,
        "played": False,
        "pending": None,
        "deadline": None,
        "time_left": None,
        "paused_until": None,
    }
    steps = {(s["type"], s.get("card")): s for s in mine["legal_steps"]}
    assert steps[("discard", "G4")]["ends_turn"] and steps[("discard", "G4")]["grants_draw"]
    assert steps[("discard", "G4")]["draws"]  # the batch must end with it
    assert not any(s["draws"] for key, s in steps.items() if key[0] != "discard")
    assert ("discard", "B3") not in steps  # Blue: V2 against R7 loses
    assert steps[("fold", None)]["eliminates"]
    assert api.view(game["id"], bo["token"])["legal_steps"] == []
    assert api.view(game["id"])["legal_steps"] == []


def test_views_carry_the_version_as_etag_and_answer_304_when_unchanged(api):
    ana, _, game = two_humans(api)
    response = api.call("GET", f"/v1/games/{game['id']}", ana["token"])
    assert response.headers["ETag"] == f'"{game["version"]}"'
    again = api.call("GET", f"/v1/games/{game['id']}", ana["token"], headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_seeded_and_custom_dealt_games_say_so(api):
    ana = api.player()
    seeded = api.game(ana["token"], [HUMAN, ai()], seed=5)
    custom = api.game(ana["token"], [HUMAN, ai()], deck=DECK)
    assert seeded["dealing"] == "seeded" and not seeded["custom_dealt"]
    assert custom["dealing"] == "custom" and custom["custom_dealt"]
    assert custom["you"]["hand"] == ["R6", "O5", "V5", "G4", "B3", "Y2", "I1"]
    assert api.view(custom["id"])["custom_dealt"]


def test_the_same_seed_deals_the_same_cards(api):
    ana = api.player()
    first = api.game(ana["token"], [HUMAN, ai()], seed=123)
    second = api.game(ana["token"], [HUMAN, ai()], seed=123)
    assert first["you"]["hand"] == second["you"]["hand"]
    assert [s["palette"] for s in first["seats"]] == [s["palette"] for s in second["seats"]]


def test_custom_decks_need_the_server_setting(redis_pair, key_prefix):
    from service.http.app import create_app
    from service.runtime import build_runtime
    from tests.harness.support import Api, settings_for

    runtime = build_runtime(settings_for(key_prefix, allow_custom_decks=False), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token = api.player()["token"]
    refused = api.call("POST", "/v1/games", token, json={"seats": [HUMAN, ai()], "deck": DECK})
    assert refused.status_code == 403 and refused.get_json()["code"] == "custom_decks_disabled"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": [HUMAN]}, "seats"),
        ({"seats": [HUMAN] * 5}, "seats"),
        ({"seats": [HUMAN, {"kind": "ai"}]}, "seats.1.level"),
        ({"seats": [HUMAN, {"kind": "ai", "level": "godlike"}]}, "seats.1.level"),
        ({"seats": [{"kind": "human", "level": "greedy"}, HUMAN]}, "seats.0.level"),
        ({"seats": [HUMAN, HUMAN], "variant": "expert"}, "variant"),
        ({"seats": [HUMAN, HUMAN], "seed": -1}, "seed"),
        ({"seats": [HUMAN, HUMAN], "deck": ["R7"] * 49}, "deck"),
        ({"seats": [HUMAN, HUMAN], "deck": ["X9"] * 49}, "deck.0"),
        ({"seats": [HUMAN, HUMAN], "turn_timeout": 1}, "turn_timeout"),
        ({"seats": [HUMAN, HUMAN], "timeout_action": "explode"}, "timeout_action"),
        ({"seats": "two"}, "seats"),
    ],
)
def test_game_options_are_validated_with_field_paths(api, body, field):
    token = api.player()["token"]
    response = api.call("POST", "/v1/games", token, json=body)
    assert response.status_code == 422
    assert field in {e["field"] for e in response.get_json()["errors"]}
    assert {e["location"] for e in response.get_json()["errors"]} == {"json"}


def test_unknown_games_are_404_problems(api):
    response = api.call("GET", "/v1/games/g_0000")
    assert response.status_code == 404 and response.get_json()["code"] == "game_not_found"


def test_every_view_says_who_is_winning_and_with_which_cards(api):
    """The leading seat and each seat's qualifying cards under the rule: a frontend needs no rules to show them."""
    from engine.cards import card_names
    from engine.rules import leading_seat, qualifying_mask

    ana, bo, game = two_humans(api, seed=12)
    waiting = api.game(ana["token"], [HUMAN, HUMAN])
    assert waiting["leader"] is None and all(s["qualifying"] == [] for s in waiting["seats"])
    state = api.runtime.games.load(game["id"]).state
    for token in (ana["token"], bo["token"], None):  # both players and a spectator
        shown = api.view(game["id"], token)
        assert shown["leader"] == leading_seat(state.palettes, state.in_round, state.rule)
        for number, seat in enumerate(shown["seats"]):
            assert seat["qualifying"] == card_names(qualifying_mask(state.palettes[number], state.rule))
            assert set(seat["qualifying"]) <= set(seat["palette"])
    mover = [ana, bo][api.view(game["id"])["turn"]["seat"]]
    api.act(game["id"], mover["token"], [{"type": "fold"}])
    after = api.view(game["id"])
    assert after["phase"] == "round_won" and after["leader"] is None and after["round_winner"] is not None
    out = next(s for s in after["seats"] if not s["in_round"])
    assert out["qualifying"] == []


def test_creating_a_game_with_an_idempotency_key_makes_one_game(api):
    """The same key and body made two games: the header was ignored on POST /v1/games."""
    ana, bo = api.player("Ana"), api.player("Bo")
    body, key = {"seats": [HUMAN, HUMAN]}, {"Idempotency-Key": "new-game-1"}
    first = api.call("POST", "/v1/games", ana["token"], json=body, headers=key)
    retry = api.call("POST", "/v1/games", ana["token"], json=body, headers=key)
    assert first.status_code == retry.status_code == 201
    assert retry.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert retry.get_json() == first.get_json()
    assert (retry.headers["Location"], retry.headers["ETag"]) == (first.headers["Location"], first.headers["ETag"])
    mine = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert [g["id"] for g in mine] == [first.get_json()["id"]]
    game = first.get_json()
    assert api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]}).status_code == 200
    late = api.call("POST", "/v1/games", ana["token"], json=body, headers=key)  # the game moved on: the answer did not
    assert late.status_code == 201 and late.get_json() == game and late.headers["ETag"] == first.headers["ETag"]
    reused = api.call("POST", "/v1/games", ana["token"], json={"seats": [HUMAN, ai()]}, headers=key)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"
    other = api.call("POST", "/v1/games", bo["token"], json=body, headers=key)  # a key is its caller's own
    assert other.status_code == 201 and other.get_json()["id"] != game["id"] and "Idempotent-Replayed" not in other.headers


def test_a_join_retried_with_its_idempotency_key_is_answered_as_it_was(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN])
    join, key = {"code": game["join_code"]}, {"Idempotency-Key": "join-1"}
    first = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json=join, headers=key)
    retry = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json=join, headers=key)
    assert first.status_code == retry.status_code == 200, retry.get_json()  # not 409 already_seated
    assert retry.get_json() == first.get_json() and retry.headers["Idempotent-Replayed"] == "true"
    assert api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json=join).get_json()["code"] == "already_seated"


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_an_idempotency_key_is_1_to_200_characters(api, key):
    token = api.player()["token"]
    refused = api.call("POST", "/v1/games", token, json={"seats": [HUMAN, HUMAN]}, headers={"Idempotency-Key": key})
    problem = refused.get_json()
    assert refused.status_code == 422 and problem["errors"] == [
        {"field": "Idempotency-Key", "message": "must be 1 to 200 characters", "location": "headers"}
    ]
