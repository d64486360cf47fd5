"""Tracing (issue 41, item 3; optional, off by default): an OpenTelemetry span for each request and for each job it
causes, in one trace.

The request's span is opened by the HTTP layer (:mod:`service.http.tracing`), which honours an incoming W3C
``traceparent``; a job queued while it is open carries its context in the job's meta, as it carries the request's id
(:meth:`service.jobqueue.dispatch.Dispatcher.enqueue`: :func:`carrier`); the worker opens the job's span under it
(:mod:`service.jobqueue.worker`: :func:`job_span`), and a job queued by that job carries the job's.  Spans go where
the process's provider sends them: OTLP over HTTP when ``RED7_OTLP_ENDPOINT`` is set
(:mod:`service.processes.tracing`), a test's in-memory exporter in the tests.

The OpenTelemetry packages are an optional extra (``pip install red7[tracing]``): until :func:`enable` is called
nothing here imports them, and every call returns at its first line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

#: The tracer (``None``: tracing is off), and the W3C trace-context propagator.
_tracer: Any = None
_propagator: Any = None


def enable(provider: Any) -> None:
    """Trace from now on with ``provider`` (an OpenTelemetry SDK ``TracerProvider``), kept here rather than made the
    global one: a process (or a test) may enable it again with another."""
    global _tracer, _propagator
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    _tracer = provider.get_tracer("red7")
    _propagator = TraceContextTextMapPropagator()


def disable() -> None:
    global _tracer
    _tracer = None


def enabled() -> bool:
    return _tracer is not None


def carrier() -> dict[str, str] | None:
    """The open span's context as W3C headers (``traceparent``), for a job to carry; ``None`` with tracing off or no span
    open."""
    if _tracer is None:
        return None
    headers: dict[str, str] = {}
    _propagator.inject(headers)
    return headers or None


def start(name: str, *, kind: str, headers: Mapping[str, str] | None = None, attributes: Mapping[str, Any] | None = None) -> Any:
    """Open a span ``name`` of ``kind`` (``server``, ``consumer``) made current, under the context ``headers`` carry (a
    request's ``traceparent``, a job's meta); what :func:`finish` takes, ``None`` with tracing off."""
    if _tracer is None:
        return None
    from opentelemetry import context, trace

    parent = _propagator.extract(dict(headers)) if headers else None
    span = _tracer.start_span(name, context=parent, kind=getattr(trace.SpanKind, kind.upper()), attributes=attributes)
    return span, context.attach(trace.set_span_in_context(span))


def finish(opened: Any, attributes: Mapping[str, Any] | None = None, error: BaseException | None = None) -> None:
    """Close what :func:`start` opened (with ``attributes``, and ``error`` recorded if it failed)."""
    if opened is None:
        return
    from opentelemetry import context, trace

    span, token = opened
    if attributes:
        span.set_attributes(dict(attributes))
    if error is not None:
        span.record_exception(error)
        span.set_status(trace.Status(trace.StatusCode.ERROR, type(error).__name__))
    context.detach(token)
    span.end()


@contextmanager
def job_span(name: str, headers: Mapping[str, str] | None, attributes: Mapping[str, Any] | None = None) -> Iterator[None]:
    """A job's span, under the context it carries (``headers``: its meta's ``trace``), around its run."""
    opened = start(f"job {name}", kind="consumer", headers=headers, attributes=attributes)
    try:
        yield
    except BaseException as error:
        finish(opened, error=error)
        raise
    finish(opened)
