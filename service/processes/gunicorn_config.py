"""How gunicorn serves the API in production: ``gunicorn -c python:service.processes.gunicorn_config service.processes.wsgi:app``.

gevent workers, so that a waiting client (a long-poll of up to 60 s, a
stream open for minutes) holds a greenlet, not one of a handful of threads:
thousands can wait while every other request is served at once.  (With
gthread's 8 threads, 16 idle long-polls took every thread and another
player's view waited seconds.)  redis-py and Flask run unchanged on gevent's
patched sockets.  Settings from the environment: ``RED7_BIND``,
``WEB_CONCURRENCY`` (worker processes), ``RED7_WORKER_CONNECTIONS``.

The worker class is gunicorn's gevent worker with one change: what gunicorn
refuses before the app (a header field over ``limit_request_field_size``, 8190
bytes) is answered as problem+json, like every other error
(:mod:`service.processes.gunicorn_worker`).
"""

import os

from service.common.heap import settle_heap

#: Prometheus metrics (``RED7_METRICS_PORT``, 0: none): each worker process writes its own to files in
#: ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode; made and emptied as gunicorn starts, a fresh
#: temporary one if unset), and the master serves their sum on that port (:mod:`service.processes.metrics`).
METRICS_PORT = int(os.environ.get("RED7_METRICS_PORT", "0") or 0)
#: The directory this run made for itself (none when the operator named one): removed as the master exits.
MADE_DIRECTORY: str | None = None
if METRICS_PORT and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # Without the directory the master would serve none of its workers' metrics: a fresh one of this run's own (set
    # before prometheus-client is imported, which reads it then; the workers inherit it).
    import tempfile

    MADE_DIRECTORY = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="red7-metrics-")

bind = os.environ.get("RED7_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "service.processes.gunicorn_worker.ProblemGeventWorker"
worker_connections = int(os.environ.get("RED7_WORKER_CONNECTIONS", "2000"))
#: A worker is restarted only if it stops answering gunicorn's heartbeat (gevent keeps it answering while
#: requests wait), not when a request is long.
timeout = 30
graceful_timeout = 20
keepalive = 5


def post_worker_init(worker: object) -> None:
    """Each worker, once it has loaded the app: what it holds from start frozen out of the collector's sight, the
    young generation collected less often (:mod:`service.common.heap`; gunicorn's own objects are frozen with it)."""
    settle_heap()


def on_starting(server: object) -> None:
    """Before any worker: ``PROMETHEUS_MULTIPROC_DIR`` made and emptied, as multiprocess mode asks (the files of a
    run before would be summed with this one's)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if METRICS_PORT and directory:
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):
            if name.endswith(".db"):
                os.remove(os.path.join(directory, name))


def when_ready(server: object) -> None:
    """The master, listening: it serves the sum of its workers' metrics (it runs no request itself)."""
    if METRICS_PORT and os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from service.processes.metrics import serve_metrics

        serve_metrics(METRICS_PORT, os.environ.get("RED7_METRICS_HOST", "0.0.0.0"))


def child_exit(server: object, worker: object) -> None:
    """A worker gone: its live gauges (open waits) leave the sum; its counters stay counted."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined, no-untyped-call]


def on_exit(server: object) -> None:
    """The master, stopping: the metrics directory it made for itself goes with it (one the operator named stays)."""
    if MADE_DIRECTORY is not None:
        import shutil

        shutil.rmtree(MADE_DIRECTORY, ignore_errors=True)
