"""Where a process's spans go (issue 41, item 3): OTLP over HTTP to ``RED7_OTLP_ENDPOINT`` (an OpenTelemetry
collector's, e.g. ``http://otel-collector:4318``; empty, the default: no tracing, nothing imported).

Read from the environment where the log format is (``wsgi.py``, ``red7``'s commands), before the app and the workers
are made, so that they find tracing on (:mod:`service.common.tracing`).  The OpenTelemetry SDK and its OTLP exporter
are the optional extra ``tracing``; a process told to trace without them stops at its start, saying so.
"""

from __future__ import annotations

from service.common import tracing

#: The OTLP/HTTP path of traces, added to an endpoint given without it.
TRACES_PATH = "/v1/traces"


class TracingUnavailable(RuntimeError):
    """``RED7_OTLP_ENDPOINT`` is set and the ``tracing`` extra is not installed."""


def configure(endpoint: str, service: str) -> bool:
    """Trace this process (``service``: its name in the traces, ``red7-api``, ``red7-worker``) to ``endpoint``; whether
    tracing is on."""
    if not endpoint:
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as missing:
        raise TracingUnavailable(
            f"RED7_OTLP_ENDPOINT is set but OpenTelemetry is not installed ({missing.name}): pip install 'red7[tracing]'"
        ) from None
    url = endpoint.rstrip("/")
    if not url.endswith(TRACES_PATH):
        url += TRACES_PATH
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))  # sent in the background
    tracing.enable(provider)
    return True
