"""The job queue's Prometheus metrics (issue 41, item 1): jobs by kind and outcome and how long each ran, how long an
AI turn waited in its queue, and, read from RQ when scraped, each queue shard's depth and its oldest job's age; read
from the queue's Redis when scraped too, what the projections of finished games owe (the ratings' lag, the compaction's
backlog: :mod:`service.jobqueue.backlog`).

Labels are bounded: a job's kind (``ai_turn``, ``notices`` ...: the jobs registered), its outcome (``finished``,
``failed``, ``retried``), a shard's index and a queue's role (``games``, ``webhooks``, ``push``); never a game's id.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Literal

from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from rq.job import Job, JobStatus

from service.jobqueue.backlog import Backlog
from service.jobqueue.dispatch import Dispatcher
from service.jobqueue.queues import JobQueue
from service.outbound.metrics import delivery

#: The retry jobs of one delivery each (``workers/notices.py``), by their channel: one that fails for good gave it up.
DELIVERY_JOBS: dict[str, Literal["webhook", "push"]] = {"notify": "webhook", "push": "push"}

JOBS = Counter("red7_jobs", "Jobs run, by kind and outcome", ["kind", "outcome"])
JOB_SECONDS = Histogram(
    "red7_job_seconds",
    "How long a job ran",
    ["kind"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
AI_TURN_DELAY = Histogram(
    "red7_ai_turn_delay_seconds",
    "How long an AI turn waited between being queued (when it fell due) and a worker starting it",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0),
)


def _outcome(job: Job) -> str:
    status = job.get_status(refresh=False)
    if status == JobStatus.FINISHED:
        return "finished"
    if status in (JobStatus.SCHEDULED, JobStatus.QUEUED):
        return "retried"  # failed this time, its retry waiting out its pause
    return "failed"


def job_ran(job: Job, seconds: float, started_at: datetime) -> None:
    """Count a job that ran for ``seconds`` (from ``started_at``), and, for an AI turn, how long it waited."""
    kind = job.func_name
    outcome = _outcome(job)
    JOBS.labels(kind, outcome).inc()
    if outcome == "failed" and kind in DELIVERY_JOBS:
        delivery(DELIVERY_JOBS[kind], "gave_up")
    JOB_SECONDS.labels(kind).observe(seconds)
    if kind == "ai_turn" and job.enqueued_at is not None:
        queued = job.enqueued_at if job.enqueued_at.tzinfo else job.enqueued_at.replace(tzinfo=UTC)
        AI_TURN_DELAY.observe(max(0.0, (started_at - queued).total_seconds()))


class QueueCollector(Collector):
    """Each queue's depth and its oldest waiting job's age, read from RQ when scraped (two round trips a queue).

    ``queues``: called at each scrape, ``(shard index, role, queue)`` for every queue of every shard.
    """

    def __init__(self, queues: Callable[[], Sequence[tuple[int, str, JobQueue]]], clock: Callable[[], float] = time.time):
        self.queues = queues
        self.clock = clock

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily("red7_queue_depth", "Jobs waiting in a queue", labels=["shard", "queue"])
        age = GaugeMetricFamily(
            "red7_queue_oldest_seconds", "Age of a queue's oldest waiting job (0: none)", labels=["shard", "queue"]
        )
        for index, role, queue in self.queues():
            labels = [str(index), role]
            depth.add_metric(labels, queue.count)
            age.add_metric(labels, self._oldest(queue))
        yield depth
        yield age

    def _oldest(self, queue: JobQueue) -> float:
        ids = queue.get_job_ids(0, 1)  # offset, length: the head of the list
        job = queue.fetch_job(ids[0]) if ids else None
        if job is None or job.enqueued_at is None:
            return 0.0
        queued = job.enqueued_at if job.enqueued_at.tzinfo else job.enqueued_at.replace(tzinfo=UTC)
        return max(0.0, self.clock() - queued.timestamp())


class BacklogCollector(Collector):
    """What the projections of finished games owe, per queue shard, read when scraped (one round trip a shard): the
    ratings projection's lag (rated games not yet on their ladder, and how long the oldest has waited since it
    finished) and the compaction's backlog (over games past their grace not yet compacted, and those in it).

    ``dispatchers``: called at each scrape, ``(shard index, its dispatcher)`` for every shard.
    """

    def __init__(self, dispatchers: Callable[[], Sequence[tuple[int, Dispatcher]]], clock: Callable[[], float] = time.time):
        self.dispatchers = dispatchers
        self.clock = clock

    def collect(self) -> Iterator[GaugeMetricFamily]:
        behind = GaugeMetricFamily(
            "red7_ratings_behind_games", "Finished rated games not yet applied to their ladder", labels=["shard"]
        )
        lag = GaugeMetricFamily(
            "red7_ratings_behind_seconds",
            "How long the finished rated game longest waiting for its ladder has waited (0: none)",
            labels=["shard"],
        )
        backlog = GaugeMetricFamily(
            "red7_compaction_backlog_games", "Over games past their grace, not yet compacted", labels=["shard"]
        )
        pending = GaugeMetricFamily(
            "red7_compaction_pending_games", "Over games not yet compacted, those within their grace included", labels=["shard"]
        )
        now_ms = int(self.clock() * 1000)
        for index, dispatcher in self.dispatchers():
            with dispatcher.queue.connection.pipeline(transaction=False) as pipe:
                dispatcher.unrated.ask(pipe, now_ms)
                dispatcher.uncompacted.ask(pipe, now_ms)
                replies = pipe.execute()
            unrated, _, waited = Backlog.read(replies[:3], now_ms)
            uncompacted, due, _ = Backlog.read(replies[3:], now_ms)
            labels = [str(index)]
            behind.add_metric(labels, unrated)
            lag.add_metric(labels, waited)
            backlog.add_metric(labels, due)
            pending.add_metric(labels, uncompacted)
        yield from (behind, lag, backlog, pending)
