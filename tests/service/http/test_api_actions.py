"""Actions: steps all or nothing, the engine's refusals, versions, idempotent retries."""

from __future__ import annotations

import re

import pytest

from tests.service.http.test_api_games import DECK, two_humans


@pytest.fixture
def table(api):
    """Ana (seat 0, to move) and Bo in a custom-dealt advanced game; Ana holds R6 O5 V5 G4 B3 Y2 I1."""
    ana, bo, game = two_humans(api, deck=DECK)
    return api, ana["token"], bo["token"], game["id"]


def stream_length(api, game_id):
    return len(api.runtime.store.read(game_id))


def test_a_legal_turn_is_applied_and_returns_the_new_view(table):
    api, ana, bo, game_id = table
    response = api.act(game_id, ana, [{"type": "play", "card": "R6"}, {"type": "discard", "card": "G4"}])
    assert response.status_code == 200
    view = response.get_json()
    assert response.headers["ETag"] == f'"{view["version"]}"'
    assert view["rule"] == "green" and view["canvas"] == ["G4"]
    assert view["seats"][0]["palette"] == ["R6", "V2"]
    assert len(view["you"]["hand"]) == 6  # played one, discarded one, drew one (4 > 2 palette cards)
    assert view["turn"]["seat"] == 1 and view["legal_steps"] == []
    assert api.view(game_id, bo)["legal_steps"]


def test_steps_are_all_or_nothing(table):
    api, ana, _, game_id = table
    before = stream_length(api, game_id)
    # With R6 played, Orange compares single cards: R6 against R7.
    response = api.act(game_id, ana, [{"type": "play", "card": "R6"}, {"type": "discard", "card": "O5"}])
    problem = response.get_json()
    assert response.status_code == 422 and problem["code"] == "discard_not_winning" and problem["step"] == 1
    assert "Orange" in problem["detail"] and problem["yours"] == ["R6"] and problem["theirs"] == ["R7"]
    assert stream_length(api, game_id) == before
    assert len(api.view(game_id, ana)["you"]["hand"]) == 7


@pytest.mark.parametrize(
    ("steps", "code"),
    [
        ([{"type": "discard", "card": "B3"}], "discard_not_winning"),
        ([{"type": "play", "card": "R1"}], "card_not_in_hand"),
        ([{"type": "end_turn"}], "nothing_played"),
        ([{"type": "play", "card": "R6"}, {"type": "play", "card": "O5"}], "already_played"),
        ([{"type": "take", "seat": 1, "card": "R7"}], "no_effect_pending"),
    ],
)
def test_illegal_steps_get_the_engines_code_and_sentence(table, steps, code):
    api, ana, _, game_id = table
    response = api.act(game_id, ana, steps)
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["code"] == code and problem["detail"].endswith(".") and problem["type"].endswith(code)


def test_acting_out_of_turn_or_without_a_seat(table):
    api, _, bo, game_id = table
    out_of_turn = api.act(game_id, bo, [{"type": "fold"}])
    assert out_of_turn.status_code == 422 and out_of_turn.get_json()["code"] == "not_your_turn"
    stranger = api.player("Cy")["token"]
    response = api.act(game_id, stranger, [{"type": "fold"}])
    assert response.status_code == 403 and response.get_json()["code"] == "not_a_player"
    assert api.act(game_id, None, [{"type": "fold"}]).get_json()["code"] == "token_required"


def test_a_stale_version_is_a_409_with_the_current_version(table):
    api, ana, _, game_id = table
    version = api.view(game_id, ana)["version"]
    stale = api.act(game_id, ana, [{"type": "play", "card": "R6"}], headers={"If-Match": f'"{version - 1}"'})
    assert stale.status_code == 409
    assert stale.get_json()["code"] == "version_conflict" and stale.get_json()["current_version"] == version
    assert stale.headers["ETag"] == f'"{version}"'
    fresh = api.act(game_id, ana, [{"type": "play", "card": "R6"}], headers={"If-Match": f'"{version}"'})
    assert fresh.status_code == 200 and fresh.get_json()["version"] == version + 1
    body = {"steps": [{"type": "end_turn"}], "expected_version": version}
    stale_body = api.call("POST", f"/v1/games/{game_id}/actions", ana, json=body)
    assert stale_body.status_code == 409


def test_if_match_must_be_a_version(table):
    api, ana, _, game_id = table
    response = api.act(game_id, ana, [{"type": "fold"}], headers={"If-Match": "yesterday"})
    assert response.status_code == 400 and response.get_json()["code"] == "invalid_precondition"
    body = {"steps": [{"type": "fold"}], "expected_version": 3}
    disagree = api.call("POST", f"/v1/games/{game_id}/actions", ana, json=body, headers={"If-Match": '"4"'})
    assert disagree.status_code == 400


def test_an_idempotent_retry_returns_the_first_response_and_appends_once(table):
    api, ana, _, game_id = table
    steps = [{"type": "discard", "card": "G4", "draw": False}]
    first = api.act(game_id, ana, steps, headers={"Idempotency-Key": "turn-1"})
    length = stream_length(api, game_id)
    retry = api.act(game_id, ana, steps, headers={"Idempotency-Key": "turn-1"})
    assert first.status_code == retry.status_code == 200
    assert retry.get_json() == first.get_json() and retry.headers["Idempotent-Replayed"] == "true"
    assert stream_length(api, game_id) == length
    reused = api.act(game_id, ana, [{"type": "fold"}], headers={"Idempotency-Key": "turn-1"})
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"


