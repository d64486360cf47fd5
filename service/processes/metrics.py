"""Where a process serves its Prometheus metrics: ``/metrics`` (any path, in fact) on ``RED7_METRICS_PORT``, a port of
its own so that the API never answers a scraper and a scraper reaches only what the operator lets it.

Under gunicorn (``PROMETHEUS_MULTIPROC_DIR`` set) each worker process writes its metrics to files in that directory
and the master serves their sum (prometheus-client's multiprocess mode; :mod:`service.processes.gunicorn_config`).
A ``red7 worker`` or ``red7 serve`` serves its own, and the queue shards' depth and oldest job, read at each scrape.
"""

from __future__ import annotations

import os

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector

from service.jobqueue.metrics import BacklogCollector, QueueCollector
from service.runtime import Runtime


def registry_of_processes() -> CollectorRegistry:
    """The registry to serve: the sum of every process's files in multiprocess mode, else this process's own."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    return registry


def queues_of(runtime: Runtime) -> list[tuple[int, str, object]]:
    """Every queue of every shard, with its shard's index and its role."""
    return [
        (shard.index, role, queue)
        for shard in runtime.shards
        for role, queue in (("games", shard.queue), ("webhooks", shard.webhook_queue), ("push", shard.push_queue))
    ]


def serve_metrics(port: int, host: str, runtime: Runtime | None = None) -> CollectorRegistry:
    """Serve the metrics on ``host``:``port`` in a thread; with ``runtime``, its queues too."""
    registry = registry_of_processes()
    if runtime is not None:
        registry.register(QueueCollector(lambda: queues_of(runtime)))  # type: ignore[arg-type, return-value]
        registry.register(BacklogCollector(lambda: [(shard.index, shard.dispatcher) for shard in runtime.shards]))
    start_http_server(port, addr=host, registry=registry)
    return registry
