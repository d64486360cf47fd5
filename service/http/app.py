"""The app factory: settings → connections → stores → application → HTTP.

``create_app()`` with no arguments serves the embedded in-memory store
(fakeredis); with ``REDIS_URL`` it uses that Redis.  Tests pass their own
clients.  Whatever the setting, every error leaves as problem+json.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from http import HTTPStatus
from types import FunctionType, MethodType
from typing import Any

import flask_smorest
import redis
import swagger_ui_bundle
from flask import Flask, Request, Response, current_app, request, send_from_directory
from flask_cors import CORS
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import BadRequest, HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from engine import RuleViolation
from replays.ndjson import NdjsonError, document_from_lines
from service.application.players import hash_token
from service.common.errors import Refused
from service.common.texts import DEFAULT, LANGUAGES
from service.http import idempotency, languages
from service.http.api import (
    NDJSON,
    PRODUCES,
    RESPONSE_HEADERS,
    best_offer_of,
    health,
    json_response,
    pages,
    this_request,
    v1,
)
from service.http.auth import settle_write
from service.http.budgets import Budget, RateBudgets
from service.http.locale import language
from service.http.logs import redact_access_logs
from service.http.openapi import INFO_DESCRIPTION, LICENSE, SERVERS, Red7Document, security_schemes
from service.http.problems import PROBLEM_JSON, ApiError, detail_of, headers_of, problem, status_of, title_of
from service.http.schemas import ProblemSchema
from service.http.waits import OpenWaits
from service.runtime import Runtime, build_runtime

log = logging.getLogger("red7")

#: The files of swagger-ui-bundle that the docs page loads; nothing else of that package is served.
SWAGGER_FILES = frozenset({"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"})
#: Endpoints that rate limits never apply to.
UNLIMITED = frozenset(
    {
        "health.Healthz",
        "health.Readyz",
        "v1.Problems",
        "swagger_static",
        "favicon",
        "api-docs.openapi_json",
        "api-docs.openapi_swagger_ui",
        "pages.asset",  # the web client's modules and style: a page load asks for some twenty
    }
)

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
    return json_response(problem(code, status, detail, request.path, language=lang, **extra), status, headers, PROBLEM_JSON)


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


def _limited(req: Request) -> bool:
    """Whether the request is charged to the rate limits (not health checks, the docs, CORS preflights)."""
    return req.endpoint not in UNLIMITED and req.method != "OPTIONS"


def _token_key(req: Request) -> str | None:
    """The token's budget: requests that carry one."""
    header = req.headers.get("Authorization")
    if not header or not _limited(req):
        return None
    return hash_token(header.partition(" ")[2].strip())


def _address(req: Request) -> str:
    """The client's address (the nearest trusted proxy's view of it, behind ``trusted_proxy_hops``)."""
    return req.remote_addr or "unknown"


def _address_key(req: Request) -> str | None:
    return _address(req) if _limited(req) else None


def _signup_key(req: Request) -> str | None:
    if req.endpoint != "v1.Players" or req.method != "POST":
        return None
    return _address(req)


def _import_key(req: Request) -> str | None:
    """Replay imports draw on a budget of their own, per token: each keeps its file's facts for a while."""
    if req.endpoint != "v1.Replays" or req.method != "POST":
        return None
    return _token_key(req)


def _challenge_key(req: Request) -> str | None:
    """Challenges made draw on a budget of their own, per address: many accounts from one place flood inboxes."""
    if req.endpoint != "v1.Challenges" or req.method != "POST":
        return None
    return _address(req)


#: The operations that ask for a decision analysis (requestAnalysis, requestImportedAnalysis): a minute of a core each.
ANALYSIS_REQUESTS = frozenset({"v1.Analysis", "v1.ImportedAnalysis"})


def _analysis_key(req: Request) -> str | None:
    """Requests for analyses draw on a budget of their own, per token: each may cost a worker a minute of a core."""
    if req.endpoint not in ANALYSIS_REQUESTS or req.method != "POST":
        return None
    return _token_key(req)


def _check_request() -> None:
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


#: Answers that carry no content (RFC 9110 15.3.5, 15.4.5), so no Content-Type either.
NO_CONTENT = frozenset({204, 304})


def _finish(response: Response) -> Response:
    """``after_request``: what every answer carries, in one hook (as the checks before the route).

    No Content-Type on an answer with no content: werkzeug gives every response one (text/html by default), a 204 or
    304 too, and a client (or a proxy) would be told of an HTML body that is not there.  ``nosniff`` on every answer.
    The language of an answer with text (:func:`languages.mark`).
    """
    headers = response.headers
    if response.status_code in NO_CONTENT:
        headers.pop("Content-Type", None)
    if not headers.getlist("X-Content-Type-Options"):  # not "in", nor setdefault: each raises a KeyError inside
        headers.add("X-Content-Type-Options", "nosniff")
    return languages.mark(response)


