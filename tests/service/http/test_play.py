"""The web client's page: served at /play under a strict CSP with its own modules and style (nothing from anywhere
else, nothing inline but its words), and not an API operation; its files served by version."""

from __future__ import annotations

import hashlib
import html
import json
import re

import fakeredis
import pytest

from service.common.texts import CARDS, LANGUAGES, Text, count, render
from service.http.app import create_app
from service.http.routes.play import IMMUTABLE, STATIC, WORDS, template
from service.runtime import build_runtime
from service.webclient import assets
from tests.harness.support import settings_for

SCRIPT_OR_STYLE = re.compile(r"<(script|style|link)\b([^>]*)>(?:(.*?)</\1>)?", re.IGNORECASE | re.DOTALL)
EXTERNAL = re.compile(r"""(?:https?:)?//[^\s"'<>)]+""", re.IGNORECASE)
#: An address in the page: a fragment of the page, or one of its own files (under their version).
ADDRESS = re.compile(r"""\b(?:src|href)=["']([^"']*)["']""", re.IGNORECASE)
OWN = re.compile(
    rf"^{STATIC}/[0-9a-f]{{20}}/(?:core|play)/[a-z-]+\.(?:js|css)$"
    r"|^/play/manifest\.webmanifest$|^/play/icons/[a-z0-9-]+\.(?:svg|png)$"  # installing the app
)


@pytest.fixture(scope="module")
def app():
    """An app on its own fakeredis: the page does not depend on the store."""
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    return create_app(build_runtime(settings_for("red7-test:play:"), clients=clients))


def loaded(app, page: str) -> str:
    """The page and every file it loads (its modules and style, fetched from the addresses it names), as one text."""
    files = [app.test_client().get(address) for address in ADDRESS.findall(page) if not address.startswith("#")]
    assert files and all(file.status_code == 200 for file in files)
    return "\n".join([page, *(file.get_data(as_text=True) for file in files if not file.mimetype.startswith("image/"))])


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
        "worker-src": "'self'",  # the service worker of the web pushes and the offline shell, /play/sw.js
        "manifest-src": "'self'",  # installing the app: /play/manifest.webmanifest
        "img-src": "'self'",  # its icon, /play/icons/icon.svg
        "base-uri": "'none'",
        "form-action": "'none'",
        "frame-ancestors": "'none'",
    }
    page = response.get_data(as_text=True)
    tags = [(name, attributes, inside) for name, attributes, inside in SCRIPT_OR_STYLE.findall(page)]
    # The page's words: a data block, which no browser runs (so it needs no nonce), then its module and style.
    words = [tag for tag in tags if tag[:2] == ("script", ' id="words" type="application/json"')]
    assert len(words) == 1
    tags = [tag for tag in tags if tag not in words]
    # The links that install the app (its manifest and icons: manifest-src and img-src 'self') run nothing.
    installing = [tag for tag in tags if re.search(r'rel="(?:manifest|icon|apple-touch-icon)"', tag[1])]
    assert len(installing) == 3
    tags = [tag for tag in tags if tag not in installing]
    # Nothing inline: the page's stylesheet and module by their addresses, the modules they import preloaded, each with
    # the nonce (a module imported by the page's module takes it from there).
    assert [name for name, _, _ in tags if name != "link"] == ["script"]
    assert all(inside.strip() == "" for _, _, inside in tags), "no inline script or style"
    assert all(f'nonce="{nonce.group(1)}"' in attributes for _, attributes, _ in tags), tags
    (module,) = [attributes for name, attributes, _ in tags if name == "script"]
    assert re.fullmatch(rf' type="module" nonce="{nonce.group(1)}" src="{STATIC}/[0-9a-f]{{20}}/play/main.js"', module)
    assert "__RED7_" not in page
    assert " style=" not in page, "an inline style attribute would be refused by the CSP"


