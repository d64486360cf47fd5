"""The API's Prometheus metrics (issue 41, item 1): requests by route template, method and status, and how long each
took; the waits (long-polls) and streams open now.

Labels are bounded: a route is its URL rule's template (``/v1/games/<game_id>``), never the path, which holds game
ids and stream tickets; a request no rule matched is ``unmatched``.  The metrics live in prometheus-client's registry
of the process (in gunicorn's multiprocess mode, in files under ``PROMETHEUS_MULTIPROC_DIR``: see
:mod:`service.processes.metrics`); they are served apart from the API, on ``RED7_METRICS_PORT``.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import Counter, Gauge, Histogram

from service.common import roundtrips

REQUESTS = Counter("red7_http_requests", "HTTP requests answered", ["route", "method", "status"])
LATENCY = Histogram(
    "red7_http_request_seconds",
    "How long an HTTP request took to answer (a long-poll's wait included)",
    ["route", "method"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
ROUND_TRIPS = Histogram(
    "red7_redis_round_trips",
    "Redis round trips (a command or a pipeline, to the stores or the queue) one request made",
    ["route"],
    buckets=(0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64),
)
OPEN = Gauge("red7_http_open_waits", "Long-polls and streams open now", ["kind"], multiprocess_mode="livesum")

#: The routes whose requests wait: a long-poll of a game's events, a view that waits for the next version (both with
#: ``?wait=``), a stream.
WAITING_ROUTES = {
    "/v1/games/<game_id>/events": "long_poll",
    "/v1/games/<game_id>": "view",
    "/v1/games/<game_id>/stream": "stream",
}


def _started() -> None:
    g.metrics_started = time.perf_counter()
    roundtrips.begin()
    rule = request.url_rule
    kind = WAITING_ROUTES.get(rule.rule) if rule is not None else None
    # (the query string looked at before it is parsed: most views do not wait, and every request passes here)
    if kind in ("long_poll", "view") and "wait=" in request.environ.get("QUERY_STRING", "") and request.args.get("wait"):
        OPEN.labels(kind).inc()
        g.metrics_waiting = kind


def _ended(error: BaseException | None) -> None:
    roundtrips.end()  # a request that failed before its answer: its count closed all the same
    if kind := g.pop("metrics_waiting", None):
        OPEN.labels(kind).dec()


#: Each (route, method, status)'s counter and latency series, found once: prometheus-client's ``labels()`` checks and
#: converts its labels under a lock on every call (several µs a request, bench/metrics_bench.py); as bounded as they.
_SERIES: dict[tuple[str, str, int], tuple[Any, Any, Any]] = {}


def _series(route: str, method: str, status: int) -> tuple[Any, Any, Any]:
    key = (route, method, status)
    found = _SERIES.get(key)
    if found is None:
        found = _SERIES[key] = (
            REQUESTS.labels(route, method, str(status)),
            LATENCY.labels(route, method),
            ROUND_TRIPS.labels(route),
        )
    return found


def _answered(response: Response) -> Response:
    started = g.get("metrics_started")
    rule = request.url_rule
    route = rule.rule if rule is not None else "unmatched"
    method = request.method
    count, latency, trips = _series(route, method, response.status_code)
    count.inc()
    if started is not None:
        latency.observe(time.perf_counter() - started)
    sent = roundtrips.end()  # (a stream's later reads, after its answer starts, are not the request's)
    if sent is not None:
        trips.observe(sent)
    if WAITING_ROUTES.get(route) == "stream" and response.is_streamed:  # open until the server closes it
        OPEN.labels("stream").inc()
        response.call_on_close(OPEN.labels("stream").dec)
    return response


def measure_requests(app: Flask) -> None:
    """Count and time every request of ``app`` (the first ``before_request``, the last ``after_request``)."""
    app.before_request_funcs.setdefault(None, []).insert(0, _started)
    app.after_request(_answered)
    app.teardown_request(_ended)
