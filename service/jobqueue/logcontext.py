"""What a job's log lines are stamped with (:mod:`service.common.logformat`): the job's kind and the request that
caused it (its ``X-Request-Id``, carried as plain data in RQ's job meta by :meth:`Dispatcher.enqueue`).

The job is RQ's current one, which RQ keeps for the thread that runs it: no context variable of ours carries it.
"""

from __future__ import annotations

from typing import Any

from rq import get_current_job
from rq.job import Job


def job_fields(job: Job) -> dict[str, Any]:
    """A job's kind and the request that caused it (``None``: a job no request caused: a tick's, a job's)."""
    return {"job": job.func_name, "request_id": job.meta.get("request_id")}


def caused_by() -> str | None:
    """The request that caused the running job (``None``: none did, or no job runs): a job that queues others hands
    it on as an argument, so that their log lines name the request too."""
    job = get_current_job()
    return None if job is None else job.meta.get("request_id")


def job_context() -> dict[str, Any] | None:
    """The running job's :func:`job_fields`, or ``None`` outside a job."""
    job = get_current_job()
    return None if job is None else job_fields(job)
