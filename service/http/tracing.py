"""A span for each request (issue 41, item 3; with tracing on: :mod:`service.common.tracing`): named by its method and
route template, under an incoming W3C ``traceparent`` if the caller sent one, with its request id, route and status;
open while the route runs, so that the jobs it queues carry its context.  Off, nothing is registered."""

from __future__ import annotations

from flask import Flask, Response, g, request

from service.common import tracing
from service.http.headers import request_id


def _opened() -> None:
    rule = request.url_rule
    route = rule.rule if rule is not None else "unmatched"
    incoming = {"traceparent": request.headers["traceparent"]} if "traceparent" in request.headers else None
    if incoming and "tracestate" in request.headers:
        incoming["tracestate"] = request.headers["tracestate"]
    attributes = {"http.request.method": request.method, "http.route": route, "red7.request_id": request_id()}
    g.trace_span = tracing.start(f"{request.method} {route}", kind="server", headers=incoming, attributes=attributes)


def _answered(response: Response) -> Response:
    g.trace_status = response.status_code
    return response


def _closed(error: BaseException | None) -> None:
    opened = g.pop("trace_span", None)
    status = g.pop("trace_status", 500 if error is not None else None)
    tracing.finish(opened, {"http.response.status_code": status} if status else None, error)


def trace_requests(app: Flask) -> None:
    """Open a span for every request of ``app`` (after the request's id is chosen), closed at its teardown."""
    app.before_request_funcs.setdefault(None, []).insert(0, _opened)
    app.after_request(_answered)
    app.teardown_request(_closed)
