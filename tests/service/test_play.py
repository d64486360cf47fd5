"""The web client's page: served at /play as one self-contained HTML page under a strict CSP, and not an API operation."""

from __future__ import annotations

import html
import json
import re

import fakeredis
import pytest

from service.http.app import create_app
from service.http.play_words import WORDS
from service.http.routes.play import template
from service.runtime import build_runtime
from service.texts import CARDS, LANGUAGES, Text, count, render
from tests.support import settings_for

SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b([^>]*)>", re.IGNORECASE)
EXTERNAL = re.compile(r"""(?:https?:)?//[^\s"'<>)]+|\bsrc=|\bhref=["'](?!#)""", re.IGNORECASE)


@pytest.fixture(scope="module")
def app():
    """An app on its own fakeredis: the page does not depend on the store."""
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    return create_app(build_runtime(settings_for("red7-test:play:"), clients=clients))


def _policy(header: str) -> dict[str, str]:
    return {name: value for name, _, value in (part.strip().partition(" ") for part in header.split(";"))}


def test_play_is_a_page_with_a_strict_csp(app):
    client = app.test_client()
    response = client.get("/play", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Cache-Control"] == "no-store"
    policy = _policy(response.headers["Content-Security-Policy"])
    nonce = re.fullmatch(r"'nonce-([A-Za-z0-9_-]{20,})'", policy["script-src"])
    assert nonce, policy
    assert policy == {
        "default-src": "'none'",
        "script-src": f"'nonce-{nonce.group(1)}'",
        "style-src": f"'nonce-{nonce.group(1)}'",
        "connect-src": "'self'",
        "worker-src": "'self'",  # the service worker of the web pushes, /play/sw.js
        "base-uri": "'none'",
        "form-action": "'none'",
        "frame-ancestors": "'none'",
    }
    page = response.get_data(as_text=True)
    tags = SCRIPT_OR_STYLE.findall(page)
    # The page's words: a data block, which no browser runs (so it needs no nonce), then the page's script and style.
    words = ("script", ' id="words" type="application/json"')
    assert words in tags
    tags = [tag for tag in tags if tag != words]
    assert [name for name, _ in tags] == ["style", "script", "script"]  # the page's, and its offer of notifications
    assert all(attributes.strip() == f'nonce="{nonce.group(1)}"' for _, attributes in tags), tags
    assert "__RED7_" not in page
    assert " style=" not in page, "an inline style attribute would be refused by the CSP"


def test_the_service_worker_is_served_under_the_same_rules_and_may_control_play(app):
    response = app.test_client().get("/play/sw.js")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert _policy(response.headers["Content-Security-Policy"]) == {"default-src": "'none'", "connect-src": "'self'"}
    assert response.headers["Service-Worker-Allowed"] == "/play"
    worker = response.get_data(as_text=True)
    assert 'addEventListener("push"' in worker and "showNotification" in worker and "notificationclick" in worker
    page = app.test_client().get("/play").get_data(as_text=True)
    assert 'serviceWorker.register("/play/sw.js", { scope: "/play" })' in page
    # No VAPID key here: the page says so itself, so it never asks getPushKey for a 404 (a console error in browsers).
    assert '<meta name="red7-push-key" content="">' in page and "/v1/push/key" not in page


def test_each_answer_has_its_own_nonce_and_play_slash_is_the_same_page(app):
    client = app.test_client()
    first, second, slash = client.get("/play"), client.get("/play"), client.get("/play/")
    nonces = [_policy(r.headers["Content-Security-Policy"])["script-src"] for r in (first, second, slash)]
    assert len(set(nonces)) == 3
    assert slash.status_code == 200 and slash.mimetype == "text/html"


def test_the_page_loads_nothing_from_anywhere():
    """Every address in the page is the API's (/v1/...) or a fragment of the page itself."""
    page = template()
    assert EXTERNAL.findall(page) == []
    assert "/v1/" in page


def test_play_is_not_in_the_openapi_document(app):
    spec = app.test_client().get("/v1/openapi.json").get_json()
    assert spec["paths"] and not any(path.startswith("/play") for path in spec["paths"])
    assert not re.search(r"[\s\"'(]/play\b", str(spec))


@pytest.mark.parametrize("language", LANGUAGES)
def test_play_is_in_the_language_asked_for_every_word_filled_in(app, language):
    """``?lang=`` decides; each word placeholder is filled in, the script's words ride in the page in that language."""
    response = app.test_client().get(f"/play?lang={language}")
    page = response.get_data(as_text=True)
    assert response.headers["Content-Language"] == language
    assert f'<html lang="{language}">' in page
    assert "__T:" not in page and "__RED7_" not in page
    said = json.loads(re.search(r'<script id="words" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert said["lang"] == language and list(said["languages"]) == list(LANGUAGES)
    assert set(WORDS) <= set(said["words"])
    title = html.unescape(re.search(r"<title>(.*?)</title>", page).group(1))
    assert title == render(Text("play.title"), language)
    assert said["words"]["counted"]["cards"][5] == render(count(5, CARDS), language)


def test_play_follows_accept_language_and_says_it_depends_on_it(app):
    response = app.test_client().get("/play", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"})
    assert response.headers["Content-Language"] == "ru" and "Accept-Language" in response.headers["Vary"]
    assert "<title>Играть в Red7</title>" in response.get_data(as_text=True)
    plain = app.test_client().get("/play", headers={"Accept-Language": "xx"})
    assert plain.headers["Content-Language"] == "en" and "<title>Play Red7</title>" in plain.get_data(as_text=True)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_mistakes_screen_is_in_the_page_and_in_each_language(app, language):
    """``#mistakes`` (listMyMistakes): reached from the nav and from a finished game's end, its words in the language."""
    page = app.test_client().get(f"/play?lang={language}").get_data(as_text=True)
    said = json.loads(re.search(r'<script id="words" type="application/json">(.*?)</script>', page, re.S).group(1))["words"]
    heading = html.escape(render(Text("play.your_mistakes_across_games"), language), quote=True)
    assert '<section id="mistakes" class="screen panel" aria-labelledby="mistakes-h" hidden>' in page
    assert f'<h2 id="mistakes-h" class="big">{heading}</h2>' in page
    assert f'<a href="#mistakes" data-nav="mistakes">{html.escape(render(Text("play.mistakes"), language))}</a>' in page
    assert f'<a class="button" id="mistakes-link" href="#mistakes">{heading}</a>' in page
    for label in ("inaccuracy", "mistake", "blunder"):
        tab = html.escape(render(Text(f"play.at_least.{label}"), language))
        assert f'<a href="#mistakes={label}" data-label="{label}">{tab}</a>' in page
        assert said[f"viewer.label.{label}"] == render(Text(f"viewer.label.{label}"), language)
    assert '<p id="mistakes-state" aria-live="polite"></p>' in page
    assert "/v1/players/me/mistakes?" in page
    # The script's words with parameters ride untranslated-in-shape: the page fills them in.
    assert "%(date)s" in said["play.date_round"] and "%(round)s" in said["play.date_round"]
    assert "%(delta)s" in said["viewer.verdict"] and "%(label)s" in said["viewer.verdict"]
    if language != "en":
        assert said["play.mistakes_none"] != render(Text("play.mistakes_none"), "en")
