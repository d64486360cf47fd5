"""Where jobs find the services: the runtime of the job runner that runs them, or the one installed for the process.

A ``red7 worker`` process builds it from the environment on first use; the
embedded server installs its own (the in-memory store it serves from).  A job
runner's thread is bound to its own runtime while it works (:func:`bound`): two
embedded servers in one process (the tests run several) each rebuild their
runners, and install theirs for the whole process, every few idle seconds, so a
job that asked the process which runtime it belongs to could be given the other
server's, and find no such game there.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from service.common.config import Settings
from service.runtime import Runtime, build_runtime

_runtime: Runtime | None = None
_thread = threading.local()  # .runtime: the runtime this thread's jobs find, while it is bound


def install(runtime: Runtime) -> None:
    global _runtime
    _runtime = runtime


@contextmanager
def installed(runtime: Runtime) -> Iterator[None]:
    """``install`` for the block only, then the runtime installed before (or none) again: what a test or a run that
    ends (an embedded server stopped) needs, so no runtime outlives the stores it was built on."""
    global _runtime
    before = _runtime
    _runtime = runtime
    try:
        yield
    finally:
        _runtime = before


@contextmanager
def bound(runtime: Runtime) -> Iterator[None]:
    """Inside, the jobs this thread runs find ``runtime`` whatever is installed for the process (then as before)."""
    before = getattr(_thread, "runtime", None)
    _thread.runtime = runtime
    try:
        yield
    finally:
        _thread.runtime = before


def runtime() -> Runtime:
    mine: Runtime | None = getattr(_thread, "runtime", None)
    if mine is not None:
        return mine
    global _runtime
    if _runtime is None:
        settings = Settings.from_env()
        if settings.embedded:
            raise RuntimeError("a worker process needs REDIS_URL (the embedded store lives inside `red7 serve --embedded`)")
        _runtime = build_runtime(replace(settings, watch_changes=False))  # a worker serves no views (changes.py)
    return _runtime
