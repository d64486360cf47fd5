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
