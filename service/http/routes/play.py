"""The reference web client: ``GET /play``, a page that plays the game through ``/v1``, and its files.

It is a page, not an API operation, so it is a plain Flask blueprint and stays out of the OpenAPI document.  Like
the replay viewer it has no build step: its markup (``service/webclient/play/play.html``), its style and its ES
modules are files of the ``service.webclient`` package, served as they are (package data in pyproject.toml).  The
page is answered in the request's language with its words filled in; each answer carries a fresh nonce, which the
CSP requires of the page's stylesheet and module (and the modules it imports take it from there), so even an
injected ``<script>`` would not run in a page that holds the player's token, and ``connect-src 'self'`` keeps the
token from being sent anywhere else.

The modules and the style are served under ``/play/static/<version>/`` (:func:`asset`), ``<version>`` a digest of
them all: one address always holds the same bytes, so a browser keeps them for a year (``immutable``) and a page
after a deploy names new addresses.  A version this server does not have is a 404.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from functools import cache

from flask import Blueprint, Response, abort, request

from service.http.common import red7_runtime
from service.http.locale import language
from service.webclient import assets, words

#: /play's words (``service/webclient/play/words.json``), with the core's and the rules' names.
PLAY_WORDS = words.load("play/words.json")
TABLES = (PLAY_WORDS, words.CORE, words.RULES)
#: The codes of the words /play says of its own.
WORDS = PLAY_WORDS.codes
#: Where /play's files are served, under their version.
STATIC = "/play/static"
#: A versioned file never changes: a year, and no need to ask again (RFC 8246).
IMMUTABLE = "public, max-age=31536000, immutable"

pages = Blueprint("pages", __name__)


@cache
def template() -> str:
    """The page, its files named by their versioned addresses (the nonce, push key and words still to fill in)."""
    files = assets.play()
    preloads = "\n".join(
        f'<link rel="modulepreload" nonce="__RED7_NONCE__" href="{STATIC}/{files.version}/{path}">'
        for path in files.preloaded
        if path != assets.PLAY_ENTRY
    )
    return (
        assets.text("play/play.html")
        .replace("__RED7_PRELOADS__", preloads)
        .replace("__RED7_STATIC__", f"{STATIC}/{files.version}")
    )


def content_security_policy(nonce: str) -> str:
    """Nothing but this page's own stylesheet and modules, requests to this origin (the API, its event stream), this
    origin's service worker (the web pushes and the offline shell: :data:`SERVICE_WORKER`), and its manifest and
    icons (installing the app)."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "worker-src 'self'; manifest-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


#: The web client's service worker (``service/webclient/worker/sw.js``): it shows each web push as a notification (one
#: per game: its tag is the push's topic), a click opens the game in the web client, and it keeps /play's shell so
#: that the installed app opens offline, to a "reconnecting" state.
SERVICE_WORKER = "worker/sw.js"
#: The app's icons (``service/webclient/icons``): an SVG for any size, and the PNG sizes installing asks for.
ICONS = {
    "icon.svg": "image/svg+xml",
    "icon-192.png": "image/png",
    "icon-512.png": "image/png",
    "maskable-512.png": "image/png",
    "apple-touch-icon.png": "image/png",
}
#: The icons change with a release, not within a day: a day in a browser's cache, then asked again by ETag.
A_DAY = "public, max-age=86400"
#: What a browser needs to install /play as an app (Web App Manifest): its name, where it starts and what it
#: covers, how it shows, its colours (the pages' own), and its icons with their sizes.
MANIFEST = {
    "id": "/play",
    "name": "Red7",
    "short_name": "Red7",
    "start_url": "/play",
    "scope": "/play",
    "display": "standalone",
    "background_color": "#f4f5f7",
    "theme_color": "#c62828",
    "icons": [
        {"src": "/play/icons/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
        {"src": "/play/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": "/play/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": "/play/icons/maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
    ],
}


@cache
def _file(name: str) -> bytes:
    return assets.data(name)


def _kept(body: bytes, content_type: str, cache_control: str) -> Response:
    """``body`` with its type, an ETag of its bytes and ``cache_control``; a 304 for the ETag the browser has."""
    response = Response(body, content_type=content_type)
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response.headers["Cache-Control"] = cache_control
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.make_conditional(request)
    return response


@pages.get("/play/sw.js")
def service_worker() -> Response:
    """The web client's service worker, at a path of its own; it may control ``/play`` (``Service-Worker-Allowed``).
    Asked again at each check (``no-cache``): a new release's worker then replaces the old one and its shell."""
    response = _kept(_file(SERVICE_WORKER), "text/javascript; charset=utf-8", "no-cache")
    response.headers["Content-Security-Policy"] = "default-src 'none'; connect-src 'self'"
    response.headers["Service-Worker-Allowed"] = "/play"
    return response


@pages.get("/play/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest: what makes /play installable (``<link rel="manifest">`` in the page)."""
    body = json.dumps(MANIFEST, separators=(",", ":")).encode()
    return _kept(body, "application/manifest+json", "no-cache")


@pages.get("/play/icons/<name>")
def icon(name: str) -> Response:
    """One of the app's icons (the manifest's, the page's favicon and Apple touch icon)."""
    if name not in ICONS:
        abort(404)
    response = _kept(_file(f"icons/{name}"), ICONS[name], A_DAY)
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"  # an SVG opened alone
    return response


@pages.get(f"{STATIC}/<version>/<path:name>")
def asset(version: str, name: str) -> Response:
    """One of the page's modules or its stylesheet, by the version the page named (ETag: its own digest)."""
    files = assets.play()
    found = files.files.get(name) if version == files.version else None
    if found is None:  # another version (a page from before a deploy, or another server's), or no such file
        abort(404)
    response = Response(found.body, content_type=found.content_type)
    response.set_etag(found.etag)
    response.headers["Cache-Control"] = IMMUTABLE
    response.make_conditional(request)  # 304 for the ETag the browser has
    return response


@pages.get("/play")
@pages.get("/play/")
def play() -> Response:
    """The web client; the address's fragment says what to open (``#game=<id>``, or ``#join=<id>:<code>``)."""
    nonce = secrets.token_urlsafe(18)  # URL-safe base64: nothing in it needs escaping in HTML or in the header
    # The server's VAPID public key (URL-safe base64, public by design) rides in the page, so the page learns whether
    # this server sends web push without a request that fails (getPushKey's 404) when it does not.
    push_key = red7_runtime().push.public_key or ""
    # In the request's language (?lang=, Accept-Language; the page itself then follows the player's setting).
    page = words.fill(template(), language(), TABLES, {"NONCE": nonce, "PUSH_KEY": push_key})
    response = Response(page, mimetype="text/html")
    response.headers["Content-Security-Policy"] = content_security_policy(nonce)
    response.headers["Cache-Control"] = "no-store"  # a nonce is for one answer only
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
