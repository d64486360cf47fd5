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
        for path in files.modules
        if path != assets.PLAY_ENTRY
    )
    return (
        assets.text("play/play.html")
        .replace("__RED7_PRELOADS__", preloads)
        .replace("__RED7_STATIC__", f"{STATIC}/{files.version}")
    )


def content_security_policy(nonce: str) -> str:
    """Nothing but this page's own stylesheet and modules, requests to this origin (the API, its event stream), and
    this origin's service worker (the web pushes: :data:`SERVICE_WORKER`)."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


#: The web client's service worker: it shows each web push as a notification (one per game: its tag is the push's
#: topic), and a click opens the game in the web client.
SERVICE_WORKER = """"use strict";
self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = {}; }
  const about = message.game_id || message.challenge_id || "red7";
  event.waitUntil(self.registration.showNotification(message.title || "Red7", {
    body: message.body || "", tag: about, renotify: true, data: { url: message.url || "/play" },
  }));
});
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/play";
  event.waitUntil(self.clients.matchAll({ type: "window" }).then((open) => {
    const page = open.find((client) => new URL(client.url).pathname === "/play");
    return page ? page.navigate(url).then((c) => (c || page).focus()) : self.clients.openWindow(url);
  }));
});
"""


@pages.get("/play/sw.js")
def service_worker() -> Response:
    """The web client's service worker, at a path of its own; it may control ``/play`` (``Service-Worker-Allowed``)."""
    response = Response(SERVICE_WORKER, mimetype="text/javascript")
    response.headers["Content-Security-Policy"] = "default-src 'none'; connect-src 'self'"
    response.headers["Service-Worker-Allowed"] = "/play"
    response.headers["Cache-Control"] = "no-cache"
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