class _Flask(Flask):
    """Flask, answering ``OPTIONS`` (which it answers by itself on every route) with 204 and ``Allow``.

    Flask's own answer is a 200 with an empty ``text/html`` body: a client is told of HTML that is not there.
    CORS preflights are ``OPTIONS`` too; flask-cors adds its headers to this same answer.
    """

    def make_default_options_response(self) -> Response:
        response = super().make_default_options_response()
        response.status_code = 204
        return response

    def dispatch_request(self) -> Any:
        """The route, then :func:`auth.settle_write`: a write whose caller's account went while it ran is answered
        ``invalid_token``, whatever the route answered or raised, once what it made is ended."""
        try:
            answer = super().dispatch_request()
        except Exception as failure:
            settle_write(failure)
            raise
        settle_write()
        return answer

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Flask's, with its answer kept per function: Flask asks ``inspect.iscoroutinefunction`` of every hook and
        view on every request (a dozen times a request here, some 5 % of a view's CPU), and a function's answer never
        changes.  Kept for plain functions and methods only (by the function a method binds: a view's method is bound
        anew each request); anything else is asked each time, as Flask does."""
        target = func.__func__ if isinstance(func, MethodType) else func
        if not isinstance(target, FunctionType):
            return super().ensure_sync(func)
        synchronous = _SYNCHRONOUS.get(target)
        if synchronous is None:
            if len(_SYNCHRONOUS) > 10_000:  # functions made per request (after_this_request's): forget, never grow
                _SYNCHRONOUS.clear()
            synchronous = _SYNCHRONOUS[target] = super().ensure_sync(func) is func
        return func if synchronous else super().ensure_sync(func)


#: Functions Flask may call as they are (not coroutine functions), by :meth:`_Flask.ensure_sync`.
_SYNCHRONOUS: dict[FunctionType, bool] = {}


def create_app(runtime: Runtime | None = None) -> Flask:
    """The WSGI app; ``current_app.extensions["red7"]`` is its :class:`~service.runtime.Runtime`."""
    runtime = runtime or build_runtime()
    settings = runtime.settings
    redact_access_logs()  # stream tickets travel in URLs
    app = _Flask("red7", static_folder=None)
    app.config.update(
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        API_TITLE="Red7",
        API_VERSION="1.0",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/v1",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="/v1/docs/static/",
        API_SPEC_OPTIONS={
            "info": {"description": INFO_DESCRIPTION, "license": LICENSE, "x-languages": list(LANGUAGES)},
            "servers": SERVERS,
            "components": {"securitySchemes": security_schemes(bool(settings.api_keys))},
        },
        JSON_SORT_KEYS=False,
    )
    # Each limit is one budget across every route: per route, a client at its limit on one route still had the
    # whole of it on every other.  The token's budget applies to requests that carry a token, the sign-up budget
    # to sign-ups; the address's to every request.
    budgets = [
        Budget.of(name, text, key)
        for name, text, key in (
            ("address", settings.rate_limit_address, _address_key),
            ("token", settings.rate_limit_token, _token_key),
            ("signup", settings.rate_limit_signup, _signup_key),
            ("import", settings.rate_limit_import, _import_key),
            ("challenge", settings.rate_limit_challenge, _challenge_key),
            ("analysis", settings.rate_limit_analysis, _analysis_key),
        )
        if text
    ]
    if budgets:  # with every limit switched off, no request pays for them at all
        rate = RateBudgets(runtime.redis, settings.key_prefix, budgets, _address)
        app.before_request(rate.before_request)
        app.after_request(rate.after_request)

    if settings.trusted_proxy_hops:
        # Behind load balancers, the client's address is the one the nearest trusted proxy saw, taken from
        # X-Forwarded-For; with no proxy trusted (the default) the header is ignored, so a client cannot
        # choose its own address (and its own rate-limit budget) by sending one.
        hops = settings.trusted_proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]
    app.extensions["red7"] = runtime
    app.extensions["red7_waits"] = OpenWaits(settings.max_waits_per_token, settings.max_waits_per_address)
    if settings.cors_origins:
        CORS(
            app,
            origins=list(settings.cors_origins),
            expose_headers=[
                "ETag",
                "Location",
                "Content-Disposition",
                "Retry-After",
                "Idempotent-Replayed",
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset",
            ],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "If-Match",
                "If-None-Match",
                "Idempotency-Key",
                "Last-Event-ID",
                "X-Api-Key",
            ],
            methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
            max_age=600,
        )

    api = Api(app, spec_kwargs={"extra_plugins": [Red7Document(api_keys=bool(settings.api_keys))]})
    for name, header in RESPONSE_HEADERS.items():
        api.spec.components.header(name, header)
    api.register_blueprint(v1)
    api.register_blueprint(health)
    app.register_blueprint(pages)  # on the app, not the Api: the web client is a page, not an operation of the spec

    languages.init_app(app)
    app.after_request(_finish)
    app.before_request(_check_request)

    @app.get("/v1/docs/static/<filename>")
    def swagger_static(filename: str) -> Response:
        if filename not in SWAGGER_FILES:  # the package also ships a demo page that points at petstore.swagger.io
            raise ApiError("not_found", "There is nothing here.")
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename, max_age=3600)

    @app.get("/favicon.ico")
    def favicon() -> Response:
        """The icon a browser asks for on the docs page (swagger-ui's own, a PNG browsers take here), rather than a 404."""
        response = send_from_directory(swagger_ui_bundle.swagger_ui_path, "favicon-32x32.png", max_age=86400)
        response.mimetype = "image/png"
        return response

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
        detail = "The event store cannot be reached; try again shortly."
        return _problem_response("store_unavailable", 503, detail, {"Retry-After": "5"})

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        if isinstance(error, HTTPException):
            return _problem_response_for_http(error)
        log.exception("unexpected error on %s %s", request.method, request.path)
        return _problem_response("internal_error", 500, "Something went wrong on our side; it has been logged.")

    return app
