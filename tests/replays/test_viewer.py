"""The replay viewer page, without a browser: self-contained, the replay embedded exactly and safely, served with the CSP.

The ``api`` fixture comes from tests/conftest.py (the API on fakeredis; tests/service/http/test_real_redis.py on Redis).
"""

from __future__ import annotations

import copy
import html
import json
import re
import uuid
from importlib import resources
from typing import Any

import pytest

from replays.viewer import embed_json, render_viewer, template
from service.common.texts import LANGUAGE_NAMES, Text, render
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for

CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
#: Every viewer page but the embed mode refuses to be framed.
NO_FRAMES = "; frame-ancestors 'none'"
EVIL = '</script><script>alert("x")</script><!-- </SCRIPT > <\\/script>'
REPLAY_ELEMENT = re.compile(r'<script id="replay" type="application/json">(.*?)</script>', re.S)


def embedded(page: str) -> Any:
    """The replay document as the page carries it."""
    found = REPLAY_ELEMENT.findall(page)
    assert len(found) == 1, "the page has exactly one replay element"
    return json.loads(found[0])


def finished_game(client: Api) -> tuple[str, dict[str, Any]]:
    """A finished all-AI game and its full replay document."""
    token = client.player("Ana")["token"]
    game = client.game(token, [ai("random"), ai("greedy")])
    client.run_jobs()
    response = client.call("GET", f"/v1/games/{game['id']}/replay")
    assert response.status_code == 200
    document = response.get_json()
    assert document["outcome"] is not None, "the all-AI game finished"
    return game["id"], document


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """One finished game's replay for the tests that only render (an embedded in-memory store)."""
    embedded_runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"))
    _, document = finished_game(Api(create_app(embedded_runtime), embedded_runtime))
    return document


def test_the_template_ships_in_the_package() -> None:
    assert resources.files("replays").joinpath("viewer.html").is_file()
    page = template()
    for placeholder in ("__RED7_TITLE__", "__RED7_REPLAY_JSON__"):
        assert placeholder in page


#: The page's only ways out, both for an imported replay with no analysis yet (``render_viewer``'s ``analyse``): the link
#: to /play (a navigation, nothing loaded) and the one call to the analysis' URL (served with ``connect-src 'self'``).
#: The page's only ways out: links to /play (its own origin's; the links hidden in a page saved to disk), and the
#: analysis asked for (an imported replay's, same origin).
WAYS_OUT = (
    '<a href="/play" id="analyse-play">',
    '<a href="/play" id="to-play">',
    '<a href="/play#mistakes=mistake" id="to-mistakes" hidden>',
    "await fetch(url, ",
)


