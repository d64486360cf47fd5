"""Tracing (issue 41, item 3; service/common/tracing.py): one POST that makes an AI move gives a request span and the
span of the AI job it caused, in one trace, the job's under the request's; an incoming ``traceparent`` is honoured; off
(the default), no span and no trace context in a job."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from service.common import tracing
from service.http.app import create_app
from service.processes.tracing import configure
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    yield exporter
    tracing.disable()


@pytest.fixture
def traced(spans, redis_pair, key_prefix) -> Api:
    runtime = build_runtime(settings_for(key_prefix), clients=redis_pair)
    return Api(create_app(runtime), runtime)  # made with tracing on: its requests are traced


def a_turn_until_the_ai(api: Api, token: str, game_id: str, **headers: str) -> list[str]:
    """The player's steps until the AI is to play (each a POST); the request ids of those POSTs."""
    view, ids = api.view(game_id, token), []
    while view["legal_steps"]:
        steps = [s for s in view["legal_steps"] if s["type"] != "fold"] or view["legal_steps"]
        step = {k: steps[0][k] for k in ("type", "card", "seat", "to") if k in steps[0]}
        moved = api.act(game_id, token, [step], headers={"If-Match": f'"{view["version"]}"', **headers})
        assert moved.status_code == 200, moved.get_json()
        ids.append(moved.headers["X-Request-Id"])
        view = moved.get_json()
    return ids


def test_a_post_that_makes_an_ai_move_gives_a_request_span_and_a_job_span_in_one_trace(traced, spans):
    api = traced
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    api.run_jobs()  # the AI may lead
    a_turn_until_the_ai(api, token, game["id"])
    api.run_jobs()  # the AI's turn: the player's comes next
    spans.clear()
    moved = a_turn_until_the_ai(api, token, game["id"])
    assert moved, "the player's turn came"
    posts = [s for s in spans.get_finished_spans() if s.name == "POST /v1/games/<game_id>/actions"]
    assert posts, [s.name for s in spans.get_finished_spans()]
    request = posts[-1]  # the POST that handed the turn to the AI
    assert request.kind == SpanKind.SERVER and request.parent is None
    assert request.attributes["http.response.status_code"] == 200 and request.attributes["red7.request_id"] == moved[-1]
    api.run_jobs()
    # The job the POST caused: the AI's turn, or the round's scoring when the player's step ended the round.
    jobs = [s for s in spans.get_finished_spans() if s.name in ("job ai_turn", "job score_round")]
    assert jobs, [s.name for s in spans.get_finished_spans()]
    # That job runs under the POST's span (a job an earlier step queued, a recheck say, may have run in the same
    # drain: it is under its own request's, or job's, span).
    under = [j for j in jobs if j.parent is not None and j.parent.span_id == request.context.span_id]
    assert under, [(j.name, j.parent) for j in jobs]
    job = under[0]
    assert job.kind == SpanKind.CONSUMER
    assert job.context.trace_id == request.context.trace_id, "the job's span is in the request's trace"


def test_an_incoming_traceparent_is_the_requests_parent(traced, spans):
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    traced.call("GET", "/healthz", headers={"traceparent": f"00-{trace_id}-{parent_id}-01"})
    (span,) = [s for s in spans.get_finished_spans() if s.name == "GET /healthz"]
    assert f"{span.context.trace_id:032x}" == trace_id and f"{span.parent.span_id:016x}" == parent_id


def test_off_by_default_no_span_is_made_and_no_job_carries_a_trace(api):
    assert not tracing.enabled() and tracing.carrier() is None
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    queued = [job for shard in api.runtime.shards for job in shard.queue.jobs]
    assert queued == [] or all("trace" not in job.meta for job in queued)
    api.run_jobs()
    a_turn_until_the_ai(api, token, game["id"])
    queued = [job for shard in api.runtime.shards for job in shard.queue.jobs]
    assert queued and all("trace" not in job.meta for job in queued)
    assert configure("", "red7-api") is False and not tracing.enabled()
