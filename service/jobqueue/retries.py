"""How a job that fails is retried: transient failures after growing pauses, a permanent one never (it goes to
RQ's failed registry at once, kept a while for whoever looks into it)."""

from __future__ import annotations

from types import TracebackType

from rq.job import Job

#: Transient failures (a Redis hiccup, a timeout) are retried with these pauses (seconds).
RETRY_PAUSES = (1, 3, 10, 30)

#: How long a job that failed for good is kept in RQ's failed registry (seconds), for whoever looks into it.
FAILURE_TTL = 7 * 24 * 3600


class PermanentJobError(Exception):
    """A job that cannot succeed by being retried: it goes to the failed registry at once."""


def fail_fast_on_permanent_errors(job: Job, exc_type: type[BaseException], exc: BaseException, tb: TracebackType) -> bool:
    """RQ exception handler: a :class:`PermanentJobError` (or a subclass) is not retried; it goes to the failed
    registry at once."""
    if issubclass(exc_type, PermanentJobError):
        job.retries_left = 0
    return True  # let RQ's default handling (retry or failed registry) go on
