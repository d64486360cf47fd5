"""The HTTP routes of ``/v1``: parse (schemas), call the application layer, render.

Responses are rendered straight to JSON (``service.http.views``); the
``@blp.response`` declarations document them in the OpenAPI spec.  The routes
live in :mod:`service.http.routes`, one module per resource; this module
hands the app factory the blueprints with every route registered.
"""

from __future__ import annotations

from service.http import routes  # noqa: F401 (registers every route on the blueprints)
from service.http.common import NDJSON, RESPONSE_HEADERS, best_offer, best_offer_of, health, json_response, this_request, v1
from service.http.routes.play import pages
from service.http.routes.replays import PRODUCES

__all__ = [
    "NDJSON",
    "PRODUCES",
    "RESPONSE_HEADERS",
    "best_offer",
    "best_offer_of",
    "health",
    "json_response",
    "pages",
    "this_request",
    "v1",
]
