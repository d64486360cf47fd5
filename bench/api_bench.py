"""API benchmark: the service under gunicorn against a bare Flask endpoint served the same way.

    python -m bench.api_bench [--seconds 3] [--clients 1,16]

Starts two gunicorn servers (``gthread``, the same workers and threads): the
Red7 service on the real Redis (``REDIS_URL``, default
``redis://127.0.0.1:6379/14``, under a key prefix of its own and with rate
limits off), and a bare Flask app that answers a small JSON.  Each is driven
by client threads, each with its own keep-alive ``http.client`` connection,
at every concurrency of ``--clients``:

- ``GET /v1/games/{id}``: a seated player's view of an active game;
- ``POST /v1/games/{id}/actions``: a real, accepted step of that player's
  turn.  Every game is seeded, so the benchmark plays it ahead of time with
  the engine (the same deal, the same rules) and each client sends the next
  legal step that keeps its player in the round, for whichever seat is to
  move; a game whose round is about to end is left for the next one from a
  pool made beforehand.  Any answer but 200 is counted apart.

Each figure is printed with its ratio to the bare endpoint at the same
concurrency (GET against a bare GET, POST against a bare POST of a small
JSON body).  Targets: GET >= 50 % of bare, POST >= 30 % of bare.  The load
generator runs on the same machine as the servers; on a small machine it
takes a share of the CPU from both alike.  At the end the servers are
stopped and every Redis key of the run is deleted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, Response, request

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REDIS = "redis://127.0.0.1:6379/14"
TARGETS = {"GET": 0.50, "POST": 0.30}

# --- the bare endpoint (gunicorn imports it as bench.api_bench:bare_app) ----------------------------------------

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path


def start_gunicorn(
    name: str, target: str, env: dict[str, str], workers: int, threads: int, ready_path: str, logdir: Path
) -> Server:
    port = free_port()
    log = logdir / f"{name}.log"
    args = [
        sys.executable, "-m", "gunicorn",
        "--bind", f"127.0.0.1:{port}",
        "--worker-class", "gthread",
        "--workers", str(workers),
        "--threads", str(threads),
        "--log-level", "warning",
        "--error-logfile", str(log),
        target,
    ]
    python_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    full_env = {**os.environ, **env, "PYTHONPATH": python_path}
    process = subprocess.Popen(args, cwd=ROOT, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    server = Server(name, port, process, log)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn for {name} exited with {process.returncode}:\n{tail(log)}")
        try:
            status, _, _ = Client(port).request("GET", ready_path)
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


class Client:
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


# --- games played ahead of time ---------------------------------------------------------------------------------


@dataclass
class PlannedGame:
    """A seeded two-human game and the accepted steps the benchmark will send, in order."""

    game_id: str
    tokens: tuple[str, str]
    actions: list[tuple[int, dict[str, Any]]]  # (seat, step)
    next: int = 0


def plan_actions(seed: int, limit: int = 200) -> list[tuple[int, dict[str, Any]]]:
    """The steps of one round of a seeded game, each legal and keeping its player in, as the engine sees it."""
    from engine import GameState, Start, Variant, decide_and_fold, legal_steps, step_to_dict

    _, state = decide_and_fold(GameState(), Start(2, Variant.ADVANCED, False, seed, None))
    out = []
    while len(out) < limit:
        options = [o for o in legal_steps(state) if o.can_win and not o.eliminates]
        if not options or state.turn is None:
            break
        seat = state.turn.seat
        choice = options[len(out) % len(options)]
        _, state = decide_and_fold(state, choice.step, seat)
        out.append((seat, step_to_dict(choice.step)))
        if state.turn is None or state.turn.seat is None:
            break
    return out


class GamePool:
    """Games handed out to client threads, one at a time."""

    def __init__(self, games: list[PlannedGame]) -> None:
        self._games = list(reversed(games))
        self._lock = threading.Lock()

    def take(self) -> PlannedGame | None:
        with self._lock:
            return self._games.pop() if self._games else None

    def __len__(self) -> int:
        return len(self._games)


def make_games(
    port: int, count: int, seed_base: int, players: tuple[dict[str, Any], dict[str, Any]], parallel: int = 8
) -> list[PlannedGame]:
    """``count`` active two-human games (each seeded, both seats taken), with their planned steps."""
    seeds = [seed_base + i for i in range(count)]
    out: list[PlannedGame | None] = [None] * count
    errors: list[BaseException] = []

    def work(indices: list[int]) -> None:
        client = Client(port)
        try:
            for i in indices:
                ana, bo = players
                created = client.json("POST", "/v1/games", {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": seeds[i]},
                                      ana["token"], expect=201)
                client.json("POST", f"/v1/games/{created['id']}/join", {"code": created["join_code"]}, bo["token"])
                out[i] = PlannedGame(created["id"], (ana["token"], bo["token"]), plan_actions(seeds[i]))
        except BaseException as exc:
            errors.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=work, args=(list(range(k, count, parallel)),)) for k in range(parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [g for g in out if g is not None]


# --- measuring --------------------------------------------------------------------------------------------------


@dataclass
class Result:
    label: str
    method: str
    clients: int
    ok: int = 0
    other: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] * 1000


Request = Callable[[Client, "ThreadState"], tuple[int, bool]]  # -> (status, keep going)


@dataclass
class ThreadState:
    index: int
    game: PlannedGame | None = None


def measure(label: str, method: str, port: int, clients: int, seconds: float, warmup: float, send: Request) -> Result:
    """``clients`` threads, each on its own keep-alive connection, for ``warmup`` + ``seconds``; only the latter counts."""
    result = Result(label, method, clients)
    lock = threading.Lock()
    start_barrier = threading.Barrier(clients + 1)
    window: dict[str, float] = {}
    stop_at = [math.inf]
    finished_at: list[float] = []

    def run(index: int) -> None:
        client = Client(port)
        state = ThreadState(index)
        latencies: list[float] = []
        ok = 0
        other: Counter = Counter()
        start_barrier.wait()
        try:
            while True:
                began = time.perf_counter()
                if began >= stop_at[0]:
                    break
                status, more = send(client, state)
                ended = time.perf_counter()
                if began >= window["start"]:
                    if status == 200:
                        ok += 1
                        latencies.append(ended - began)
                    elif status:
                        other[status] += 1
                if not more:
                    break
        finally:
            client.close()
            with lock:
                result.ok += ok
                result.other.update(other)
                result.latencies.extend(latencies)
                finished_at.append(time.perf_counter())

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    now = time.perf_counter()
    window["start"] = now + warmup
    stop_at[0] = window["start"] + seconds
    start_barrier.wait()
    for t in threads:
        t.join()
    # A POST run may end early when the game pool runs dry: count the time the clients really ran.
    result.seconds = max(0.001, min(stop_at[0], max(finished_at)) - window["start"])
    return result


def send_get(path: str, token: str | None = None) -> Request:
    def send(client: Client, _: ThreadState) -> tuple[int, bool]:
        status, _, _ = client.request("GET", path, token=token)
        return status, True

    return send


def send_bare_post() -> Request:
    body = {"steps": [{"type": "play", "card": "R7"}]}

    def send(client: Client, _: ThreadState) -> tuple[int, bool]:
        status, _, _ = client.request("POST", "/bare", body)
        return status, True

    return send


def send_game_views(games: list[PlannedGame]) -> Request:
    def send(client: Client, state: ThreadState) -> tuple[int, bool]:
        game = games[state.index % len(games)]
        status, _, _ = client.request("GET", f"/v1/games/{game.game_id}", token=game.tokens[0])
        return status, True

    return send


def send_actions(pool: GamePool, desyncs: Counter) -> Request:
    def send(client: Client, state: ThreadState) -> tuple[int, bool]:
        game = state.game
        while game is None or game.next >= len(game.actions):
            game = state.game = pool.take()
            if game is None:
                return 0, False  # the pool ran dry: this client is done
        seat, step = game.actions[game.next]
        game.next += 1
        status, payload, _ = client.request("POST", f"/v1/games/{game.game_id}/actions", {"steps": [step]}, game.tokens[seat])
        if status != 200:
            desyncs[f"{status} {_code(payload)}"] += 1
            state.game = None  # the plan no longer matches that game: take another
        return status, True

    return send


def _code(payload: bytes) -> str:
    try:
        return str(json.loads(payload).get("code"))
    except ValueError:
        return "?"


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


# --- the report -------------------------------------------------------------------------------------------------


def table(results: list[Result], bare: dict[tuple[str, int], Result]) -> str:
    head = (f"{'endpoint':<32} {'clients':>7} {'req/s':>9} {'vs bare':>8} {'target':>7} {'p50 ms':>8} {'vs bare':>8} "
            f"{'p99 ms':>8} {'vs bare':>8} {'non-200':>8}")
    lines = [head, "-" * len(head)]
    for r in results:
        base = bare.get((r.method, r.clients))
        is_bare = base is r
        ratio = "" if is_bare or not base else f"{100 * r.rate / base.rate:.0f}%"
        target = ""
        if not is_bare and base:
            goal = TARGETS[r.method]
            target = ("ok" if r.rate >= goal * base.rate else "MISS") + f" {goal:.0%}"
        p50_ratio = "" if is_bare or not base else f"x{r.percentile(50) / base.percentile(50):.1f}"
        p99_ratio = "" if is_bare or not base else f"x{r.percentile(99) / base.percentile(99):.1f}"
        non200 = sum(r.other.values())
        lines.append(
            f"{r.label:<32} {r.clients:>7} {r.rate:>9.0f} {ratio:>8} {target:>7} {r.percentile(50):>8.2f} {p50_ratio:>8} "
            f"{r.percentile(99):>8.2f} {p99_ratio:>8} {non200:>8}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.api_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds per figure (after a warm-up)")
    parser.add_argument("--warmup", type=float, default=0.5, help="seconds of warm-up before each figure")
    parser.add_argument("--clients", default="1,16", help="concurrencies to measure, comma-separated")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (both servers)")
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads per worker (both servers)")
    args = parser.parse_args(argv)
    concurrencies = [int(c) for c in args.clients.split(",") if c.strip()]

    try:
        import gunicorn  # noqa: F401
    except ImportError:
        print("api_bench: gunicorn is not installed (pip install '.[deploy]')", file=sys.stderr)
        return 2

    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS
    run_id = uuid.uuid4().hex[:10]
    prefix = f"red7-bench:{run_id}:"
    namespace = re.sub(r"[^A-Za-z0-9_-]", "_", prefix).strip("_")
    queue = f"{namespace}_q"
    import redis

    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        print(f"api_bench: the Redis at {redis_url} does not answer: {exc}", file=sys.stderr)
        return 2

    env = {
        "REDIS_URL": redis_url,
        "RED7_KEY_PREFIX": prefix,
        "RED7_QUEUE": queue,
        "RED7_RATE_LIMIT_TOKEN": "",
        "RED7_RATE_LIMIT_ADDRESS": "",
        "RED7_RATE_LIMIT_SIGNUP": "",
        "RED7_API_KEYS": "",
    }
    logdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"red7-bench-{run_id}"
    logdir.mkdir(parents=True, exist_ok=True)
    servers: list[Server] = []
    interrupted = False

    def on_term(signum: int, _: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    results: list[Result] = []
    bare: dict[tuple[str, int], Result] = {}
    desyncs: Counter = Counter()
    try:
        with servers_running(servers):
            servers.append(start_gunicorn("service", "service.wsgi:app", env, args.workers, args.threads, "/readyz", logdir))
            servers.append(start_gunicorn("bare", "bench.api_bench:bare_app", env, args.workers, args.threads, "/bare", logdir))
            service, bare_server = servers
            setup = Client(service.port)
            players = (setup.json("POST", "/v1/players", {"name": "Ana"}, expect=201),
                       setup.json("POST", "/v1/players", {"name": "Bo"}, expect=201))
            setup.close()
            view_games = make_games(service.port, max(concurrencies), 1_000_000, players)
            print(f"api_bench: service on :{service.port}, bare Flask on :{bare_server.port}; gunicorn gthread "
                  f"{args.workers} workers x {args.threads} threads each; Redis {redis_url} (prefix {prefix}); "
                  f"{os.cpu_count()} CPUs; {args.seconds:g} s per figure after {args.warmup:g} s warm-up", flush=True)

            seed = 2_000_000
            for clients in concurrencies:
                r = measure("bare GET /bare", "GET", bare_server.port, clients, args.seconds, args.warmup, send_get("/bare"))
                bare[("GET", clients)] = r
                results.append(r)
                r = measure("GET /v1/games/{id}", "GET", service.port, clients, args.seconds, args.warmup,
                            send_game_views(view_games))
                results.append(r)
                r = measure("bare POST /bare", "POST", bare_server.port, clients, args.seconds, args.warmup, send_bare_post())
                bare[("POST", clients)] = r
                results.append(r)
                # Enough planned steps for the service to go as fast as the bare endpoint did.
                steps_per_game = statistics.mean(len(plan_actions(seed + i)) for i in range(20))
                needed = r.rate * (args.seconds + args.warmup) * 1.2 + 20 * clients
                count = max(4 * clients, math.ceil(needed / max(1.0, steps_per_game)))
                started = time.perf_counter()
                pool = GamePool(make_games(service.port, count, seed, players))
                seed += count
                print(f"api_bench: {count} games made for POST at {clients} client(s) "
                      f"({steps_per_game:.1f} planned steps each, {time.perf_counter() - started:.1f} s)", flush=True)
                r = measure("POST /v1/games/{id}/actions", "POST", service.port, clients, args.seconds, args.warmup,
                            send_actions(pool, desyncs))
                if r.seconds < args.seconds * 0.9:
                    print(f"api_bench: the game pool ran dry after {r.seconds:.1f} s at {clients} client(s)", flush=True)
                results.append(r)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        deleted = delete_keys(redis_url, prefix, namespace, queue)
        for server in servers:
            log = tail(server.log).strip()
            if log and ("Traceback" in log or "ERROR" in log):
                print(f"api_bench: {server.name} logged errors:\n{log}", file=sys.stderr)
        for path in logdir.glob("*.log"):
            path.unlink()
        logdir.rmdir()
        print(f"api_bench: servers stopped; {deleted} Redis keys of this run deleted")
    if interrupted:
        return 130

    print()
    print(table(results, bare))
    print()
    errors = sum(sum(r.other.values()) for r in results)
    print(f"non-200 answers: {errors}" + (f" (actions: {dict(desyncs)})" if desyncs else ""))
    for method, goal in TARGETS.items():
        for clients in concurrencies:
            ours = next(r for r in results if r.method == method and r.clients == clients and r is not bare[(method, clients)])
            base = bare[(method, clients)]
            verdict = "meets" if ours.rate >= goal * base.rate else "MISSES"
            print(f"{method} at {clients:>2} client(s): {ours.rate / base.rate:.0%} of bare, {verdict} the {goal:.0%} target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
