"""The reference web client: ``GET /play``, one self-contained page that plays the game through ``/v1``.

It is a page, not an API operation, so it is a plain Flask blueprint and stays
out of the OpenAPI document.  Like the replay viewer it has no build step and
loads nothing but itself: inline CSS and JavaScript (``service/http/play.html``),
then only calls to this origin's API.  Each answer carries a fresh nonce that
the CSP requires of the inline script and style, so even an injected
``<script>`` would not run in a page that holds the player's token, and
``connect-src 'self'`` keeps the token from being sent anywhere else.
"""

from __future__ import annotations

import secrets
from functools import lru_cache
from importlib import resources

from flask import Blueprint, Response

from service.http.common import red7_runtime
from service.http.locale import language
from service.http.play_words import render_page

TEMPLATE = "play.html"
_NONCE = "__RED7_NONCE__"
_PUSH_KEY = "__RED7_PUSH_KEY__"

pages = Blueprint("pages", __name__)


@lru_cache(maxsize=1)
def template() -> str:
    """The page shipped in the ``service.http`` package (package data in pyproject.toml)."""
    return resources.files("service.http").joinpath(TEMPLATE).read_text(encoding="utf-8")


def content_security_policy(nonce: str) -> str:
    """Nothing but this page's own script and style, requests to this origin (the API, its event stream), and this
    origin's service worker (the web pushes: :data:`SERVICE_WORKER`)."""
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


@pages.get("/play")
@pages.get("/play/")
def play() -> Response:
    """The web client; the address's fragment says what to open (``#game=<id>``, or ``#join=<id>:<code>``)."""
    nonce = secrets.token_urlsafe(18)  # URL-safe base64: nothing in it needs escaping in HTML or in the header
    # The server's VAPID public key (URL-safe base64, public by design) rides in the page, so the page learns whether
    # this server sends web push without a request that fails (getPushKey's 404) when it does not.
    push_key = red7_runtime().push.public_key or ""
    # In the request's language (?lang=, Accept-Language; the page itself then follows the player's setting).
    page = render_page(template().replace(_NONCE, nonce).replace(_PUSH_KEY, push_key), language())
    response = Response(page, mimetype="text/html")
    response.headers["Content-Security-Policy"] = content_security_policy(nonce)
    response.headers["Cache-Control"] = "no-store"  # a nonce is for one answer only
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
