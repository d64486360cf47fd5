"""The app factory: settings → connections → stores → application → HTTP.

``create_app()`` with no arguments serves the embedded in-memory store
(fakeredis); with ``REDIS_URL`` it uses that Redis.  Tests pass their own
clients.  Whatever the setting, every error leaves as problem+json.

This module only composes: what wraps every request is each in a module of its own, registered here in the order
it runs (:mod:`.limits` the rate budgets, :mod:`.checks` the checks before a route, :mod:`.scoping` the token's scope,
:mod:`.headers` what every
answer carries and CORS, :mod:`.failures` every failure as problem+json, :mod:`.flask_app` our departures from
Flask's defaults).
"""

from __future__ import annotations

import swagger_ui_bundle
from flask import Flask, Response, send_from_directory
from werkzeug.middleware.proxy_fix import ProxyFix

from service.common import logformat, tracing
from service.common.texts import LANGUAGES
from service.http import languages, oauth
from service.http.api import RESPONSE_HEADERS, health, pages, v1
from service.http.checks import check_request
from service.http.failures import Api, answer_failures
from service.http.flask_app import Red7Flask
from service.http.headers import allow_origins, finish, log_context
from service.http.limits import limit_rates
from service.http.logs import redact_access_logs
from service.http.metrics import measure_requests
from service.http.openapi import INFO_DESCRIPTION, LICENSE, SERVERS, Red7Document, security_schemes
from service.http.problems import ApiError
from service.http.scoping import check_scope, mark_scopes
from service.http.tracing import trace_requests
from service.http.waits import OpenWaits
from service.runtime import Runtime, build_runtime

#: The files of swagger-ui-bundle that the docs page loads; nothing else of that package is served.
SWAGGER_FILES = frozenset({"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"})


def create_app(runtime: Runtime | None = None) -> Flask:
    """The WSGI app; ``current_app.extensions["red7"]`` is its :class:`~service.runtime.Runtime`."""
    runtime = runtime or build_runtime()
    settings = runtime.settings
    redact_access_logs()  # stream tickets travel in URLs
    logformat.add_context(log_context)  # each log line of a request stamped with its id, route and player
    app = Red7Flask("red7", static_folder=None)
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
    if tracing.enabled():  # (RED7_OTLP_ENDPOINT: service/processes/tracing.py)
        trace_requests(app)
    if settings.metrics_port:
        measure_requests(app)  # first: its clock starts before the rate budgets, its count sees the final status
    limit_rates(app, runtime.redis, settings)

    if settings.trusted_proxy_hops:
        # Behind load balancers, the client's address is the one the nearest trusted proxy saw, taken from
        # X-Forwarded-For; with no proxy trusted (the default) the header is ignored, so a client cannot
        # choose its own address (and its own rate-limit budget) by sending one.
        hops = settings.trusted_proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]
    app.extensions["red7"] = runtime
    app.extensions["red7_waits"] = OpenWaits(settings.max_waits_per_token, settings.max_waits_per_address)
    if settings.cors_origins:
        allow_origins(app, settings.cors_origins)

    api = Api(app, spec_kwargs={"extra_plugins": [Red7Document(api_keys=bool(settings.api_keys))]})
    for name, header in RESPONSE_HEADERS.items():
        api.spec.components.header(name, header)
    api.register_blueprint(v1)
    api.register_blueprint(health)
    app.register_blueprint(pages)  # on the app, not the Api: the web client is a page, not an operation of the spec
    oauth.init_app(app)  # /oauth/*: OAuth's own protocol (form-encoded, RFC 6749 errors), beside the API

    languages.init_app(app)
    app.after_request(finish)
    app.after_request(mark_scopes)
    app.before_request(check_request)
    app.before_request(check_scope)  # after the request's checks, before the route: the token's scope (issue 37)

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

    answer_failures(app)
    return app
