"""What an operator reads of and does to the queues (``red7 admin``, issue 41): each queue's health, the failed jobs,
a failed job queued again, a job's state by its id.  RQ's registries, read behind the job queue's door (only this
folder imports RQ)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from service.jobqueue.queues import JobQueue

#: The failed jobs listed at most (the oldest first).
FAILED_SHOWN = 500


def _age(at: datetime | None, now: float) -> float | None:
    if at is None:
        return None
    stamped = at if at.tzinfo else at.replace(tzinfo=UTC)
    return round(max(0.0, now - stamped.timestamp()), 3)


def health(queue: JobQueue, now: float | None = None) -> dict[str, Any]:
    """A queue's depth, its oldest waiting job's age (s, ``None``: none waits) and its registries' counts."""
    now = time.time() if now is None else now
    ids = queue.get_job_ids(0, 1)
    oldest = queue.fetch_job(ids[0]) if ids else None
    return {
        "depth": queue.count,
        "oldest_seconds": _age(oldest.enqueued_at, now) if oldest is not None else None,
        "started": queue.started_job_registry.count,
        "scheduled": queue.scheduled_job_registry.count,
        "failed": queue.failed_job_registry.count,
    }


def job_state(queue: JobQueue, job_id: str) -> dict[str, Any] | None:
    """A job's kind, arguments and status (``None``: no such job on ``queue``)."""
    job = queue.fetch_job(job_id)
    if job is None:
        return None
    return {"id": job.id, "kind": job.func_name, "args": list(job.args), "status": job.get_status(refresh=False).value}


def failed(queue: JobQueue, limit: int = FAILED_SHOWN) -> list[dict[str, Any]]:
    """The jobs that failed for good, oldest first: kind, arguments, when it ended, the request that caused it, and the
    last line of its error."""
    jobs = []
    for job_id in queue.failed_job_registry.get_job_ids(0, limit - 1):
        job = queue.fetch_job(job_id)
        if job is None:
            continue
        result = job.latest_result()
        error = ((result.exc_string if result is not None else None) or "").strip().splitlines()
        jobs.append(
            {
                "id": job.id,
                "kind": job.func_name,
                "args": list(job.args),
                "ended_at": job.ended_at.isoformat() if job.ended_at else None,
                "request_id": job.meta.get("request_id"),
                "error": error[-1] if error else None,
            }
        )
    return jobs


def retry(queue: JobQueue, job_id: str) -> bool:
    """Queue a failed job again (at the back of its queue); ``False``: it is no failed job of ``queue``."""
    if job_id not in queue.failed_job_registry:
        return False
    queue.failed_job_registry.requeue(job_id)
    return True
