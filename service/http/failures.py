"""Every failure answered as problem+json (RFC 9457) with a stable code: werkzeug's HTTP errors (a schema's 422 with
each field's message), a refusal of the application, a move against the rules, the store out of reach, and anything
unexpected (logged, never shown).

The application's refusals know no HTTP (:mod:`service.common.errors`); their status and words are
:mod:`service.http.problems`'s, and this module is where a raised failure becomes an answer.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import flask_smorest
import redis
from flask import Flask, Response, request
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException

from engine import RuleViolation
from service.common.errors import Refused
from service.common.texts import DEFAULT
from service.http.api import json_response
from service.http.headers import request_id
from service.http.locale import language
from service.http.problems import PROBLEM_JSON, detail_of, headers_of, problem, status_of, title_of
from service.http.schemas import ProblemSchema

log = logging.getLogger("red7")

_HTTP_CODES = {
    400: "malformed_json",
    401: "token_required",
    403: "not_a_player",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
}


def _flatten(messages: Any, path: str = "") -> list[dict[str, str]]:
    """marshmallow's nested error dict as a list of ``{"field": "seats.0.kind", "message": ...}``."""
    if isinstance(messages, dict):
        out = []
        for key, value in messages.items():
            name = "" if key == "_schema" else str(key)
            out += _flatten(value, f"{path}.{name}" if path and name else path or name)
        return out
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return [{"field": path, "message": m} for m in messages]
    if isinstance(messages, list):
        return [e for item in messages for e in _flatten(item, path)]
    return [{"field": path, "message": str(messages)}]


# flask-smorest ships no type information (pyproject: ignore_missing_imports), so its Api is Any to mypy.
class Api(flask_smorest.Api):  # type: ignore[misc]
    """flask-smorest's Api, answering every HTTP error as problem+json, and documenting them so."""

    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        return _problem_response_for_http(error)

    def _register_pagination_header(self) -> None:
        """Nothing: no route pages flask-smorest's way, and its header's schema would be an unused component."""

    def _register_responses(self) -> None:
        """The error responses flask-smorest documents by itself (default, 422 of arguments): problem+json."""
        for status in HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_JSON if status >= 400 else self.DEFAULT_RESPONSE_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        default = {"description": "An error: problem details (RFC 9457)", "schema": self.ERROR_SCHEMA}
        prepare_response(default, self.spec, PROBLEM_JSON)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, default, lazy=True)


def _problem_response(code: str, status: int, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> Response:
    """A problem+json answer: its title in the request's language, ``detail`` as given (written in it, or, for a
    detail only said in English, the title again in another language: see :func:`problems.detail_of`)."""
    lang = language()
    localized = extra.pop("_localized", False)  # ours, never a member of the answer: popped whatever the language
    if lang != DEFAULT and detail and not localized:
        detail = title_of(code, lang)
    body = problem(code, status, detail, request.path, language=lang, request_id=request_id(), **extra)
    return json_response(body, status, headers, PROBLEM_JSON)


def _problem_response_for_http(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
    headers.update(data.get("headers") or {})
    if status == 422 and "messages" in data:
        errors = []
        for location, messages in data["messages"].items():
            for item in _flatten(messages):
                errors.append({**item, "location": location})
        detail = "; ".join(f"{e['field'] or 'body'}: {e['message']}" for e in errors)
        return _problem_response("invalid_request", 422, detail, headers, errors=errors)
    if status == 429:
        return _problem_response("rate_limited", 429, f"Too many requests: {error.description}", headers)
    if status == 413:
        return _too_large(headers)
    code = _HTTP_CODES.get(status, "internal_error" if status >= 500 else "not_found")
    detail = data.get("message") or error.description or error.name
    return _problem_response(code, status, str(detail), headers)


def _too_large(headers: dict[str, str]) -> Response:
    """413, stating the limit (the route's: an imported replay may be larger than any other body)."""
    limit = request.max_content_length
    if limit is None:  # no limit: only a server in front of us refuses a body for its size
        return _problem_response("payload_too_large", 413, "The request body is too large.", headers)
    sent = f" (this one: {request.content_length} bytes)" if request.content_length else ""
    detail = f"A request body here may be at most {limit} bytes{sent}."
    return _problem_response("payload_too_large", 413, detail, headers, max_bytes=limit)


def answer_failures(app: Flask) -> None:
    """Register the handlers that turn what a route raises into problem+json (an ``HTTPException`` included: Flask
    would answer it as HTML)."""

    @app.errorhandler(Refused)
    def refused(error: Refused) -> Response:
        lang = language()
        detail = detail_of(error, lang)
        return _problem_response(error.code, status_of(error.code), detail, headers_of(error), _localized=True, **error.facts)

    @app.errorhandler(RuleViolation)
    def against_the_rules(error: RuleViolation) -> Response:
        return _problem_response(error.code, 422, error.message, None, **error.details)

    # A Redis Cluster's own errors (a slot not covered, a transaction across slots) are no RedisError.
    @app.errorhandler(redis.RedisError)
    @app.errorhandler(redis.exceptions.RedisClusterException)
    def store_down(error: Exception) -> Response:
        log.error("event store error: %s", error)
        # A write cut short here may have been stored (a Redis that fails over after the write): a retry must carry
        # the same Idempotency-Key to be told the first attempt's outcome rather than do it twice.
        detail = (
            "The event store cannot be reached; what you asked may or may not have been done. "
            "Try again shortly, with the same Idempotency-Key."
        )
        return _problem_response("store_unavailable", 503, detail, {"Retry-After": "5"})

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        if isinstance(error, HTTPException):
            return _problem_response_for_http(error)
        log.exception("unexpected error on %s %s", request.method, request.path)
        return _problem_response("internal_error", 500, "Something went wrong on our side; it has been logged.")
