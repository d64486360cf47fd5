"""The language of an answer: ?lang=, then the player's setting, then Accept-Language, then English (docs/languages.md)."""

from __future__ import annotations

import pytest

from service.common.texts import LANGUAGES
from tests.harness.support import HUMAN, ai


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


# --- what a cache may do with an answer whose language the player's setting may decide (issue 34) ---------------


def _vary(response) -> set[str]:
    return {v.strip().lower() for v in response.headers.get("Vary", "").split(",") if v.strip()}


def _cache(response) -> set[str]:
    return {d.strip() for d in response.headers.get("Cache-Control", "").split(",") if d.strip()}


def test_an_english_problem_carries_no_internal_member(api):
    """A refusal's problem said in English had ``"_localized": true`` (its pop was skipped for the default language)."""
    token = api.player()["token"]
    for headers in ({}, {"Accept-Language": "en"}, {"Accept-Language": "de"}):
        refused = api.call("POST", "/v1/games/g_0000000000000000/join", token, json={}, headers=headers)
        assert refused.status_code == 404 and refused.get_json()["code"] == "game_not_found"
        assert not [member for member in refused.get_json() if member.startswith("_")], refused.get_json()


def test_the_rules_say_that_the_token_chose_their_language_and_how_long_they_may_be_kept(api):
    token = api.player()["token"]
    api.call("PATCH", "/v1/players/me", token, json={"language": "de"})
    mine = api.call("GET", "/v1/rules", token, headers={"Accept-Language": "fr"})
    assert mine.headers["Content-Language"] == "de"
    assert {"authorization", "accept-language"} <= _vary(mine)
    assert _cache(mine) == {"private", "max-age=3600"}  # made for a token: no shared cache keeps it
    anonymous = api.call("GET", "/v1/rules", headers={"Accept-Language": "fr"})
    assert anonymous.headers["Content-Language"] == "fr" and {"authorization", "accept-language"} <= _vary(anonymous)
    assert _cache(anonymous) == {"public", "max-age=3600"}  # the same for every anonymous reader of French
    by_query = api.call("GET", "/v1/rules?lang=it", token)
    assert by_query.headers["Content-Language"] == "it" and "accept-language" not in _vary(by_query)
    catalogue = api.call("GET", "/v1/problems", token)
    assert "authorization" in _vary(catalogue) and _cache(catalogue) == {"private", "max-age=3600"}


def test_problems_say_that_the_token_chose_their_language_and_are_kept_by_no_cache(api):
    token = api.player()["token"]
    api.call("PATCH", "/v1/players/me", token, json={"language": "pl"})
    refused = _problem(api, {"Accept-Language": "fr"}, token=token)
    assert refused.headers["Content-Language"] == "pl"
    assert {"authorization", "accept-language"} <= _vary(refused) and _cache(refused) == {"no-store"}
    anonymous = _problem(api)
    assert {"authorization", "accept-language"} <= _vary(anonymous) and _cache(anonymous) == {"no-store"}


def test_the_replay_viewer_says_that_the_token_chose_its_language_and_how_long_it_may_be_kept(api):
    token = api.player()["token"]
    api.call("PATCH", "/v1/players/me", token, json={"language": "es"})
    game = api.game(token, [HUMAN, ai("random")], variant="basic", seed=3)
    playing = api.call("GET", f"/v1/games/{game['id']}/replay/view", token)
    assert playing.headers["Content-Language"] == "es" and {"authorization", "accept-language"} <= _vary(playing)
    assert _cache(playing) == {"no-store"}  # a game in play changes at every move
    api.run_jobs()
    if api.view(game["id"], token)["status"] != "finished":
        api.act(game["id"], token, [{"type": "fold"}])
        api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"
    finished = api.call("GET", f"/v1/games/{game['id']}/replay/view", token)
    assert {"authorization", "accept-language"} <= _vary(finished) and _cache(finished) == {"private", "max-age=300"}
    anonymous = api.call("GET", f"/v1/games/{game['id']}/replay/view")
    assert anonymous.headers["Content-Language"] == "en" and _cache(anonymous) == {"public", "max-age=300"}
