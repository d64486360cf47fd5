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

TEMPLATE = "play.html"
_NONCE = "__RED7_NONCE__"

pages = Blueprint("pages", __name__)


@lru_cache(maxsize=1)
def template() -> str:
    """The page shipped in the ``service.http`` package (package data in pyproject.toml)."""
    return resources.files("service.http").joinpath(TEMPLATE).read_text(encoding="utf-8")


def content_security_policy(nonce: str) -> str:
    """Nothing but this page's own script and style, and requests to this origin (the API, its event stream)."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


@pages.get("/play")
@pages.get("/play/")
def play() -> Response:
    """The web client; the address's fragment says what to open (``#game=<id>``, or ``#join=<id>:<code>``)."""
    nonce = secrets.token_urlsafe(18)  # URL-safe base64: nothing in it needs escaping in HTML or in the header
    response = Response(template().replace(_NONCE, nonce), mimetype="text/html")
    response.headers["Content-Security-Policy"] = content_security_policy(nonce)
    response.headers["Cache-Control"] = "no-store"  # a nonce is for one answer only
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
