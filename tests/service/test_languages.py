"""The language of an answer: ?lang=, then the player's setting, then Accept-Language, then English (docs/languages.md)."""

from __future__ import annotations

import pytest

from service.texts import LANGUAGES


def _problem(api, headers=None, path="/v1/games/g_0000000000000000", token=None):
    response = api.call("GET", path, token, headers=headers or {})
    assert response.status_code == 404
    return response


def test_accept_language_picks_the_best_language_the_service_speaks(api):
    answer = _problem(api, {"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.8"})
    assert answer.headers["Content-Language"] == "pl"
    assert "Accept-Language" in answer.headers["Vary"]


@pytest.mark.parametrize("header", ["xx", "tlh-KL,zu;q=0.5", "", "*"])
def test_a_language_the_service_does_not_speak_is_answered_in_english(api, header):
    answer = _problem(api, {"Accept-Language": header} if header else {})
    assert answer.headers["Content-Language"] == "en"
    assert answer.get_json()["title"] == "No such game"


def test_the_lang_parameter_wins_over_accept_language_and_the_players_setting(api):
    player = api.player()
    token = player["token"]
    assert api.call("PATCH", "/v1/players/me", token, json={"language": "de"}).get_json()["language"] == "de"
    by_setting = _problem(api, {"Accept-Language": "fr"}, token=token, path="/v1/games/g_0000000000000000")
    assert by_setting.headers["Content-Language"] == "de"
    by_query = _problem(api, {"Accept-Language": "fr"}, path="/v1/games/g_0000000000000000?lang=ru", token=token)
    assert by_query.headers["Content-Language"] == "ru"
    assert "Accept-Language" not in by_query.headers.get("Vary", "")  # ?lang= decided: the header did not
    unknown = _problem(api, {"Accept-Language": "es"}, path="/v1/games/g_0000000000000000?lang=xx")
    assert unknown.headers["Content-Language"] == "es"  # a ?lang= the service does not speak is passed over


def test_the_players_setting_comes_before_accept_language(api):
    token = api.player()["token"]
    api.call("PATCH", "/v1/players/me", token, json={"language": "it"})
    me = api.call("GET", "/v1/players/me", token, headers={"Accept-Language": "fr"})
    assert me.get_json()["language"] == "it"
    listed = api.call("GET", "/v1/players/me/games", token, headers={"Accept-Language": "fr"})
    assert listed.status_code == 200
    refused = api.call("POST", "/v1/games", token, json={"seats": []}, headers={"Accept-Language": "fr"})
    assert refused.status_code == 422 and refused.headers["Content-Language"] == "it"
    api.call("PATCH", "/v1/players/me", token, json={"language": None})
    again = api.call("POST", "/v1/games", token, json={"seats": []}, headers={"Accept-Language": "fr"})
    assert again.headers["Content-Language"] == "fr"
    bad = api.call("PATCH", "/v1/players/me", token, json={"language": "xx"})
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_request"


def test_the_openapi_document_lists_the_languages(api):
    document = api.call("GET", "/v1/openapi.json").get_json()
    assert document["info"]["x-languages"] == list(LANGUAGES)
    assert document["components"]["schemas"]["Language"]["enum"] == list(LANGUAGES)
    setting = document["components"]["schemas"]["PlayerUpdate"]["properties"]["language"]
    assert {"$ref": "#/components/schemas/Language"} in setting["anyOf"]