def test_the_page_names_no_external_url_and_needs_nothing_the_csp_forbids(document) -> None:
    page = render_viewer(document, "Red7 replay")
    for text in (page, template()):
        for way in WAYS_OUT:
            assert text.count(way) == 1, way
            text = text.replace(way, "")
        assert "http://" not in text and "https://" not in text
        assert not re.search(r"""\b(?:src|href|action|formaction|poster|srcset)\s*=\s*["']?\s*(?:[a-z]+:)?//""", text, re.I)
        assert not re.search(r"\b(?:src|href)\s*=", text, re.I), "nothing is loaded: no src, no href"
        assert not re.search(r"url\s*\(|@import", text, re.I), "no CSS resource"
        for forbidden in ("eval(", "new Function", "fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "import("):
            assert forbidden not in text
        assert not re.search(r"\son[a-z]+\s*=", text.split('<script id="replay"')[0]), "no inline event handler attribute"
    assert page.count("<script") == 3, "the replay data, its words (in the language asked) and the viewer's one script"


def test_the_page_has_the_stable_hooks_for_tests_and_assistive_technology(document) -> None:
    page = render_viewer(document, "Red7 replay")
    hooks = ["step-counter", "explanation", "rule", "deck-size", "round", "turn", "prev", "next", "first", "last"]
    for hook in [*hooks, "slider", "outcome", "step-list"]:
        assert f'id="{hook}"' in page
    assert re.search(r'<p id="explanation" aria-live="polite"', page)
    for button in ("prev", "next"):  # arrows: their name is their label
        assert re.search(rf'<button type="button" id="{button}" aria-label="[^"]+"', page)
    for button in ("first", "last"):  # their visible word is their name (a label that is not it fails axe in Polish)
        assert re.search(rf'<button type="button" id="{button}" title="[^"]+">', page)
    assert ":focus-visible" in page and 'name="viewport"' in page


def test_the_replay_round_trips_through_the_page(document) -> None:
    page = render_viewer(document, "Red7 replay")
    assert embedded(page) == document
    assert embedded(page)["options"]["seed"] == document["options"]["seed"], "a 64-bit seed keeps every digit"


def test_a_hostile_name_cannot_end_the_script_element_or_open_a_comment(document) -> None:
    hostile = copy.deepcopy(document)
    hostile["seats"][0]["name"] = EVIL
    hostile["steps"][0]["text"] = "<!-- " + EVIL + " & \u2028\u2029 ünïcödé"
    page = render_viewer(hostile, "<b>" + EVIL + "__RED7_REPLAY_JSON__")
    data = REPLAY_ELEMENT.search(page).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    assert "</script" not in data.lower() and "<!--" not in data
    assert embedded(page) == hostile
    assert page.lower().count("</script") == template().lower().count("</script") == 3
    assert "<!--" not in page
    title = html.escape("<b>" + EVIL + "__RED7_REPLAY_JSON__")
    assert f"<title>{title}</title>" in page, "the title is escaped, and a placeholder in it is not filled in"
    assert page.count(data) == 1


def test_embed_json_is_json() -> None:
    value = {"a": "</script><!--&>", "b": [1, 2.5, None, True], "c": "\u2028"}
    assert json.loads(embed_json(value)) == value


def test_the_route_serves_a_finished_games_viewer_with_the_csp(api) -> None:
    game_id, document = finished_game(api)
    response = api.call("GET", f"/v1/games/{game_id}/replay/view")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == CSP + NO_FRAMES
    assert response.headers["X-Frame-Options"] == "DENY"
    page = response.get_data(as_text=True)
    assert f"<title>Red7 replay {game_id}</title>" in page
    assert embedded(page) == document
    assert "http://" not in page and "https://" not in page


def test_an_imported_replay_has_the_same_viewer(api) -> None:
    _, document = finished_game(api)
    token = api.player("Bo")["token"]
    imported = api.call("POST", "/v1/replays", token, json=document)
    assert imported.status_code == 201, imported.get_json()
    response = api.call("GET", imported.get_json()["view_url"])
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == CSP + "; connect-src 'self'" + NO_FRAMES, "it may ask for its analysis"
    assert embedded(response.get_data(as_text=True)) == document


ANALYSE_WORDS = ("viewer.analyse_none", "viewer.analyse", "viewer.analyse_needs_player", "viewer.go_play")
ANALYSE_SECTION = re.compile(r'<section class="panel" id="analyse"[^>]*data-url="([^"]*)"[^>]*hidden>(.*?)</section>', re.S)


@pytest.mark.parametrize("language", sorted(LANGUAGE_NAMES))
def test_an_imported_replay_without_analysis_offers_to_ask_for_one_in_each_language(api, language) -> None:
    """The button, the hint for a visitor without a player and the progress' words, in the page's language; the
    request's URL only on an imported replay with no analysis (a game's viewer, or an analysed import, has none)."""
    game_id, document = finished_game(api)
    bo = api.player("Bo")["token"]
    imported = api.call("POST", "/v1/replays", bo, json=document).get_json()
    page = api.call("GET", imported["view_url"], query_string={"lang": language}).get_data(as_text=True)
    ((url, section),) = ANALYSE_SECTION.findall(page)
    assert url == f"/v1/replays/{imported['id']}/analysis"
    for code in ANALYSE_WORDS:
        assert html.escape(render(Text(code), language)) in section, code
    if language != "en":
        assert render(Text("viewer.analyse"), language) != "Analyse the decisions", "translated"
    said = json.loads(re.search(r'<script id="words" type="application/json">(.*?)</script>', page, re.S).group(1))
    for code in ("viewer.analysing", "viewer.analysis_ready", "viewer.analysis_failed", "viewer.unreachable"):
        assert said["words"][code] == render(Text(code), language)
    assert "%(done)s" in said["words"]["viewer.analysing_progress"]

    game_page = api.call("GET", f"/v1/games/{game_id}/replay/view", query_string={"lang": language})
    assert ANALYSE_SECTION.findall(game_page.get_data(as_text=True)) == [("", ANALYSE_SECTION.findall(page)[0][1])]
    assert game_page.headers["Content-Security-Policy"] == CSP + NO_FRAMES, "a game's viewer calls nothing"


def test_an_analysed_imported_replay_offers_nothing_to_ask(api) -> None:
    _, document = finished_game(api)
    bo = api.player("Bo")["token"]
    imported = api.call("POST", "/v1/replays", bo, json=document).get_json()
    assert api.call("POST", f"/v1/replays/{imported['id']}/analysis", bo).status_code == 202
    api.run_jobs()
    analysed = api.call("GET", imported["view_url"])
    assert analysed.headers["Content-Security-Policy"] == CSP + NO_FRAMES, "analysed: nothing left to ask, nothing to call"
    page = analysed.get_data(as_text=True)
    assert ANALYSE_SECTION.findall(page)[0][0] == "" and "analysis" in embedded(page)


def test_a_game_in_progress_is_viewed_as_a_spectator_and_a_hostile_player_name_stays_data(api) -> None:
    player = api.player(EVIL[:40])
    game = api.game(player["token"], [HUMAN, ai("greedy")])
    api.run_jobs()
    response = api.call("GET", f"/v1/games/{game['id']}/replay/view")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    document = embedded(page)
    assert document == api.call("GET", f"/v1/games/{game['id']}/replay").get_json()
    assert document["perspective"] == "spectator" and document["outcome"] is None
    assert document["seats"][0]["name"] == EVIL[:40]
    assert all(seat["hand"] is None for step in document["steps"] for seat in step["state"]["seats"])
    assert page.lower().count("</script") == 3 and "<!--" not in page


@pytest.mark.parametrize(
    ("language", "names"), [("pl", ["SI 0 (losowa)", "SI 1 (chciwa)"]), ("ru", ["ИИ 0 (случайный)", "ИИ 1 (жадный)"])]
)
def test_ai_seats_are_named_in_the_replays_language_with_the_new_game_forms_level_words(document, language, names) -> None:
    """Issue 38: "AI 1 (greedy)" was said in every language; the seats and every step's text now say it in words of
    the page's language (a player's own name stays as it is), and the English replay is untouched."""
    from replays.build import in_language

    assert [seat["name"] for seat in document["seats"]] == ["AI 0 (random)", "AI 1 (greedy)"]
    said = in_language(document, language)
    assert said["seats"] == document["seats"], "the seats' names are data: the page says them (core/seats.js)"
    texts = "\n".join(step["text"] for step in said["steps"])
    assert "AI 1 (greedy)" not in texts and names[1] in texts
    assert in_language(document, "en") is document
    page = render_viewer(said, "Red7 replay", language)
    assert '"core.ai_seat.greedy"' in page and names[1].replace(" 1 ", " %(number)s ") in page  # its words for them