def test_a_retry_after_the_game_moved_on_gets_the_very_answer_of_the_first_attempt(table):
    """The record keeps only the version the first attempt made; the answer is that version's view, rendered again."""
    api, ana, bo, game_id = table
    steps = [{"type": "discard", "card": "G4", "draw": False}]
    first = api.act(game_id, ana, steps, headers={"Idempotency-Key": "turn-1"})
    bo_view = api.view(game_id, bo)
    moved = api.act(game_id, bo, [{"type": "fold"}], headers={"If-Match": f'"{bo_view["version"]}"'})
    assert moved.status_code == 200 and moved.get_json()["version"] > first.get_json()["version"]
    retry = api.act(game_id, ana, steps, headers={"Idempotency-Key": "turn-1"})
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json() and retry.headers["ETag"] == first.headers["ETag"]


def test_declining_the_advanced_draw(table):
    api, ana, _, game_id = table
    view = api.act(game_id, ana, [{"type": "discard", "card": "G4", "draw": False}]).get_json()
    assert len(view["you"]["hand"]) == 6 and view["deck_size"] == 49 - 16


@pytest.mark.parametrize(
    ("steps", "field"),
    [
        ([], "steps"),
        ([{"type": "dance"}], "steps.0.type"),
        ([{"type": "play"}], "steps.0.card"),
        ([{"type": "play", "card": "Z9"}], "steps.0.card"),
        ([{"type": "play", "card": "R6", "to": "deck"}], "steps.0.to"),
        ([{"type": "take", "card": "R7"}], "steps.0.seat"),
        ([{"type": "place", "card": "R7", "to": "moon"}], "steps.0.to"),
        ([{"type": "fold"}] * 17, "steps"),
    ],
)
def test_malformed_steps_are_schema_errors_with_field_paths(table, steps, field):
    api, ana, _, game_id = table
    response = api.act(game_id, ana, steps)
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_request"
    assert field in {e["field"] for e in response.get_json()["errors"]}


def test_a_whole_game_against_an_ai_through_the_api(api):
    from tests.harness.support import HUMAN, ai, play_out

    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("greedy")], action_rules=True, seed=11)
    final = play_out(api, game["id"], token)
    assert final["status"] == "finished" and final["winner"] in (0, 1)
    assert max(s["score"] for s in final["seats"]) >= 40 or final["finish"] == "deck_exhausted"


def test_a_retry_without_its_if_match_is_the_same_request(table):
    """The key names the method, path and body; the precondition is no part of what the request asks for."""
    api, ana, _, game_id = table
    version = api.view(game_id, ana)["version"]
    steps = [{"type": "discard", "card": "G4", "draw": False}]
    first = api.act(game_id, ana, steps, headers={"Idempotency-Key": "turn-1", "If-Match": f'"{version}"'})
    assert first.status_code == 200
    retry = api.act(game_id, ana, steps, headers={"Idempotency-Key": "turn-1"})
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json() and retry.headers["ETag"] == first.headers["ETag"]


def test_if_match_compares_entity_tags_strongly_as_rfc_9110_says(table):
    api, ana, _, game_id = table
    version = api.view(game_id, ana)["version"]
    play = [{"type": "play", "card": "R6"}]
    weak = api.act(game_id, ana, play, headers={"If-Match": f'W/"{version}"'})
    problem = weak.get_json()
    assert weak.status_code == 412 and problem["code"] == "precondition_failed", problem
    assert "strongly" in problem["detail"] and "as you received it" in problem["detail"]
    for unquoted in (str(version), f"{version}, {version}", f'"{version}", {version}'):
        refused = api.act(game_id, ana, play, headers={"If-Match": unquoted})
        assert refused.status_code == 400 and refused.get_json()["code"] == "invalid_precondition", unquoted
    stale = api.act(game_id, ana, play, headers={"If-Match": f'"{version - 1}", W/"{version}"'})
    assert stale.status_code == 409 and stale.get_json()["current_version"] == version  # the documented contract
    assert stream_length(api, game_id) == version
    listed = api.act(game_id, ana, play, headers={"If-Match": f'"{version - 1}" , "{version}"'})  # any tag of a list
    assert listed.status_code == 200 and listed.get_json()["version"] == version + 1
    anything = api.act(game_id, ana, [{"type": "end_turn"}], headers={"If-Match": "*"})  # *: the game exists
    assert anything.status_code == 200 and anything.get_json()["version"] > version + 1
    missing = api.act("g_0000000000000000", ana, [{"type": "end_turn"}], headers={"If-Match": "*"})
    assert missing.status_code == 404


@pytest.mark.parametrize(
    ("value", "documented"),
    [
        ("", False),  # an empty If-Match: a 400 the document did not describe
        ("   ", False),
        ("yesterday", False),
        ('"abc"', False),
        ('""', False),
        ("12", False),
        ('"1099511627777"', False),
        ("*", True),
        ('"1"', True),
        ('W/"1"', True),
        ('"0", "1"', True),
    ],
)
def test_the_document_says_which_if_match_values_are_refused_as_malformed(table, value, documented):
    """What the If-Match parameter's schema takes is exactly what is not refused as malformed (400): a client, or a
    fuzzer, sending a value the document allows is never told it broke the rules."""
    api, ana, _, game_id = table
    spec = api.call("GET", "/v1/openapi.json").get_json()
    (parameter,) = [p for p in spec["paths"]["/v1/games/{game_id}/actions"]["post"]["parameters"] if p["name"] == "If-Match"]
    schema = parameter["schema"]
    allowed = len(value) >= schema.get("minLength", 0) and re.search(schema.get("pattern", ""), value) is not None
    assert allowed is documented
    response = api.act(game_id, ana, [{"type": "play", "card": "R1"}], headers={"If-Match": value})  # not in her hand
    refused_as_malformed = response.status_code == 400 and response.get_json()["code"] == "invalid_precondition"
    assert refused_as_malformed is not documented, response.get_json()
