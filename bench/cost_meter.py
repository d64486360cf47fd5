"""What a stretch of work cost: Redis commands and CPU (from ``INFO``) and the app's CPU (from /proc).

The Redis server is the bench's own, so ``INFO commandstats`` deltas are the
service's commands plus the bench's own probes; the probes (the ``INFO`` of
each snapshot, the queue lengths read while waiting for quiet) are counted
here as they are sent and taken off, calls and their share of command time.
Redis CPU is ``used_cpu_sys + used_cpu_user`` of redis-server (µs): it also
holds the event loop, the network and the AOF fsyncs, which is what a command
really costs the server; the probes' part of it cannot be taken off, and is
small (one ``INFO`` per snapshot, a few cheap reads per 50 ms of waiting).

Round trips are the server's ``total_reads_processed`` (one per batch a client
sends: a command alone, or a whole pipeline), less the probes'.  AOF flushes
(with ``appendfsync always``, each is an fsync) are the server's ``write``
calls (``syscw`` of ``/proc/<pid>/io``) less the replies it wrote
(``total_writes_processed``): what is left is its AOF writes, one per event
loop that had writes to log.  Both need the server's pid (a server of the
bench's own).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_ms(pids: list[int], descendants: Callable[[int], list[int]]) -> float:
    """User + system CPU of processes and everything below them, in ms (a gone process counts 0)."""
    total = 0
    for pid in pids:
        for each in (pid, *descendants(pid)):
            try:
                fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
    return total * 1000 / TICKS


@dataclass
class Cost:
    """A delta: commands by name (calls and µs inside them), Redis CPU, each app process kind's CPU, seconds."""

    calls: Counter[str] = field(default_factory=Counter)
    usec: Counter[str] = field(default_factory=Counter)
    redis_cpu_us: float = 0.0
    app_ms: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    round_trips: float = 0.0
    aof_flushes: float = 0.0

    def __iadd__(self, other: Cost) -> Cost:
        self.calls.update(other.calls)
        self.usec.update(other.usec)
        self.redis_cpu_us += other.redis_cpu_us
        self.round_trips += other.round_trips
        self.aof_flushes += other.aof_flushes
        for kind, ms in other.app_ms.items():
            self.app_ms[kind] = self.app_ms.get(kind, 0.0) + ms
        self.seconds += other.seconds
        return self

    def less(self, other: Cost, times: float) -> Cost:
        """This cost without ``times`` times ``other`` (the bench's own snapshots, or idle background), never below 0."""
        out = Cost(redis_cpu_us=max(self.redis_cpu_us - other.redis_cpu_us * times, 0.0), seconds=self.seconds)
        out.round_trips = max(self.round_trips - other.round_trips * times, 0.0)
        out.aof_flushes = max(self.aof_flushes - other.aof_flushes * times, 0.0)
        for mine, theirs, into in ((self.calls, other.calls, out.calls), (self.usec, other.usec, out.usec)):
            for name, value in mine.items():
                into[name] = max(value - theirs.get(name, 0) * times, 0)  # type: ignore[assignment]
        for kind, ms in self.app_ms.items():
            out.app_ms[kind] = max(ms - other.app_ms.get(kind, 0.0) * times, 0.0)
        return out

    @property
    def commands(self) -> float:
        return float(sum(self.calls.values()))

    @property
    def command_usec(self) -> float:
        return float(sum(self.usec.values()))


@dataclass
class Snapshot:
    calls: Counter[str]
    usec: Counter[str]
    redis_cpu_us: float
    app_ms: dict[str, float]
    at: float
    own: Counter[str]
    reads: int = 0  # total_reads_processed
    writes: int = 0  # total_writes_processed
    syscw: int = 0  # the server's write calls (0: its pid is not known)


class Meter:
    """Snapshots of the server's counters and the app's CPU; the bench's own commands go through :meth:`probe`."""

    def __init__(
        self,
        client: redis.Redis,
        apps: dict[str, list[int]],
        descendants: Callable[[int], list[int]],
        server_pid: int | None = None,
    ) -> None:
        self.server_pid = server_pid
        self.redis = client  # one connection, opened before the first snapshot (its handshake is not counted)
        self.redis.ping()
        self.apps = apps
        self.descendants = descendants
        self.own: Counter[str] = Counter()

    def probe(self, *command: str | int) -> object:
        """A command of the bench's own, counted so that it is taken off the service's figures."""
        self.own[str(command[0]).lower()] += 1
        return self.redis.execute_command(*command)  # type: ignore[no-untyped-call]

    def snapshot(self) -> Snapshot:
        info = self.redis.info("commandstats", "cpu", "stats")
        own = Counter(self.own)
        self.own["info"] += 1  # this INFO is in the next snapshot's counts
        calls: Counter[str] = Counter()
        usec: Counter[str] = Counter()
        for key, value in info.items():
            if key.startswith("cmdstat_"):
                calls[key[8:]] = int(value["calls"])
                usec[key[8:]] = int(value["usec"])
        cpu = (float(info["used_cpu_sys"]) + float(info["used_cpu_user"])) * 1e6
        apps = {kind: cpu_ms(pids, self.descendants) for kind, pids in self.apps.items()}
        syscw = 0
        if self.server_pid is not None:
            with contextlib.suppress(OSError):
                io = dict(line.split(": ", 1) for line in Path(f"/proc/{self.server_pid}/io").read_text().splitlines())
                syscw = int(io["syscw"])
        reads, writes = int(info.get("total_reads_processed", 0)), int(info.get("total_writes_processed", 0))
        return Snapshot(calls, usec, cpu, apps, time.monotonic(), own, reads, writes, syscw)

    def cost(self, before: Snapshot, after: Snapshot) -> Cost:
        """What happened between two snapshots, the bench's own commands taken off."""
        own = after.own - before.own
        cost = Cost(redis_cpu_us=after.redis_cpu_us - before.redis_cpu_us, seconds=after.at - before.at)
        cost.round_trips = max(after.reads - before.reads - sum(own.values()), 0)
        if after.syscw:
            cost.aof_flushes = max((after.syscw - before.syscw) - (after.writes - before.writes), 0)
        for name, calls in after.calls.items():
            delta = calls - before.calls.get(name, 0)
            usec = after.usec[name] - before.usec.get(name, 0)
            mine = min(own.get(name, 0), delta)
            if mine and delta:
                usec -= usec * mine // delta  # the probes' share of the time, at the average per call
            if delta - mine > 0:
                cost.calls[name] = delta - mine
                cost.usec[name] = max(usec, 0)
        for kind in self.apps:
            cost.app_ms[kind] = after.app_ms[kind] - before.app_ms[kind]
        return cost
