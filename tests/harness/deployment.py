"""The production shape, run by tests: a redis-server, gunicorn, and `red7 worker` processes of their own.

Every process binds loopback only, on a free port, lives in its own process
group (so a test can ``kill -9`` a whole tree, work horses included), and is
stopped by the fixture that started it, whatever the test did.  Clients speak
HTTP to gunicorn as a frontend would and record every answer, so that a test
can say "no 500, ever".
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import requests
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.common.config import Settings
from service.domain.game import decode

REDIS_SERVER = shutil.which("redis-server")
NO_REDIS_SERVER = "redis-server is not on PATH (apt-get install redis-server)"


def free_port() -> int:
    """A free loopback port below the ephemeral range.

    A port the kernel hands out (``bind(0)``) is free again the moment it is checked, and the next ``bind(0)`` or
    outgoing connection of any process may take it before the test's server binds it; the suites run side by side.
    Below the ephemeral range only another test's random pick can, which each server's start catches
    (:func:`listens_on`) and then starts again on another port.
    """
    top = max(11000, _ephemeral_ports_from() - 1)
    for _ in range(200):
        port = random.randint(10000, top)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port")


def listens_on(pid: int, port: int) -> bool:
    """Whether the process ``pid``, or one below it, holds the socket that listens on 127.0.0.1:``port``.

    A server that could not bind its port (another test's took it) may still be starting, or retrying, while the other
    answers there: a readiness check must know whose answer it got.  Linux says in ``/proc``; elsewhere this says yes.
    """
    try:
        table = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return True
    local, listen = f"0100007F:{port:04X}", "0A"
    sockets = {f"socket:[{f[9]}]" for f in (line.split() for line in table) if f[1] == local and f[3] == listen}
    for holder in (pid, *descendants(pid)):
        try:
            fds = os.listdir(f"/proc/{holder}/fd")
        except OSError:
            continue
        for fd in fds:
            with suppress(OSError):
                if os.readlink(f"/proc/{holder}/fd/{fd}") in sockets:
                    return True
    return False


#: How many ports a server's start tries before it gives up: each after another test's server took the one before.
PORT_TRIES = 5
#: What a server says in its log when its port is taken: gunicorn (it retries, for seconds), werkzeug and redis-server.
PORT_TAKEN = ("Connection in use", "Address already in use")


def serving(
    process: subprocess.Popen[bytes],
    port: int,
    log: Path,
    answers: Callable[[], bool],
    what: str,
    *,
    since: int = 0,
    timeout: float = 30,
) -> bool:
    """Wait until ``process`` ``answers`` on its own socket: ``True``; ``False`` if its port was taken (its ``log``
    says so, after byte ``since``).

    A server that finds its port taken says so and exits (gunicorn after retrying for seconds; werkzeug only once the
    app is built), and the server that took the port answers there meanwhile: an answer counts only from a socket
    that is the process's (:func:`listens_on`).
    """

    def up() -> str | None:
        said = log.read_bytes()[since:].decode(errors="replace") if log.exists() else ""
        if any(words in said for words in PORT_TAKEN):
            return "taken"
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {said[-3000:]}")
        return "ours" if answers() and listens_on(process.pid, port) else None

    return wait_until(up, timeout, f"{what} on port {port}", every=0.1) == "ours"


def answers_200(url: str) -> Callable[[], bool]:
    """Whether ``url`` answers 200 now (no answer: not yet)."""

    def answers() -> bool:
        try:
            return requests.get(url, timeout=1).status_code == 200
        except requests.RequestException:
            return False

    return answers


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process's group (it was started in a session of its own), SIGKILL if it is not gone in 10 s."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def _ephemeral_ports_from() -> int:
    """The lowest port the kernel hands out to outgoing connections and to ``bind(0)`` (Linux's default: 32768)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_cluster_port() -> int:
    """A free port whose cluster bus port (10000 above it) is free too, both below the ephemeral range: a port
    checked free there could be taken by any process's next connection before redis-server binds it (a bus port
    33302 was, in CI, while the fault tests ran beside)."""
    top = max(12000, _ephemeral_ports_from() - 10001)
    for _ in range(200):
        port = random.randint(10000, top)
        with socket.socket() as sock, socket.socket() as bus:
            try:
                sock.bind(("127.0.0.1", port))
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
            return port
    raise AssertionError("no free pair of ports for a cluster node")


def wait_until(check: Any, timeout: float, what: str, every: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(every)


class RedisServer:
    """A redis-server of the test's own: AOF on (``appendfsync`` as given), no RDB, restartable on its data."""

    def __init__(self, directory: Path, port: int | None = None, appendfsync: str = "always", *extra: str) -> None:
        self.directory = directory
        self.port = port or free_port()
        #: Whether a first start may move to another port (one it chose, that nothing was told yet).
        self._may_move = port is None
        self.appendfsync = appendfsync
        self.extra = list(extra)  # more redis-server options, e.g. "--replicaof", "127.0.0.1", "6390"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = directory / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until it answers on its port (on another, at a first start, if another test's took it)."""
        for _ in range(PORT_TRIES):
            if self._started():
                self._may_move = False
                return
            if not self._may_move:
                raise RuntimeError(f"port {self.port} is taken: {self.tail()}")
            self.port = free_port()
        raise RuntimeError(f"redis-server found no free port in {PORT_TRIES} tries")

    def _started(self) -> bool:
        """Whether it started on its port (``False``: the port is another process's)."""
        assert REDIS_SERVER is not None, NO_REDIS_SERVER
        logged = self.log.stat().st_size if self.log.exists() else 0
        args = [
            REDIS_SERVER,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--appendonly",
            "yes",
            "--appendfsync",
            self.appendfsync,
            "--save",
            "",
            "--daemonize",
            "no",
            "--logfile",
            str(self.log),
            *self.extra,
        ]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Each ping short and tried once (redis-py 8 tries three more times): one to a port another process took may
        # never be answered, and the loop must look at the process between two.
        probe = redis.Redis(
            host="127.0.0.1", port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5, retry=Retry(NoBackoff(), 0)
        )

        def answers() -> bool:
            try:
                return bool(probe.ping())
            except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                return False

        try:
            return serving(self.process, self.port, self.log, answers, "redis-server", since=logged, timeout=20)
        finally:
            probe.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no last fsync, no rewrite."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def aof_tail_file(self) -> Path:
        """The AOF file that takes new writes (Redis 7 keeps a base file and incremental ones)."""
        files = sorted((self.directory / "appendonlydir").glob("*.incr.aof"), key=lambda p: int(p.name.split(".")[-3]))
        assert files, "no incremental AOF file"
        return files[-1]

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return "(no log)"

    def client(self, **options: Any) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True, **options)


@contextmanager
def redis_server(directory: Path, appendfsync: str = "always") -> Iterator[RedisServer]:
    server = RedisServer(directory, appendfsync=appendfsync)
    try:
        server.start()
        yield server
    finally:
        server.stop()


REDIS_CLI = shutil.which("redis-cli")
NO_REDIS_CLUSTER = "redis-server and redis-cli are not both on PATH (apt-get install redis-server redis-tools)"


class RedisCluster:
    """A Redis Cluster of the test's own: ``masters`` primaries with ``replicas`` replicas each, on loopback.

    Each node is a :class:`RedisServer` (AOF, ``appendfsync`` as given) with
    cluster mode on and a short ``cluster-node-timeout``, so that a killed
    primary's replica takes over within seconds.  ``cluster-require-full-coverage
    no``: while a primary fails over, the other primaries go on serving their slots.
    """

    def __init__(
        self, directory: Path, masters: int = 3, replicas: int = 0, node_timeout_ms: int = 1000, appendfsync: str = "always"
    ) -> None:
        self.nodes = []
        for index in range(masters * (1 + replicas)):
            node_dir = directory / f"node-{index}"
            node_dir.mkdir(parents=True, exist_ok=True)
            self.nodes.append(
                RedisServer(
                    node_dir,
                    free_cluster_port(),
                    appendfsync,
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    str(node_dir / "nodes.conf"),
                    "--cluster-node-timeout",
                    str(node_timeout_ms),
                    "--cluster-require-full-coverage",
                    "no",
                    "--cluster-replica-validity-factor",
                    "0",  # a replica may always take over (it was in sync: WAIT)
                )
            )
        self.replicas = replicas

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    def start(self) -> None:
        assert REDIS_CLI is not None, NO_REDIS_CLUSTER
        for node in self.nodes:
            node.start()
        create = [
            REDIS_CLI,
            "--cluster",
            "create",
            *(f"127.0.0.1:{node.port}" for node in self.nodes),
            "--cluster-replicas",
            str(self.replicas),
            "--cluster-yes",
        ]
        done = subprocess.run(create, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stdout.decode(errors="replace")[-2000:] + done.stderr.decode(errors="replace")
        wait_until(self.healthy, 30, "the cluster's state is ok on every node", every=0.1)

    def healthy(self, with_replicas: bool = True) -> bool:
        """Every live node says ``cluster_state:ok``, and (``with_replicas``) each primary has its replicas in sync."""
        for node in self.live():
            with node.client(socket_timeout=2) as client:
                if client.cluster("info").get("cluster_state") != "ok":
                    return False
                replication = client.info("replication")
                if replication["role"] == "master" and self.replicas and with_replicas:
                    online = [v for k, v in replication.items() if k.startswith("slave") and isinstance(v, dict)]
                    if sum(1 for v in online if v.get("state") == "online") < self.replicas:
                        return False
        return True

    def live(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.process is not None and node.process.poll() is None]

    def primaries(self) -> list[RedisServer]:
        found = []
        for node in self.live():
            with node.client(socket_timeout=2) as client:
                if client.info("replication")["role"] == "master":
                    found.append(node)
        return found

    def primary_of(self, key: str) -> RedisServer:
        """The node serving ``key``'s slot now."""
        for node in self.live():
            with node.client(socket_timeout=2) as client:
                slot = int(client.cluster("keyslot", key))
                owner = client.cluster("slots")
                for start, end, primary, *_ in owner:
                    if start <= slot <= end:
                        return next(n for n in self.nodes if n.port == int(primary[1]))
        raise AssertionError("no live node")

    def client(self, **options: Any) -> redis.RedisCluster:
        return redis.RedisCluster(
            host="127.0.0.1", port=self.live()[0].port, decode_responses=True, require_full_coverage=False, **options
        )

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@contextmanager
def redis_cluster(directory: Path, masters: int = 3, replicas: int = 0, **options: Any) -> Iterator[RedisCluster]:
    cluster = RedisCluster(directory, masters, replicas, **options)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


class Processes:
    """The service's processes (gunicorn, workers) of one test, each in its own process group."""

    def __init__(self, directory: Path, redis_url: str, **env: str) -> None:
        self.directory = directory
        self.prefix = f"red7-fault:{uuid.uuid4().hex[:8]}:"
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "RED7_KEY_PREFIX": self.prefix,
            "RED7_QUEUE_NAME": self.prefix.replace(":", "_").strip("_"),
            "RED7_EXPERT_SECONDS": "0.2",
            # Rate limits stay on, scaled to the tests' players, who act a hundred times faster than people
            # (and all from one address).
            "RED7_RATE_LIMIT_TOKEN": "30000 per minute",
            "RED7_RATE_LIMIT_ADDRESS": "200000 per minute",
            # Rated games for the tests' players, who sign up a moment before they play.
            "RED7_RATED_MIN_ACCOUNT_AGE": "0",
            "RED7_RATED_MIN_GAMES": "0",
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        self.started: list[subprocess.Popen[bytes]] = []

    def _start(self, name: str, args: list[str], **env: str) -> subprocess.Popen[bytes]:
        log = open(self.directory / f"{name}.log", "ab")  # noqa: SIM115 (the process holds it)
        process = subprocess.Popen(
            args,
            env={**self.env, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        log.close()
        self.started.append(process)
        return process

    def worker(self, name: str = "worker", *, kind: str | None = None, **env: str) -> subprocess.Popen[bytes]:
        """A ``red7 worker`` (``kind``: its ``--kind``; none: all of it)."""
        args = [sys.executable, "-m", "service.processes.cli", "worker", *(["--kind", kind] if kind else [])]
        return self._start(f"{name}-{len(self.started)}", args, **env)

    def wait_listening(self, worker: subprocess.Popen[bytes], connection: redis.Redis | None = None, runners: int = 8) -> None:
        """Wait until each of ``worker``'s ``runners`` job runners waits on the games' queue (on ``connection``, by
        default the first queue shard of these processes' settings).

        A process is started long before it takes jobs (its imports, its runtime): a test whose point is which worker
        runs a job, or how soon a job runs, must not start the game before the worker can take it.  RQ registers a
        worker on its queues as it starts to wait, with its process id.
        """
        queue = self.env["RED7_QUEUE_NAME"]
        connection = connection or redis.Redis.from_url(Settings.from_env(self.env).queue_urls[0])

        def registered() -> bool:
            if worker.poll() is not None:
                raise RuntimeError(f"the worker exited with {worker.returncode}: {self.log_of(worker)}")
            keys = connection.smembers(f"rq:workers:{queue}")
            pids = [connection.hget(key, "pid") for key in keys]
            mine = str(worker.pid)
            return sum((pid.decode() if isinstance(pid, bytes) else pid) == mine for pid in pids) >= runners

        wait_until(registered, 30, f"{runners} job runners of worker {worker.pid} waiting on {queue}", every=0.1)

    def api(self, *, workers: int = 2, name: str = "api", **env: str) -> str:
        """gunicorn as the Dockerfile runs it (its config: gevent workers), on a port of its own; its base URL once ready.

        Ready is its own ``/readyz`` answering 200: a gunicorn that finds its port taken retries the bind for seconds,
        while the server that took it answers there.  Then it is stopped and started again on another port.
        """
        for _ in range(PORT_TRIES):
            port = free_port()
            args = [
                sys.executable,
                "-m",
                "gunicorn",
                "--config",
                "python:service.processes.gunicorn_config",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "service.processes.wsgi:app",
            ]
            process = self._start(f"{name}-{port}", args, **env)
            base = f"http://127.0.0.1:{port}"
            if serving(process, port, self.directory / f"{name}-{port}.log", answers_200(f"{base}/readyz"), "gunicorn"):
                return base
            self.kill_tree(process)
        raise RuntimeError(f"gunicorn found no free port in {PORT_TRIES} tries")

    def log_of(self, process: subprocess.Popen[bytes]) -> str:
        index = self.started.index(process)
        for path in sorted(self.directory.glob("*.log")):
            if path.name.endswith(f"-{index}.log") or str(process.args[-1]) in path.name:
                return path.read_text(errors="replace")[-3000:]
        return "(no log)"

    def log_named(self, name: str) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.directory.glob(f"{name}-*.log")))

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in sorted(self.directory.glob("*.log")))

    @staticmethod
    def kill_tree(process: subprocess.Popen[bytes]) -> None:
        """kill -9 of the process and everything it started, as a container kill does.

        Not only its process group: RQ's work horse moves to a group of its own.
        """
        tree = [process.pid, *descendants(process.pid)]
        for pid in tree:
            with _gone():
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        trees = {process.pid: descendants(process.pid) for process in self.started if process.poll() is None}
        for process in self.started:
            if process.poll() is None:
                with _gone():
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.started:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill_tree(process)
        for pid in (pid for tree in trees.values() for pid in tree):  # a work horse left behind
            with _gone():
                os.kill(pid, signal.SIGKILL)
        from tests.harness.log_secrets import scan_file  # (imported here: conftest's plugin, loaded after this module)

        for log in sorted(self.directory.glob("*.log")):  # no secret in their lines either (the test fails if one is)
            scan_file(log)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc; an empty list elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _gone() -> suppress:
    """Signalling a process that is gone already is no error here."""
    return suppress(ProcessLookupError)


@contextmanager
def processes(directory: Path, redis_url: str, **env: str) -> Iterator[Processes]:
    started = Processes(directory, redis_url, **env)
    try:
        yield started
    finally:
        started.stop()


RED7 = Path(sys.executable).parent / "red7"


@dataclass
class Served:
    """``red7 serve`` running: its port, its process and its log."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()


@contextmanager
def red7_serve(directory: Path, **env: str) -> Iterator[Served]:
    """``red7 serve --embedded`` (werkzeug's server, as ``python3 dev.py run`` starts it) on a free loopback port, in a
    process group of its own, with no ``RED7_*`` or ``REDIS_URL`` setting but ``env``; stopped when the block ends.

    Up is its own ``/healthz`` answering 200 (one that finds its port taken says so and exits, but only after the app
    is built: the server that took the port may answer before); then it starts again on another port.
    """
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RED7_", "REDIS_URL"))} | env
    for _ in range(PORT_TRIES):
        port = free_port()
        log = directory / f"serve-{port}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [str(RED7), "serve", "--embedded", "--host", "127.0.0.1", "--port", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=environ,
                cwd=directory,
                start_new_session=True,
            )
        try:
            if serving(process, port, log, answers_200(f"http://127.0.0.1:{port}/healthz"), "red7 serve --embedded"):
                yield Served(port, process, log)
                return
        finally:
            stop_group(process)
    raise RuntimeError(f"red7 serve found no free port in {PORT_TRIES} tries")


@dataclass
class Answer:
    method: str
    path: str
    status: int  # 0: no answer (the connection failed)
    at: float
    body: Any = None


@dataclass
class Client:
    """A frontend's HTTP client: one player's token, and every answer it got."""

    base: str
    token: str | None = None
    player_id: str | None = None
    answers: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Keep-alive connections, as a browser or an app keeps them (``None``: a new connection per request).
    session: requests.Session | None = None
    #: Keep every answer (the fault tests read them); a load generator does not.
    record: bool = True

    def call(self, method: str, path: str, *, timeout: float = 30, **kwargs: Any) -> requests.Response | None:
        headers = dict(kwargs.pop("headers", {}) or {})
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        send = self.session.request if self.session is not None else requests.request
        try:
            response = send(method, f"{self.base}/v1{path}", headers=headers, timeout=timeout, **kwargs)
        except requests.RequestException:
            self._record(Answer(method, path, 0, time.time()))
            return None
        if self.record:
            body = response.json() if response.headers.get("Content-Type", "").endswith("json") else None
            self._record(Answer(method, path, response.status_code, time.time(), body))
        return response

    def _record(self, answer: Answer) -> None:
        if not self.record:
            return
        with self.lock:
            self.answers.append(answer)

    def statuses(self) -> list[int]:
        return [a.status for a in self.answers]

    def server_errors(self) -> list[Answer]:
        """Answers no client should ever get: a 500 (a 503 while Redis is away is expected)."""
        return [a for a in self.answers if a.status >= 500 and a.status != 503]

    def sign_up(self, name: str) -> Client:
        for _ in range(100):
            response = self.call("POST", "/players", json={"name": name})
            if response is not None and response.status_code == 201:
                body = response.json()
                return Client(self.base, body["token"], body["id"])
            time.sleep(0.2)
        raise AssertionError("could not sign up")

    def json(self, method: str, path: str, expect: int = 200, **kwargs: Any) -> Any:
        response = self.call(method, path, **kwargs)
        assert response is not None and response.status_code == expect, (path, response and response.text)
        return response.json()


def stream_events(redis_client: redis.Redis, prefix: str, game_id: str) -> list[dict[str, Any]]:
    """The game's stored events, read straight from Redis."""
    entries = redis_client.xrange(f"{prefix}game:{{{game_id}}}:events")
    return [{"n": int(entry_id.split("-")[0]), **decode(fields["e"])} for entry_id, fields in entries]


def stored_version(redis_client: redis.Redis, prefix: str, game_id: str) -> int:
    return int(redis_client.get(f"{prefix}game:{{{game_id}}}:version") or 0)
