"""The nemesis: faults on a schedule drawn from the seed alone (the same seed, the same schedule), each logged with
when it began and ended.

The kinds, dealt in shuffled rounds so that each comes about as often as the others:

- ``kill_worker``: ``kill -9`` of a ``red7 worker``'s process tree (work horses included); a new one is started;
- ``kill_role``: the same, of the worker holding the matchmaker's or the ticker's role;
- ``kill_api``: ``kill -9`` of one of gunicorn's worker processes (its master starts another);
- ``pause_worker``: ``SIGSTOP`` of a worker's tree for longer than its pulse and role leases, then ``SIGCONT``;
- ``kill_stores``: the stores' redis-server killed (``kill -9``) and started again on its AOF (``always``: nothing
  acknowledged may be lost);
- ``flush_shard``: a queue shard's ``FLUSHALL`` (its queue, agenda and markers gone; the ticker reseeds them);
- ``kill_shard``: a queue shard killed and started again empty (its AOF removed);
- ``hang_receiver``: the webhook receiver answers nothing for a while;
- ``burst``: a burst of games of AIs alone;
- ``failover`` (only with the stores on a cluster, in the place of ``kill_stores``): a primary failed over to its
  replica, by ``CLUSTER FAILOVER`` sent to the replica (even targets), or by ``kill -9`` of the primary, which is
  started again once its replica took over, and comes back as that one's replica (odd targets).  Either way the
  nemesis waits (up to :data:`FAILOVER_BOUND` s) until every primary has its replica in sync again, so that appends
  find a replica to wait for.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.soak.history import History
from bench.soak.shape import Shape
from tests.harness.deployment import Processes, descendants

KINDS = (
    "kill_worker",
    "kill_role",
    "kill_api",
    "pause_worker",
    "kill_stores",
    "flush_shard",
    "kill_shard",
    "hang_receiver",
    "burst",
)
#: The kinds with the stores on a cluster: a failover in the place of a killed stores server.
CLUSTER_KINDS = tuple("failover" if kind == "kill_stores" else kind for kind in KINDS)
#: Seconds a failover may take, from the order (or the kill) until every primary has its replica in sync again.
FAILOVER_BOUND = 60.0
#: Seconds of load before the first fault, and the range of the gaps between two faults' starts.
WARM_UP = 20.0
GAPS = (8.0, 16.0)


@dataclass(frozen=True)
class Planned:
    """One fault of the schedule: when (seconds after the soak's start), what, and its drawn parameters."""

    at: float
    kind: str
    target: int  # which worker, gunicorn process, shard or role (taken modulo what there is)
    seconds: float  # how long a pause, an outage or a hang lasts; a burst's size

    def as_dict(self) -> dict[str, Any]:
        return {"at": self.at, "kind": self.kind, "target": self.target, "seconds": self.seconds}


def schedule(seed: int, seconds: float, *, cluster: bool = False) -> list[Planned]:
    """The faults of a soak of ``seconds`` (none in its last :data:`WARM_UP` s: the settle period follows);
    ``cluster``: of a soak whose stores are a cluster (:data:`CLUSTER_KINDS`)."""
    kinds = CLUSTER_KINDS if cluster else KINDS
    rng = random.Random(f"nemesis-{seed}")
    plan: list[Planned] = []
    deck: list[str] = []
    at = WARM_UP
    while at < seconds - WARM_UP:
        if not deck:
            deck = list(kinds)
            rng.shuffle(deck)
        kind = deck.pop()
        length = {"pause_worker": (6.0, 10.0), "kill_stores": (1.0, 6.0), "kill_shard": (1.0, 5.0), "hang_receiver": (10.0, 20.0)}
        low, high = length.get(kind, (0.0, 0.0))
        amount = float(rng.randint(3, 8)) if kind == "burst" else round(rng.uniform(low, high), 1)
        plan.append(Planned(round(at, 1), kind, rng.randrange(1000), amount))
        at += rng.uniform(*GAPS)
    return plan


class Nemesis:
    """Runs a schedule against a :class:`Shape` from a thread of its own, logging each fault in the history."""

    def __init__(self, shape: Shape, history: History, plan: list[Planned], burst: Callable[[int], None]) -> None:
        self.shape, self.history, self.plan, self.burst = shape, history, plan, burst
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="nemesis")
        self.failure: BaseException | None = None

    def start(self, began: float) -> None:
        self.began = began
        self.thread.start()

    def join(self) -> None:
        self.stop.set()
        self.thread.join(120)

    def _run(self) -> None:
        try:
            for planned in self.plan:
                if self.stop.wait(max(0.0, self.began + planned.at - time.time())):
                    return
                start = time.time()
                detail = self.act(planned)
                self.history.add("nemesis", {**planned.as_dict(), "t": start, "end": time.time(), "detail": detail})
                self.history.count(f"nemesis {planned.kind}")
        except BaseException as error:  # the soak reports it: a nemesis that fails leaves the shape as it was
            self.failure = error

    def act(self, planned: Planned) -> str:
        shape, processes = self.shape, self.shape.processes
        assert processes is not None
        if planned.kind in ("kill_worker", "kill_role", "pause_worker"):
            worker = shape.workers[planned.target % len(shape.workers)]
            if planned.kind == "kill_role":
                role = ("matchmaker", "ticker")[planned.target % 2]
                worker = shape.role_holder(role) or worker
            if planned.kind == "pause_worker":
                tree = [worker.pid, *descendants(worker.pid)]
                _signal(tree, signal.SIGSTOP)
                try:
                    self.stop.wait(planned.seconds)
                finally:
                    _signal(tree, signal.SIGCONT)
                return f"worker {worker.pid} paused {planned.seconds} s ({len(tree)} processes)"
            Processes.kill_tree(worker)
            started = shape.replace_worker(worker)
            return f"worker {worker.pid} killed, {started.pid} started"
        if planned.kind == "kill_api":
            children = shape.api_children()
            if not children:
                return "no gunicorn worker to kill"
            victim = children[planned.target % len(children)]
            _signal([victim], signal.SIGKILL)
            return f"gunicorn worker {victim} killed"
        if planned.kind == "kill_stores":
            shape.stores.kill()
            self.stop.wait(planned.seconds)
            shape.stores.start()
            return f"stores down {planned.seconds} s"
        if planned.kind in ("flush_shard", "kill_shard"):
            shard = shape.shards[planned.target % len(shape.shards)]
            if planned.kind == "flush_shard":
                with shard.client(socket_timeout=5) as client:
                    client.flushall()
                return f"queue shard {shard.port} flushed"
            shard.kill()
            self.stop.wait(planned.seconds)
            shutil.rmtree(shard.directory / "appendonlydir", ignore_errors=True)
            shard.start()
            return f"queue shard {shard.port} killed, back empty after {planned.seconds} s"
        if planned.kind == "failover":
            return self.failover(planned)
        if planned.kind == "hang_receiver":
            receiver = shape.receiver
            receiver.hold(600.0)
            self.stop.wait(planned.seconds)
            receiver.release()
            return f"receiver hung {planned.seconds} s ({receiver.received} deliveries so far)"
        self.burst(int(planned.seconds))
        return f"burst of {int(planned.seconds)} games of AIs alone"

    def failover(self, planned: Planned) -> str:
        """A primary failed over to its replica (see the module's docstring), then the cluster whole again."""
        cluster = self.shape.cluster
        assert cluster is not None, "failover is a fault of the cluster mode"
        began = time.monotonic()
        primaries = sorted(cluster.primaries(), key=lambda node: node.port)
        primary = primaries[planned.target % len(primaries)]
        replica = _replica_of(cluster, primary)
        if planned.target % 2 == 0 and replica is not None:
            with replica.client(socket_timeout=5) as client:
                client.execute_command("CLUSTER", "FAILOVER")
            how = f"CLUSTER FAILOVER on replica {replica.port} of primary {primary.port}"
            _until(lambda: _role(replica) == "master", began, "the replica promoted")
        else:
            primary.kill()
            how = f"primary {primary.port} killed (kill -9)"
            _until(lambda: replica is None or _role(replica) == "master", began, "its replica promoted")
            _until(lambda: cluster.healthy(with_replicas=False), began, "every slot served")
            took = time.monotonic() - began
            primary.start()
            how += f", replica {replica.port if replica else '?'} promoted in {took:.1f} s, restarted as a replica"
        _until(cluster.healthy, began, "every primary with its replica in sync")
        return f"{how}; cluster whole again after {time.monotonic() - began:.1f} s"


def _role(node: Any) -> str | None:
    try:
        with node.client(socket_timeout=2) as client:
            return str(client.info("replication")["role"])
    except Exception:  # a node away, or loading: no role yet
        return None


def _replica_of(cluster: Any, primary: Any) -> Any:
    """The node replicating ``primary`` now (``None`` if none is)."""
    for node in cluster.live():
        if node is primary:
            continue
        try:
            with node.client(socket_timeout=2) as client:
                replication = client.info("replication")
        except Exception:
            continue
        if replication["role"] == "slave" and int(replication.get("master_port", 0)) == primary.port:
            return node
    return None


def _until(check: Callable[[], bool], began: float, what: str) -> None:
    """Wait for ``check`` (asked again on an error: a node may be away), within :data:`FAILOVER_BOUND` of ``began``."""
    while time.monotonic() - began < FAILOVER_BOUND:
        try:
            if check():
                return
        except Exception:  # a node away or loading: ask again
            pass
        time.sleep(0.2)
    raise RuntimeError(f"failover: {what} not within {FAILOVER_BOUND:.0f} s")


def _signal(pids: list[int], sent: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sent)
