"""Where jobs find the services: the runtime installed by the process that runs them.

A ``red7 worker`` process builds it from the environment on first use; the
embedded server installs its own (the in-memory store it serves from).
"""

from __future__ import annotations

from dataclasses import replace

from service.config import Settings
from service.runtime import Runtime, build_runtime

_runtime: Runtime | None = None


def install(runtime: Runtime) -> None:
    global _runtime
    _runtime = runtime


def runtime() -> Runtime:
    global _runtime
    if _runtime is None:
        settings = Settings.from_env()
        if settings.embedded:
            raise RuntimeError("a worker process needs REDIS_URL (the embedded store lives inside `red7 serve --embedded`)")
        _runtime = build_runtime(replace(settings, watch_changes=False))  # a worker serves no views (changes.py)
    return _runtime
