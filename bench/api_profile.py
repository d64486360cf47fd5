"""What one API request costs in this process: CPU per GET view, POST action and long-poll, and its Redis commands.

    python -m bench.api_profile [--requests 400] [--rate-limits] [--gevent] [--concurrency N] [--profile get|post|feed]

Wall-clock benchmarks on a small shared machine are noisy; this measures each request alone, straight through the
WSGI app with an environ like gunicorn's (no HTTP server, no test client, no other process), on the real Redis
(``REDIS_URL``, default ``redis://127.0.0.1:6379/14``, under a key prefix of its own, every key of the run deleted at
the end), with the settings ``bench.api_bench`` gives the service (rate limits off, or with ``--rate-limits`` its
budgets on).  The requests are ``bench.api_bench``'s: a seated player's view of an active two-human game (``GET
/v1/games/{id}``, the same games in turn, as 16 clients poll them), accepted steps of seeded games (``POST
/v1/games/{id}/actions``, the engine's plan of each), and a long-poll of those games answered at once (``GET
/v1/games/{id}/events?after=<version - 1>&wait=10``); the bare endpoint of ``bench.api_serving`` beside them.

``--gevent``: monkey-patched first, as production's gunicorn workers run the app (with their quick readiness checks;
``--hub-checks`` leaves those on gevent's hub).  ``--concurrency``: that many requests at once (threads, or greenlets
with ``--gevent``), each game's in order.  Printed per kind: process CPU per request (µs, ``time.process_time``; the
median of five batches), Redis commands and round trips per request (counted on the client's connections).
``--profile`` runs the kind under cProfile (on the CPU clock; ``API_PROFILE_WALL=1``: the wall clock) after, and
prints its ``--top`` functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from redis.connection import Connection


class Counts:
    commands = 0
    round_trips = 0


@contextmanager
def counting() -> Iterator[type[Counts]]:
    """Every command and every round trip the process's Redis connections send, counted while inside."""
    send_command, pack_commands, send_packed = Connection.send_command, Connection.pack_commands, Connection.send_packed_command

    def one(self: Connection, *args: Any, **kwargs: Any) -> Any:
        Counts.commands += 1
        return send_command(self, *args, **kwargs)

    def many(self: Connection, commands: Any) -> Any:
        commands = list(commands)
        Counts.commands += len(commands)
        return pack_commands(self, commands)

    def send(self: Connection, command: Any, check_health: bool = True) -> Any:
        Counts.round_trips += 1
        return send_packed(self, command, check_health)

    Connection.send_command = one  # type: ignore[method-assign]
    Connection.pack_commands = many  # type: ignore[method-assign]
    Connection.send_packed_command = send  # type: ignore[method-assign]
    try:
        yield Counts
    finally:
        Connection.send_command = send_command  # type: ignore[method-assign]
        Connection.pack_commands = pack_commands  # type: ignore[method-assign]
        Connection.send_packed_command = send_packed  # type: ignore[method-assign]


def wsgi_call(app: Any, method: str, path: str, headers: dict[str, str], body: Any = None) -> tuple[int, bytes]:
    """One request straight into the WSGI app, with an environ like gunicorn's (no test client in the figures)."""
    data = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
    path, _, query = path.partition("?")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "50000",
        "RAW_URI": path,
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_CONNECTION": "keep-alive",
        "HTTP_ACCEPT_ENCODING": "identity",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if data:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(data))
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    status: list[str] = []

    def start_response(line: str, _headers: Any, _exc: Any = None) -> Any:
        status.append(line)
        return lambda _: None

    chunks = app(environ, start_response)
    try:
        payload = b"".join(chunks)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return int(status[0].split(" ", 1)[0]), payload


