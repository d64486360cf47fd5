"""Redis round trips counted per request (issue 41, item 1: ``red7_redis_round_trips``).

The stores' and the queue's clients count each command or pipeline they send (:func:`service.storage.connections.
counted`: a connection class whose ``send_packed_command`` adds one here); the HTTP layer opens a count when a request
starts and reads it when it is answered (:mod:`service.http.metrics`).  A count is the thread's own, and under
gunicorn's gevent workers the greenlet's: each request counts its own.  Nobody reads it to decide anything: it is a
measurement, not state passed to the application.  With no count open a send costs an attribute read more.
"""

from __future__ import annotations

import threading
from typing import Any

#: The counts, made at the first request: ``threading.local`` then is gevent's greenlet-local class where gevent
#: patched it (after this module may have been imported: gunicorn's config imports the service before its worker
#: patches), so two requests on two greenlets of one thread never share a count.
_counts: Any = None


def _local() -> Any:
    global _counts
    if _counts is None:
        _counts = threading.local()
    return _counts


def begin() -> None:
    """Start counting this thread's (greenlet's) round trips from zero."""
    _local().sent = 0


def sent() -> None:
    """One command or pipeline sent (called by the counting connections)."""
    counts = _counts
    if counts is not None and (count := getattr(counts, "sent", None)) is not None:
        counts.sent = count + 1


def end() -> int | None:
    """Stop counting: how many round trips since :func:`begin` (``None``: none was begun here)."""
    counts = _local()
    count = getattr(counts, "sent", None)
    counts.sent = None
    return count
