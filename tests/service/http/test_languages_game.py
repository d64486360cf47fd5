"""One game in eight languages: its replay told from the same events, its view, a 409 and a 422 in each."""

from __future__ import annotations

import re

import pytest

from replays.build import _renamed, _seat_names, content_hash
from replays.verify import verify_replay
from service.common.texts import LANGUAGES, MESSAGES, Text, render
from tests.harness.support import HUMAN, ai, play_out
from tests.service.http.test_api_games import DECK, two_humans

#: A sentence still in English: words of the English messages that no other language uses ("palette" is French too,
#: "round" Italian, as their rulebooks have them).
ENGLISH = re.compile(r"\b(the|plays|draws|discards|turn|rule|wins|canvas|leads|under|nobody|cards?)\b")


def _text_of(explanation: dict) -> Text:
    params = {k: _text_of(v) if isinstance(v, dict) else v for k, v in explanation["params"].items()}
    return Text(explanation["code"], params)


@pytest.fixture
def finished(api):
    """A finished advanced game with the action rules, Ana against an AI."""
    token = api.player("Ana")["token"]
    game = api.game(token, [HUMAN, ai()], variant="advanced", action_rules=True)
    play_out(api, game["id"], token)
    return api, token, game["id"]


def test_one_finished_games_replay_is_told_in_every_language_from_the_same_events(finished):
    api, token, game_id = finished
    told = {}
    for language in LANGUAGES:
        answer = api.call("GET", f"/v1/games/{game_id}/replay?lang={language}", token)
        assert answer.status_code == 200 and answer.headers["Content-Language"] == language
        told[language] = answer.get_json()
    english = told["en"]
    assert english["outcome"] is not None and len(english["steps"]) > 20
    for language, document in told.items():
        assert document["events"] == english["events"]  # the same events, whatever the language
        assert [s["explanation"] for s in document["steps"]] == [s["explanation"] for s in english["steps"]]
        assert [s["state"] for s in document["steps"]] == [s["state"] for s in english["steps"]]
        assert document["hash"] == content_hash(document)
        assert verify_replay(document).ok, language  # a replay in any language verifies: texts are words
        for step, first in zip(document["steps"], english["steps"], strict=True):
            # Said from its explanation, the AI seats' names in the language too ("SI 1 (chciwa)": issue 38).
            names = _seat_names(english, language)
            assert step["text"] == render(_renamed(_text_of(step["explanation"]), names), language)
            assert "%(" not in step["text"] and step["text"].strip()
            if language != "en":
                assert step["text"] != first["text"], (language, step["text"])
                assert not ENGLISH.search(step["text"]), (language, step["text"])
    assert {step["explanation"]["code"] for step in english["steps"]} <= set(MESSAGES)


def test_the_replay_viewer_and_the_export_say_the_steps_in_the_language_asked(finished):
    api, _, game_id = finished
    page = api.call("GET", f"/v1/games/{game_id}/replay/view", headers={"Accept-Language": "ru"})
    assert page.headers["Content-Language"] == "ru" and "Accept-Language" in page.headers["Vary"]
    assert "Раздан раунд 1" in page.get_data(as_text=True)
    export = api.call("GET", f"/v1/games/{game_id}/replay/export?lang=pt").get_json()
    assert export["steps"][0]["text"].startswith("Um jogo avançado para 2 jogadores")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_view_a_409_and_a_422_in_each_language(api, language):
    ana, _, game = two_humans(api, deck=DECK)
    token, game_id = ana["token"], game["id"]
    headers = {"Accept-Language": f"{language};q=0.9, en;q=0.1"}
    answer = api.call("GET", f"/v1/games/{game_id}", token, headers=headers)
    assert answer.headers["Content-Language"] == language and "Accept-Language" in answer.headers["Vary"]
    view = answer.get_json()
    english = api.call("GET", f"/v1/games/{game_id}?lang=en", token).get_json()
    assert view["rule_description"]["code"] == "rule.R.description" == english["rule_description"]["code"]
    assert view["rule_description"]["text"] == render(Text("rule.R.description"), language)
    assert [s["description"]["code"] for s in view["legal_steps"]] == [s["description"]["code"] for s in english["legal_steps"]]
    for step, first in zip(view["legal_steps"], english["legal_steps"], strict=True):
        assert step["description"]["params"] == first["description"]["params"]
        if language != "en":
            assert step["description"]["text"] != first["description"]["text"]

    version = view["version"]
    stale = api.act(game_id, token, [{"type": "play", "card": "R6"}], headers={"If-Match": f'"{version - 1}"', **headers})
    problem = stale.get_json()
    assert stale.status_code == 409 and problem["code"] == "version_conflict"
    assert stale.headers["Content-Language"] == language
    assert problem["detail"] == render(
        Text("problem.version_conflict.detail", {"expected": version - 1, "current": version}), language
    )
    assert str(version - 1) in problem["detail"] and str(version) in problem["detail"]

    illegal = api.act(game_id, token, [{"type": "play", "card": "R1"}], headers=headers)
    problem = illegal.get_json()
    assert illegal.status_code == 422 and problem["code"] == "card_not_in_hand"
    assert illegal.headers["Content-Language"] == language
    english_title = api.act(game_id, token, [{"type": "play", "card": "R1"}], headers={"Accept-Language": "en"}).get_json()
    assert english_title["title"] == "That card is not in your hand"
    if language != "en":
        assert problem["title"] != english_title["title"] and problem["detail"] == problem["title"]

    schema = api.call("POST", "/v1/games", token, json={"seats": "four"}, headers=headers)
    assert schema.status_code == 422 and schema.get_json()["code"] == "invalid_request"
    assert schema.headers["Content-Language"] == language


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_in_each_language(api, language):
    answer = api.call("GET", f"/v1/rules?lang={language}")
    body = answer.get_json()
    assert answer.headers["Content-Language"] == language == body["language"]
    assert [r["color"] for r in body["rules"]] == ["red", "orange", "yellow", "green", "blue", "indigo", "violet"]
    for entry in body["rules"]:
        assert entry["name"]["text"] and entry["description"]["text"].startswith(entry["name"]["text"])