def run(requests: list[Callable[[], Any]], concurrency: int) -> None:
    """The requests, ``concurrency`` at a time: each game's (its path) in one lane, in order."""
    if concurrency <= 1:
        for send in requests:
            send()
        return
    import threading

    lanes: list[list[Callable[[], Any]]] = [[] for _ in range(concurrency)]
    for send in requests:
        path = send.args[1] if isinstance(send, partial) else ""
        lanes[zlib.crc32(path.encode()) % concurrency].append(send)
    threads = [threading.Thread(target=lambda lane=lane: [send() for send in lane]) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.api_profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400, help="requests of each kind per batch")
    parser.add_argument("--rate-limits", action="store_true", help="bench.api_bench's --rate-limits budgets on")
    parser.add_argument("--profile", choices=("get", "post", "feed"), action="append", default=[], help="cProfile this kind")
    parser.add_argument("--top", type=int, default=25, help="functions printed per profile")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="requests at once (threads; greenlets with --gevent), each game's in order"
    )
    parser.add_argument(
        "--gevent", action="store_true", help="gevent's monkey-patching first, as production's gunicorn workers run the app"
    )
    parser.add_argument(
        "--hub-checks", action="store_true", help="with --gevent: leave redis-py's readiness checks on gevent's hub"
    )
    args = parser.parse_args(argv)
    if args.gevent:
        from gevent import monkey

        monkey.patch_all()
        if not args.hub_checks:
            from service.processes.gunicorn_worker import quick_readiness_checks

            quick_readiness_checks()

    from bench.api_serving import BenchRun

    keys = BenchRun.new("red7-profile")
    if not keys.answers("api_profile"):
        return 2
    env = keys.service_env(rate_limits=args.rate_limits)
    os.environ.update(env)

    from bench.api_load import plan_actions
    from service.http.app import create_app

    app = create_app()

    def call(method: str, path: str, token: str | None = None, body: Any = None, expect: int = 200) -> Any:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        status, payload = wsgi_call(app, method, path, headers, body)
        if status != expect:
            raise RuntimeError(f"{method} {path} -> {status}: {payload[:300]!r}")
        return json.loads(payload)

    batches = 5
    try:
        ana = call("POST", "/v1/players", body={"name": "Ana"}, expect=201)
        bo = call("POST", "/v1/players", body={"name": "Bo"}, expect=201)
        tokens = (ana["token"], bo["token"])

        def new_game(seed: int) -> str:
            created = call("POST", "/v1/games", tokens[0], {"seats": [{"kind": "human"}] * 2, "seed": seed}, expect=201)
            call("POST", f"/v1/games/{created['id']}/join", tokens[1], {"code": created["join_code"]})
            return str(created["id"])

        views = [new_game(1_000_000 + i) for i in range(16)]
        seed = 2_000_000
        plans: list[tuple[str, list[tuple[int, dict[str, Any]]]]] = []

        def actions(count: int) -> list[Callable[[], Any]]:
            nonlocal seed
            out: list[Callable[[], Any]] = []
            while len(out) < count:
                game_id, plan = new_game(seed), plan_actions(seed)
                seed += 1
                plans.append((game_id, plan))
                for seat, step in plan:
                    out.append(partial(call, "POST", f"/v1/games/{game_id}/actions", tokens[seat], {"steps": [step]}))
            return out[:count]

        versions = {game_id: call("GET", f"/v1/games/{game_id}", tokens[0])["version"] for game_id in views}

        def feeds(count: int) -> list[Callable[[], Any]]:
            """A long-poll answered at once: the last event, as a client that saw the one before asks for it."""
            out = []
            for i in range(count):
                game_id = views[i % len(views)]
                path = f"/v1/games/{game_id}/events?after={versions[game_id] - 1}&wait=10"
                out.append(partial(call, "GET", path, tokens[0]))
            return out

        def gets(count: int) -> list[Callable[[], Any]]:
            return [partial(call, "GET", f"/v1/games/{views[i % len(views)]}", tokens[0]) for i in range(count)]

        for send in gets(64):  # warm: imports, caches, connections
            send()
        for send in actions(32):
            send()

        from bench.api_serving import bare_app

        for method, body in (("GET", None), ("POST", {"steps": [{"type": "play", "card": "R7"}]})):
            cpu = []
            for _ in range(batches):
                started = time.process_time()
                for _ in range(args.requests):
                    wsgi_call(bare_app, method, "/bare", {"Accept": "application/json"}, body)
                cpu.append((time.process_time() - started) / args.requests * 1e6)
            print(f"{'bare ' + method + ' /bare':<28} CPU {statistics.median(cpu):7.0f} µs/request", flush=True)

        kinds: dict[str, Callable[[int], list[Callable[[], Any]]]] = {"get": gets, "post": actions, "feed": feeds}
        for kind, make in kinds.items():
            cpu: list[float] = []
            commands = trips = 0
            for _ in range(batches):
                requests = make(args.requests)
                with counting() as counts:
                    before = (counts.commands, counts.round_trips)
                    started = time.process_time()
                    run(requests, args.concurrency)
                    cpu.append((time.process_time() - started) / len(requests) * 1e6)
                    commands += counts.commands - before[0]
                    trips += counts.round_trips - before[1]
            total = batches * args.requests
            label = {"get": "GET /v1/games/{id}", "post": "POST /v1/games/{id}/actions", "feed": "GET .../events (at once)"}[kind]
            print(
                f"{label:<28} CPU {statistics.median(cpu):7.0f} µs/request (batches: "
                + ", ".join(f"{c:.0f}" for c in cpu)
                + f"); Redis {commands / total:.2f} commands, {trips / total:.2f} round trips per request",
                flush=True,
            )
        for kind in args.profile:
            requests = kinds[kind](args.requests)
            profiler = cProfile.Profile(time.perf_counter if os.environ.get("API_PROFILE_WALL") else time.process_time)
            profiler.enable()
            for send in requests:
                send()
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.top)
            print(f"\n--- cProfile of {args.requests} {kind.upper()} requests ---\n{out.getvalue()}")
    finally:
        deleted = keys.delete_keys()
        print(f"api_profile: {deleted} Redis keys of this run deleted; rate limits {'on' if args.rate_limits else 'off'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
