"""What every answer carries whatever its route: no Content-Type without content, ``nosniff``, the language of its
text, the request's id, a refusal to be framed (but where a page allows it); and, where the settings name origins,
the CORS headers a browser on another origin needs to read it.

The request's id is the client's ``X-Request-Id`` when it is one we can log safely (1-64 of ``[A-Za-z0-9._-]``: a
proxy's or a client's own, so that their lines and ours can be joined), else one made here.  It goes back in the
answer's header, in a problem's body, in every log line the request writes and in the jobs it queues.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from flask_cors import CORS

from service.http import languages

#: Answers that carry no content (RFC 9110 15.3.5, 15.4.5), so no Content-Type either.
NO_CONTENT = frozenset({204, 304})


REQUEST_ID = "X-Request-Id"
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id() -> str:
    """This request's id: the client's ``X-Request-Id`` if it is safe to log and echo, else a new random one (the
    same for the whole request: chosen at the first ask)."""
    chosen: str | None = g.get("request_id")
    if chosen is None:
        sent = request.headers.get(REQUEST_ID, "")
        chosen = sent if _SAFE_ID.fullmatch(sent) else os.urandom(8).hex()  # no secret: a label, guessable or not
        g.request_id = chosen
    return chosen


def log_context() -> dict[str, Any] | None:
    """What a log line written while answering a request is stamped with (:mod:`service.common.logformat`): the
    request's id, its route's template (never the path: it holds ids and stream tickets) and the player, if known."""
    if not has_request_context():
        return None
    rule = request.url_rule
    player = g.get("player")
    return {
        "request_id": request_id(),
        "route": f"{request.method} {rule.rule}" if rule is not None else request.method,
        "player_id": getattr(player, "id", None),
    }


def finish(response: Response) -> Response:
    """``after_request``: what every answer carries, in one hook (as the checks before the route).

    No Content-Type on an answer with no content: werkzeug gives every response one (text/html by default), a 204 or
    304 too, and a client (or a proxy) would be told of an HTML body that is not there.  ``nosniff`` on every answer.
    The language of an answer with text (:func:`languages.mark`).
    """
    headers = response.headers
    headers[REQUEST_ID] = request_id()
    if response.status_code in NO_CONTENT:
        headers.pop("Content-Type", None)
    if not headers.getlist("X-Content-Type-Options"):  # not "in", nor setdefault: each raises a KeyError inside
        headers.add("X-Content-Type-Options", "nosniff")
    refuse_framing(response)
    return languages.mark(response)


def refuse_framing(response: Response) -> None:
    """No page of ours is framed by another unless it says so itself (the replay viewer's embed mode says
    ``frame-ancestors *``): an answer whose policy names no ``frame-ancestors`` refuses every frame, in the CSP of an
    HTML page and, for browsers that read no CSP, in ``X-Frame-Options`` on every answer (against clickjacking)."""
    headers = response.headers
    policy = headers.get("Content-Security-Policy", "")
    ancestors = next((d.strip() for d in policy.split(";") if d.strip().startswith("frame-ancestors")), None)
    if ancestors is not None and ancestors != "frame-ancestors 'none'":
        return  # the page says who may frame it
    headers["X-Frame-Options"] = "DENY"
    if response.mimetype == "text/html" and ancestors is None:
        headers["Content-Security-Policy"] = f"{policy}; frame-ancestors 'none'" if policy else "frame-ancestors 'none'"


def allow_origins(app: Flask, origins: Sequence[str]) -> None:
    """CORS for ``origins``: the headers a browser script there may send, and those of our answers it may read."""
    CORS(
        app,
        origins=list(origins),
        expose_headers=[
            "ETag",
            "Location",
            "Content-Disposition",
            "Retry-After",
            "Idempotent-Replayed",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
            "X-OAuth-Scopes",  # what the token may do (service/http/scoping.py)
            "X-Accepted-OAuth-Scopes",
            "WWW-Authenticate",
            REQUEST_ID,
        ],
        allow_headers=[
            "Authorization",
            "Content-Type",
            "If-Match",
            "If-None-Match",
            "Idempotency-Key",
            "Last-Event-ID",
            "X-Api-Key",
            REQUEST_ID,
        ],
        methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
        max_age=600,
    )
