"""Which jobs are running: each worker says every second, on a key that lives a few seconds, which job it runs.

RQ marks a job "started" with the name of the worker that runs it, and
notices that worker's death only when its heartbeat expires — a minute and
more, or its next maintenance pass ten minutes on.  A game must not wait
that long: a started job that no live worker says it runs is taken over by
the next read or sweep of its game (see :mod:`service.jobqueue.dispatch`).  The pulse
names the job, not only the worker, because a worker that lived through a
Redis that lost its last writes may be idle while Redis says it still runs
a job.  The pulse is a thread of the worker process, so it stops with the
process however it dies.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Protocol

import redis

log = logging.getLogger("red7.worker")


class Pulsing(Protocol):
    """A job runner the pulse speaks for: its name, and the job it runs now (``None``: idle)."""

    name: str
    running_job_id: str | None


#: How often a worker pulses, and how long one pulse lasts (seconds): a worker is
#: counted dead at most ``PULSE_TTL`` after its last pulse.
PULSE_EVERY = 1.0
PULSE_TTL = 4.0


def pulse_key(prefix: str, worker_name: str) -> str:
    return f"{prefix}alive:{worker_name}"


#: What an idle worker's pulse says.
IDLE = "-"


def runs(connection: redis.Redis, prefix: str, worker_name: str | None, job_id: str) -> bool:
    """Whether the worker is alive and says it runs this job."""
    if not worker_name:
        return False
    said = connection.get(pulse_key(prefix, worker_name))
    return said is not None and (said.decode() if isinstance(said, bytes) else str(said)) == job_id


def start_pulse(
    connection: redis.Redis,
    prefix: str,
    workers_now: Callable[[], Iterable[Pulsing | None]],
    stop: threading.Event,
    every: float = PULSE_EVERY,
) -> threading.Thread:
    """Pulse for the workers ``workers_now()`` gives (a process replaces a worker after Redis comes back) until
    ``stop``: all of a process's job runners in one round trip a beat."""

    def beat() -> None:
        unreachable = False
        while not stop.is_set():
            workers = [worker for worker in workers_now() if worker is not None]
            try:
                if workers:
                    with connection.pipeline(transaction=False) as pipe:
                        for worker in workers:
                            said = worker.running_job_id or IDLE
                            pipe.set(pulse_key(prefix, worker.name), said.encode(), px=int(PULSE_TTL * 1000))
                        pipe.execute()
                if unreachable:
                    log.info("worker pulse: Redis is reachable again")
                unreachable = False
            except redis.RedisError as error:
                if not unreachable:
                    log.warning("worker pulse: Redis is unreachable (%s); pulsing again when it is back", error)
                unreachable = True
            stop.wait(every)

    thread = threading.Thread(target=beat, name="red7-pulse", daemon=True)
    thread.start()
    return thread
