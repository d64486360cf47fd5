"""What every request is checked for before its route: an Accept header it can be answered in, a body that is JSON
(or a replay's NDJSON lines), not nested too deeply nor holding half a UTF-16 pair, and an Idempotency-Key only where
it is honoured.  Each refusal is an :class:`~service.http.problems.ApiError`, answered as problem+json."""

from __future__ import annotations

import json
import re

from flask import Request, current_app, request
from werkzeug.exceptions import BadRequest

from replays.ndjson import NdjsonError, document_from_lines
from service.http import idempotency
from service.http.api import NDJSON, PRODUCES, best_offer_of, this_request
from service.http.problems import ApiError


def check_request() -> None:
    """``before_request``: what every request is checked for before its route (an Accept header it can be answered
    in, a body that is JSON, an Idempotency-Key where it is honoured), in one hook on the request itself: as three
    hooks, each asking the proxies for the request again, Flask's calls cost more than the checks."""
    req = this_request()
    _check_accept(req)
    _check_body(req)
    idempotency.refused_here(req)


def _check_accept(req: Request) -> None:
    """406 when the Accept header takes nothing the route answers with (a client would misread what it got)."""
    if req.method == "OPTIONS":
        return
    if req.blueprint not in ("v1", "health"):
        return
    produces = PRODUCES.get(req.endpoint or "", _JSON_ONLY)
    if produces and best_offer_of(req, produces) is None:
        accept = req.headers["Accept"][:100]
        raise ApiError("not_acceptable", f"This answers {' or '.join(produces)}; the Accept header asks for {accept}.")


_JSON_ONLY = ("application/json",)


def _check_body(req: Request) -> None:
    """415 for a body that is not JSON, 400 for JSON that does not parse or nests too deeply, 422 for a PATCH without a
    body (before any schema runs)."""
    if req.method not in ("POST", "PUT", "PATCH"):
        return
    path = req.path
    if not path.startswith("/v1/"):
        return
    replay = path == "/v1/replays"
    if replay:
        req.max_content_length = current_app.extensions["red7"].settings.max_replay_bytes
    has_body = (req.content_length or 0) > 0 or req.headers.get("Transfer-Encoding") == "chunked"
    if not has_body:
        if req.method == "PATCH":  # a PATCH is its changes: the document requires them (``{}`` changes nothing)
            missing = {"field": "", "message": "a body is required: the fields to change, as a JSON object", "location": "json"}
            raise ApiError("invalid_request", "Send the fields to change as a JSON object.", errors=[missing])
        return
    mimetype = req.mimetype
    if replay and mimetype == NDJSON:
        _check_replay_lines()
        return
    if not req.is_json:
        also = " (or a replay's lines as application/x-ndjson)" if replay else ""
        raise ApiError("unsupported_media_type", f"Send the body as application/json{also}, not {mimetype or 'nothing'}.")
    try:
        body = req.get_json()
    except BadRequest:
        raise ApiError("malformed_json", "The body is not valid JSON.") from None
    except RecursionError:  # json's parser recurses per level: 20,000 "[" fit well inside the body limit
        raise ApiError("malformed_json", _TOO_DEEP) from None
    if _too_deep(body):
        raise ApiError("malformed_json", _TOO_DEEP)
    if _SURROGATE_ESCAPE.search(req.get_data()) and not _is_unicode(body):
        raise ApiError("malformed_json", "The body holds a \\u escape of half a UTF-16 pair, which is not a character.")


def _check_replay_lines() -> None:
    """400 for an NDJSON replay whose lines are not a replay's (the schema and the verifier do the rest)."""
    try:
        document = document_from_lines(request.get_data(cache=True))
    except NdjsonError as exc:
        raise ApiError("malformed_json", f"The body is not a replay's NDJSON lines: {exc}.") from None
    except RecursionError:
        raise ApiError("malformed_json", _TOO_DEEP) from None
    if _too_deep(document):
        raise ApiError("malformed_json", _TOO_DEEP)
    if _SURROGATE_ESCAPE.search(request.get_data()) and not _is_unicode(document):
        raise ApiError("malformed_json", "The body holds a \\u escape of half a UTF-16 pair, which is not a character.")


#: How deep a body may nest: far deeper than any request needs, and far enough below Python's recursion limit that
#: what parses here also parses again (webargs parses the body once more) and goes through every schema and json.dumps.
MAX_JSON_DEPTH = 64
_TOO_DEEP = f"The body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels."


def _too_deep(body: object) -> bool:
    """Whether ``body`` nests arrays and objects deeper than :data:`MAX_JSON_DEPTH` (walked a level at a time, not
    recursively: recursion is what it guards against)."""
    level = [body]
    for _ in range(MAX_JSON_DEPTH + 1):
        containers = [value for value in level if isinstance(value, (list, dict))]
        if not containers:
            return False
        level = [child for value in containers for child in (value.values() if isinstance(value, dict) else value)]
    return True


#: A \uD800-\uDFFF escape: JSON's parser accepts one alone, but it is no character and cannot be stored.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _is_unicode(body: object) -> bool:
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
