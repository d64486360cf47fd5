"""The production shape the soak runs on, from the fault tests' harness.

A stores redis-server (AOF fsynced on every write, or every second: a ``kill -9`` of the server loses nothing either
way, since Redis writes its AOF to the kernel before it answers; only a host crash could lose the last second, which
no fault here causes), or with ``cluster`` a Redis Cluster of three primaries with a replica each (appends
acknowledged once a replica holds them, ``RED7_WAIT_REPLICAS=1``, so that a promoted replica has every acknowledged
move), two queue-shard redis-servers (AOF ``everysec``: a queue may lose its last second, the agenda
reseeds it), gunicorn with two gevent worker processes, three ``red7 worker``s, and a local webhook receiver that can
be made to hang.  Every process is the soak's own, on loopback, and :meth:`Shape.stop` ends each.
"""

from __future__ import annotations

import time
from pathlib import Path
from subprocess import Popen

import redis

from tests.harness.deployment import Processes, RedisCluster, RedisServer, descendants
from tests.harness.receivers import WebhookReceiver

WORKERS = 3
#: The service's settings for the soak: AI turns paced a little (a game of AIs lasts long enough to be hit by faults),
#: webhooks to a receiver on loopback, sign-ups unbudgeted (the load signs up many players from one address).
ENV = {
    "RED7_AI_DELAY": "0.3",
    "RED7_WEBHOOK_PRIVATE_HOSTS": "1",
    "RED7_RATE_LIMIT_SIGNUP": "",
    "RED7_RATE_LIMIT_CHALLENGE": "2000 per hour",
    "RED7_RATE_LIMIT_ANALYSIS": "2000 per hour",
}
#: With the stores on a cluster: an append is acknowledged once a replica holds it (as the cluster fault test runs).
CLUSTER_ENV = {"RED7_WAIT_REPLICAS": "1", "RED7_WAIT_REPLICAS_TIMEOUT_MS": "1000"}


class Shape:
    """The processes of one soak, started in :meth:`start`, every one stopped by :meth:`stop`."""

    def __init__(
        self, directory: Path, appendfsync: str = "always", *, cluster: bool = False, env: dict[str, str] | None = None
    ) -> None:
        """``cluster``: the stores on a Redis Cluster (3 primaries, a replica each); ``env``: more environment for the
        service's processes (a planted defect's, :mod:`bench.soak.plants`)."""
        self.directory = directory
        self.stores = RedisServer(_made(directory / "stores"), None, appendfsync)
        self.cluster = RedisCluster(directory / "cluster", 3, 1, 1000, appendfsync) if cluster else None
        self.env = dict(env or {})
        self.shards = [RedisServer(_made(directory / f"queue{n}"), None, "everysec") for n in range(2)]
        self.processes: Processes | None = None
        self.workers: list[Popen[bytes]] = []
        self.api: Popen[bytes] | None = None
        self.base = ""
        self.receiver = WebhookReceiver()

    @property
    def prefix(self) -> str:
        assert self.processes is not None
        return self.processes.prefix

    @property
    def servers(self) -> list[RedisServer]:
        """Every redis-server of the shape: the stores (or the cluster's nodes), the queue shards."""
        stores = self.cluster.nodes if self.cluster is not None else [self.stores]
        return [*stores, *self.shards]

    @property
    def stores_url(self) -> str:
        return self.cluster.url if self.cluster is not None else self.stores.url

    def start(self) -> None:
        if self.cluster is not None:
            self.cluster.start()
        for server in self.shards if self.cluster is not None else (self.stores, *self.shards):
            server.start()
        queue_url = ",".join(server.url for server in self.shards)
        env = {**ENV, **(CLUSTER_ENV if self.cluster is not None else {}), **self.env}
        self.processes = Processes(_made(self.directory / "run"), self.stores_url, RED7_QUEUE_URL=queue_url, **env)
        self.base = self.processes.api(workers=2)
        self.api = self.processes.started[-1]
        self.workers = [self.processes.worker() for _ in range(WORKERS)]

    def replace_worker(self, gone: Popen[bytes]) -> Popen[bytes]:
        """A new ``red7 worker`` in the place of one that was killed."""
        assert self.processes is not None
        self.workers = [w for w in self.workers if w is not gone]
        started = self.processes.worker()
        self.workers.append(started)
        return started

    def api_children(self) -> list[int]:
        """gunicorn's worker processes (its master restarts one that is killed)."""
        assert self.api is not None
        return descendants(self.api.pid)

    def role_holder(self, role: str) -> Popen[bytes] | None:
        """The ``red7 worker`` whose identity holds ``role`` (``matchmaker``, ``ticker``) now, on any queue shard."""
        for server in self.shards:
            try:
                with server.client(socket_timeout=2) as client:
                    holder = client.get(f"{self.prefix}{role}") or ""
            except redis.RedisError:
                continue
            for worker in self.workers:
                if holder.endswith(f"-{worker.pid}") and worker.poll() is None:
                    return worker
        return None

    def down(self) -> list[str]:
        """What is not running (servers, gunicorn, workers), by name and pid."""
        stores = (
            {f"cluster node {n.port}": n for n in self.cluster.nodes} if self.cluster is not None else {"stores": self.stores}
        )
        servers = {**stores, **{f"queue shard {n}": s for n, s in enumerate(self.shards)}}
        gone = [name for name, s in servers.items() if s.process is None or s.process.poll() is not None]
        if self.api is None or self.api.poll() is not None:
            gone.append("gunicorn")
        return gone + [f"worker {w.pid}" for w in self.workers if w.poll() is not None]

    def healthy(self) -> bool:
        """Every server and process up (after the nemesis, before the settle period)."""
        servers = all(s.process is not None and s.process.poll() is None for s in self.servers)
        return servers and self.api is not None and self.api.poll() is None and all(w.poll() is None for w in self.workers)

    def pids(self) -> list[int]:
        """Every process of the soak's now: servers, gunicorn and its workers, workers and their work horses."""
        found = [s.process.pid for s in self.servers if s.process is not None and s.process.poll() is None]
        for process in self.processes.started if self.processes is not None else []:
            if process.poll() is None:
                found += [process.pid, *descendants(process.pid)]
        return found

    def stop(self) -> None:
        self.receiver.close()
        if self.processes is not None:
            self.processes.stop()
        for server in reversed(self.servers):
            if server.process is not None and server.process.poll() is None:
                server.process.send_signal(18)  # SIGCONT: a paused server would not hear the SIGTERM
            server.stop()


def _made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def wait_ready(base: str, timeout: float = 60) -> None:
    """Until the API answers ``/readyz`` (after a fault)."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
