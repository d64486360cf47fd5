"""Which workers are alive: each worker says so every second on a key that lives a few seconds.

RQ marks a job "started" with the name of the worker that runs it, and
notices that worker's death only when its heartbeat expires — a minute and
more, or its next maintenance pass ten minutes on.  A game must not wait
that long: a job whose worker stopped pulsing is taken over by the next read
or sweep of its game (see :mod:`workers.dispatch`).  The pulse is a thread
of the worker process, so it stops with the process however it dies.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import redis

log = logging.getLogger("red7.worker")

#: How often a worker pulses, and how long one pulse lasts (seconds): a worker is
#: counted dead at most ``PULSE_TTL`` after its last pulse.
PULSE_EVERY = 1.0
PULSE_TTL = 4.0


def pulse_key(prefix: str, worker_name: str) -> str:
    return f"{prefix}alive:{worker_name}"


def is_alive(connection: redis.Redis, prefix: str, worker_name: str | None) -> bool:
    return bool(worker_name) and bool(connection.exists(pulse_key(prefix, worker_name or "")))


def start_pulse(
    connection: redis.Redis, prefix: str, name_now: Callable[[], str | None], stop: threading.Event, every: float = PULSE_EVERY
) -> threading.Thread:
    """Pulse for the worker ``name_now()`` names (a process replaces its worker after Redis comes back) until ``stop``."""

    def beat() -> None:
        unreachable = False
        while not stop.is_set():
            name = name_now()
            try:
                if name:
                    connection.set(pulse_key(prefix, name), b"1", px=int(PULSE_TTL * 1000))
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