def test_the_service_worker_is_served_under_the_same_rules_and_may_control_play(app):
    response = app.test_client().get("/play/sw.js")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache" and response.headers["ETag"]
    assert _policy(response.headers["Content-Security-Policy"]) == {"default-src": "'none'", "connect-src": "'self'"}
    assert response.headers["Service-Worker-Allowed"] == "/play"
    worker = response.get_data(as_text=True)
    assert 'addEventListener("push"' in worker and "showNotification" in worker and "notificationclick" in worker
    page = app.test_client().get("/play").get_data(as_text=True)
    assert 'serviceWorker.register("/play/sw.js", { scope: "/play" })' in loaded(app, page)
    # No VAPID key here: the page says so itself, so it never asks getPushKey for a 404 (a console error in browsers).
    assert '<meta name="red7-push-key" content="">' in page and "/v1/push/key" not in loaded(app, page)


def test_each_answer_has_its_own_nonce_and_play_slash_is_the_same_page(app):
    client = app.test_client()
    first, second, slash = client.get("/play"), client.get("/play"), client.get("/play/")
    nonces = [_policy(r.headers["Content-Security-Policy"])["script-src"] for r in (first, second, slash)]
    assert len(set(nonces)) == 3
    assert slash.status_code == 200 and slash.mimetype == "text/html"


def test_the_page_loads_nothing_from_anywhere(app):
    """Every address in the page is one of its own files or a fragment of the page itself; every address its files
    name is the API's (/v1/...)."""
    page = template()
    assert EXTERNAL.findall(page) == []
    for address in ADDRESS.findall(page):
        assert address.startswith("#") or OWN.match(address), address
    everything = loaded(app, app.test_client().get("/play").get_data(as_text=True))
    assert EXTERNAL.findall(everything) == []
    assert "/v1/" in everything


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
    assert "/v1/players/me/mistakes?" in loaded(app, page)
    # The script's words with parameters ride untranslated-in-shape: the page fills them in.
    assert "%(date)s" in said["play.date_round"] and "%(round)s" in said["play.date_round"]
    assert "%(delta)s" in said["viewer.verdict"] and "%(label)s" in said["viewer.verdict"]
    if language != "en":
        assert said["play.mistakes_none"] != render(Text("play.mistakes_none"), "en")


