"""Where jobs find the services: the runtime installed by the process (or thread) that runs them.

A ``red7 worker`` process builds it from the environment on first use; the
embedded server installs its own (the in-memory store it serves from).  A
thread that runs jobs beside the games' worker (the webhook deliveries)
installs a runtime of its own for itself only, so that the two share no
client or lock.
"""

from __future__ import annotations

import threading

from service.config import Settings
from service.runtime import Runtime, build_runtime

_runtime: Runtime | None = None
_thread = threading.local()


def install(runtime: Runtime, *, this_thread_only: bool = False) -> None:
    global _runtime
    if this_thread_only:
        _thread.runtime = runtime
    else:
        _runtime = runtime


def runtime() -> Runtime:
    global _runtime
    mine: Runtime | None = getattr(_thread, "runtime", None)
    if mine is not None:
        return mine
    if _runtime is None:
        settings = Settings.from_env()
        if settings.embedded:
            raise RuntimeError("a worker process needs REDIS_URL (the embedded store lives inside `red7 serve --embedded`)")
        _runtime = build_runtime(settings)
    return _runtime
