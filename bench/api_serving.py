"""Serving for the API benchmark (``python -m bench.api_bench``): gunicorn, the bare endpoint, a client, cleanup.

- ``bare_app``: the bare Flask app that answers a small JSON, the benchmark's yardstick;
- ``start_gunicorn`` / ``stop`` / ``servers_running``: a gunicorn (production's gevent, or ``gthread``) serving a WSGI app
  on a free local port, waited on until it answers, stopped gracefully at the end;
- ``KeepAliveClient``: one keep-alive ``http.client`` connection;
- ``delete_keys``: every Redis key of a run deleted once it is over.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, request

from tests.harness.deployment import free_port

ROOT = Path(__file__).resolve().parent.parent

# --- the bare endpoint (gunicorn imports it as bench.api_serving:bare_app) --------------------------------------

bare_app = Flask("bare")
_BARE_BODY = json.dumps({"status": "ok", "version": 1}, separators=(",", ":"))


@bare_app.get("/bare")
def _bare_get() -> Response:
    return Response(_BARE_BODY, mimetype="application/json")


@bare_app.post("/bare")
def _bare_post() -> Response:
    request.get_json()
    return Response(_BARE_BODY, mimetype="application/json")


# --- servers ---------------------------------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path


#: The worker classes the benchmark serves with: production's (``service/processes/gunicorn_config.py``: gevent, the problem+json
#: worker, its keep-alive and timeouts), or gunicorn's threads.
WORKER_CLASSES = ("gevent", "gthread")


def start_gunicorn(
    name: str,
    target: str,
    env: dict[str, str],
    workers: int,
    threads: int,
    ready_path: str,
    logdir: Path,
    worker_class: str = "gevent",
) -> Server:
    """gunicorn serving ``target`` on a free local port: with ``gevent``, production's settings file (the command line
    overrides its address and its number of workers); with ``gthread``, ``threads`` threads a worker."""
    port = free_port()
    log = logdir / f"{name}.log"
    shape = (
        ["--config", "python:service.processes.gunicorn_config"] if worker_class == "gevent" else ["--worker-class", "gthread"]
    )
    args = [
        sys.executable,
        "-m",
        "gunicorn",
        *shape,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--log-level",
        "warning",
        "--error-logfile",
        str(log),
        target,
    ]
    python_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    full_env = {**os.environ, **env, "PYTHONPATH": python_path}
    process = subprocess.Popen(
        args,
        cwd=ROOT,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    server = Server(name, port, process, log)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn for {name} exited with {process.returncode}:\n{tail(log)}")
        try:
            status, _, _ = KeepAliveClient(port).request("GET", ready_path)
            if status == 200:
                return server
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop(server)
            raise RuntimeError(f"gunicorn for {name} did not get ready on port {port}:\n{tail(log)}")
        time.sleep(0.1)


def stop(server: Server) -> None:
    """SIGTERM to the gunicorn master (graceful), SIGKILL to its process group if it lingers."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=5)


def tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-3000:]
    except OSError:
        return "(no log)"


# --- a keep-alive client ---------------------------------------------------------------------------------------


class KeepAliveClient:
    """One persistent ``http.client`` connection, and nothing else: what the benchmark measures must be the server's
    cost, so its client adds as little of its own as it can (the harness's ``tests.harness.deployment.Client`` goes
    through ``requests`` and records every answer, which the fault tests want and a benchmark does not)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, bytes, dict[str, str]]:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                payload = response.read()
                return response.status, payload, dict(response.getheaders())
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # the server closed an idle keep-alive connection: reconnect once
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body: Any = None, token: str | None = None, expect: int = 200) -> Any:
        status, payload, _ = self.request(method, path, body, token)
        if status != expect:
            raise RuntimeError(f"{method} {path} -> {status}: {payload[:500]!r}")
        return json.loads(payload)

    def close(self) -> None:
        self.connection.close()


# --- a run's keys and settings ---------------------------------------------------------------------------------

#: The Redis a bench's service runs on, unless REDIS_URL names another.
DEFAULT_REDIS = "redis://127.0.0.1:6379/14"


@dataclass(frozen=True)
class BenchRun:
    """One run's place in Redis: a key prefix of its own, and the queue (and its jobs) named after it, which
    :func:`delete_keys` finds again at the end."""

    redis_url: str
    prefix: str
    namespace: str
    queue: str

    @classmethod
    def new(cls, kind: str) -> BenchRun:
        prefix = f"{kind}:{uuid.uuid4().hex[:10]}:"
        namespace = re.sub(r"[^A-Za-z0-9_-]", "_", prefix).strip("_")  # the queue's jobs are named by it
        return cls(os.environ.get("REDIS_URL") or DEFAULT_REDIS, prefix, namespace, f"{namespace}_q")

    @property
    def run_id(self) -> str:
        return self.prefix.split(":")[1]

    def answers(self, who: str) -> bool:
        """Whether its Redis answers; if not, says so on stderr for ``who``."""
        import redis

        try:
            redis.Redis.from_url(self.redis_url, socket_connect_timeout=2).ping()
        except redis.RedisError as exc:
            print(f"{who}: the Redis at {self.redis_url} does not answer: {exc}", file=sys.stderr)
            return False
        return True

    def service_env(self, *, rate_limits: bool) -> dict[str, str]:
        """The service's settings for the run: rate limits off, or the default limits' budgets at ten times their
        amounts per second (charged as production charges them, never spent here)."""
        env = {
            "REDIS_URL": self.redis_url,
            "RED7_KEY_PREFIX": self.prefix,
            "RED7_QUEUE_NAME": self.queue,
            "RED7_RATE_LIMIT_TOKEN": "",
            "RED7_RATE_LIMIT_ADDRESS": "",
            "RED7_RATE_LIMIT_SIGNUP": "",
            "RED7_RATE_LIMIT_IMPORT": "",
            "RED7_API_KEYS": "",
            # One player makes the whole pool of games: the per-player quota of games in play is not what is measured.
            "RED7_MAX_GAMES_IN_PLAY": "1000000",
        }
        if rate_limits:
            from service.common.config import Settings

            defaults = Settings()
            for name, limit in (("TOKEN", defaults.rate_limit_token), ("ADDRESS", defaults.rate_limit_address)):
                env[f"RED7_RATE_LIMIT_{name}"] = f"{int(limit.split(' per ')[0]) * 10} per second"
        return env

    def delete_keys(self) -> int:
        return delete_keys(self.redis_url, self.prefix, self.namespace, self.queue)


# --- cleanup ----------------------------------------------------------------------------------------------------


def delete_keys(redis_url: str, prefix: str, namespace: str, queue: str) -> int:
    import redis

    client = redis.Redis.from_url(redis_url)
    deleted = 0
    try:
        for pattern in (f"{prefix}*", f"rq:*{namespace}*", f"*{queue}*"):
            batch = []
            for key in client.scan_iter(match=pattern, count=1000):
                batch.append(key)
                if len(batch) >= 500:
                    deleted += client.delete(*batch)
                    batch = []
            if batch:
                deleted += client.delete(*batch)
        client.srem("rq:queues", f"rq:queue:{queue}")
    finally:
        client.close()
    return deleted


@contextmanager
def servers_running(servers: list[Server]) -> Iterator[None]:
    try:
        yield
    finally:
        for server in servers:
            stop(server)