def test_its_files_are_served_by_version_kept_a_year_and_asked_again_by_etag(app):
    """The page names each of its files once (its style, its module, the modules it imports preloaded), under one
    version, a digest of them all; each is served with its type, kept a year, and its ETag answers 304.  The modules
    imported when a screen is first opened are served under the same version, and the page does not name them."""
    client = app.test_client()
    addresses = [a for a in ADDRESS.findall(client.get("/play").get_data(as_text=True)) if a.startswith(STATIC)]
    files = assets.play()
    prefix = f"{STATIC}/{files.version}/"
    assert all(address.startswith(prefix) for address in addresses)
    later = set(files.modules) - set(files.preloaded)  # loaded when first needed: served, not named by the page
    lazy = {"play/stats.js", "play/charts.js", "play/archive.js", "play/watch.js", "play/moderation.js", "play/tournaments.js"}
    assert later == lazy
    assert sorted(address.removeprefix(prefix) for address in addresses) == sorted(set(files.files) - later)
    assert set(files.modules) == set(assets.graph("play/main.js")) and "core/words.js" in files.preloaded
    addresses += [f"{prefix}{path}" for path in sorted(later)]
    everything = hashlib.sha256()
    for path, file in files.files.items():
        everything.update(f"{path}\0{hashlib.sha256(file.body).hexdigest()}\0".encode())
    assert files.version == everything.hexdigest()[:20], "the version changes with any file"
    for address in addresses:
        answer = client.get(address)
        assert answer.status_code == 200
        assert answer.mimetype == ("text/css" if address.endswith(".css") else "text/javascript")
        assert answer.mimetype_params == {"charset": "utf-8"}
        assert answer.headers["Cache-Control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        assert answer.get_data() == files.files[address.removeprefix(prefix)].body
        assert answer.headers["X-Content-Type-Options"] == "nosniff" and "Content-Language" not in answer.headers
        again = client.get(address, headers={"If-None-Match": answer.headers["ETag"]})
        assert again.status_code == 304 and again.get_data() == b""


@pytest.mark.parametrize(
    "path",
    [
        "0123456789abcdef0123/play/main.js",
        "{version}/play/words.json",
        "{version}/play/play.html",
        "{version}/../words.py",
        "{version}/core/nothing.js",
        "{version}/tsconfig.json",
    ],
)
def test_another_version_or_a_file_it_does_not_serve_is_a_404(app, path):
    answer = app.test_client().get(f"{STATIC}/{path.format(version=assets.play().version)}")
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json"
    assert answer.headers.get("Cache-Control") != IMMUTABLE


def test_its_files_draw_on_no_rate_limit():
    """A page load asks for some twenty files: they are not charged to the address's budget (the page and the API are)."""
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    limited = create_app(
        build_runtime(settings_for("red7-test:play-limits:", rate_limit_address="3 per minute"), clients=clients)
    )
    client = limited.test_client()
    page = client.get("/play").get_data(as_text=True)
    addresses = [a for a in ADDRESS.findall(page) if not a.startswith("#")]
    assert len(addresses) > 3
    assert [client.get(address).status_code for address in addresses] == [200] * len(addresses)
    assert [client.get("/play").status_code for _ in range(3)][-1] == 429, "the page itself is charged"


# --- installing the app (issue 38) -----------------------------------------------------------------


def png_size(body: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk (the first, right after the 8-byte signature)."""
    assert body[:8] == b"\x89PNG\r\n\x1a\n" and body[12:16] == b"IHDR", body[:16]
    return int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")


def test_the_manifest_makes_play_installable_with_icons_of_the_sizes_it_names(app):
    client = app.test_client()
    response = client.get("/play/manifest.webmanifest")
    assert response.status_code == 200 and response.mimetype == "application/manifest+json"
    assert response.headers["Cache-Control"] == "no-cache" and response.headers["ETag"]
    manifest = response.get_json(force=True)
    # What Chromium asks of an installable app: a name, a start inside its scope, a standalone display, icons of
    # 192 and 512 pixels.
    assert manifest["name"] and manifest["short_name"] and manifest["display"] == "standalone"
    assert manifest["start_url"] == manifest["scope"] == "/play" and manifest["id"] == "/play"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    sizes = set()
    for icon in manifest["icons"]:
        answer = client.get(icon["src"])
        assert answer.status_code == 200 and answer.mimetype == icon["type"], icon
        assert answer.headers["Cache-Control"] == "public, max-age=86400" and answer.headers["ETag"]
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        if icon["type"] == "image/png":
            width, height = png_size(answer.get_data())
            assert icon["sizes"] == f"{width}x{height}", icon
            sizes.add((width, icon["purpose"]))
        else:
            assert icon["sizes"] == "any" and answer.get_data().startswith(b"<svg")
        again = client.get(icon["src"], headers={"If-None-Match": answer.headers["ETag"]})
        assert again.status_code == 304
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes
    page = client.get("/play").get_data(as_text=True)
    assert '<link rel="manifest" href="/play/manifest.webmanifest">' in page
    assert png_size(client.get("/play/icons/apple-touch-icon.png").get_data()) == (180, 180)
    assert client.get("/play/icons/nope.png").status_code == 404


def test_the_service_worker_keeps_the_shell_and_answers_offline_with_it(app):
    """What the worker does offline is tested in Chromium (tests/service/browser/test_play_installable_browser.py);
    here, that the worker the page registers is the one with the shell, and the page reads its offline mark."""
    worker = app.test_client().get("/play/sw.js").get_data(as_text=True)
    assert 'addEventListener("fetch"' in worker and "caches.open" in worker and 'data-offline="true"' in worker
    page = loaded(app, app.test_client().get("/play").get_data(as_text=True))
    assert 'dataset.offline === "true"' in page
