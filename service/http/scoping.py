"""Scopes checked at the edge (issue 37): before a route runs, the bearer token must hold the scope its operation
needs (:mod:`service.http.scopes`), and every answer to a token says what that token may do.

The check runs before the route and its schema, so a token without the scope learns nothing of the request's
validity, and no route can forget it.  Refused: 403 with ``WWW-Authenticate: Bearer error="insufficient_scope",
scope="..."`` (RFC 6750 §3.1) and the problem code ``insufficient_scope_<scope>`` (``:`` written ``_``), whose
``scope`` member names it.  Every answer to a request with a working token carries ``X-OAuth-Scopes`` (as GitHub
and Lichess answer): a client reads what its token may do without a call of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from flask import Request, Response, current_app, g

from service.domain.scopes import FULL, granted, header_value, ordered
from service.http.api import this_request
from service.http.auth import bearer_token, caller_grant
from service.http.problems import ApiError, scope_code
from service.http.scopes import FIELD_SCOPES, OPERATION_SCOPES

SCOPES_HEADER = "X-OAuth-Scopes"
ACCEPTED_HEADER = "X-Accepted-OAuth-Scopes"


@cache
def _operation_of(view: Any, method: str) -> str | None:
    handler = getattr(view, method.lower(), None)
    doc = getattr(handler, "_apidoc", None) or {}
    found: str | None = (doc.get("manual_doc") or {}).get("operationId")
    return found


def operation_of(req: Request) -> str | None:
    """The operationId a request is for (``None``: none of the document's, e.g. a page or the document itself)."""
    if req.endpoint is None:
        return None
    view = getattr(current_app.view_functions.get(req.endpoint), "view_class", None)
    if view is None:
        return None
    return _operation_of(view, "GET" if req.method == "HEAD" else req.method)


def needed(operation: str, body: Any = None) -> frozenset[str] | None:
    """The scopes a token needs for ``operation`` with ``body`` (``None``: it is public).  An operation the table does
    not name needs every scope: only a full token passes until it has its line."""
    if operation not in OPERATION_SCOPES:
        return FULL
    scope = OPERATION_SCOPES[operation]
    if scope is None:
        return None
    wanted = {scope}
    if isinstance(body, dict):
        wanted.update(extra for member, extra in FIELD_SCOPES.get(operation, {}).items() if member in body)
    return frozenset(wanted)


def check_scope() -> None:
    """``before_request``: a request with a bearer token for an operation that asks for one needs its scope."""
    req = this_request()
    if req.method == "OPTIONS" or req.blueprint not in ("v1", "health"):
        return
    token = bearer_token()
    if token is None:
        return  # no token: the route asks for one (401) or answers as to anyone
    operation = operation_of(req)
    if operation is None:
        return
    body = req.get_json(silent=True) if req.is_json else None
    wanted = needed(operation, body)
    if wanted is None:
        return
    holds = granted(caller_grant(req, token).scopes)
    lacking = ordered(wanted - holds)
    if lacking:
        raise insufficient(lacking)


def insufficient(lacking: Iterable[str]) -> ApiError:
    """The 403 for a token without ``lacking`` (RFC 6750 §3.1), its code naming the first scope it lacks."""
    missing = ordered(lacking)
    first = missing[0]
    error = ApiError(
        scope_code(first),
        f"This token lacks the scope {', '.join(missing)}; issue one with it (createToken) from a token that has it.",
        scope=first,
        scopes=missing,
    )
    error.headers["WWW-Authenticate"] = f'Bearer error="insufficient_scope", scope="{" ".join(missing)}"'
    error.headers[ACCEPTED_HEADER] = header_value(missing)
    return error


def mark_scopes(response: Response) -> Response:
    """``after_request``: the scopes of the token the request came with, on every answer to a working token."""
    grant = g.get("grant")
    if grant is not None:
        response.headers[SCOPES_HEADER] = header_value(granted(grant.scopes))
    return response
