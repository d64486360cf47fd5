"""API benchmark: the service under gunicorn against a bare Flask endpoint served the same way.

    python -m bench.api_bench [--seconds 3] [--rounds 3] [--clients 1,16] [--rate-limits] [--floor] [--metrics]

Starts two gunicorn servers, served alike (``--worker-class``: production's gevent workers, from
``service/processes/gunicorn_config.py``, by default; or ``gthread``, with ``--threads`` each): the
Red7 service on the real Redis (``REDIS_URL``, default
``redis://127.0.0.1:6379/14``, under a key prefix of its own and with rate
limits off, or with ``--rate-limits`` charged as production charges them: see
below), and a bare Flask app that answers a small JSON.  Each is driven by client
threads, each with its own keep-alive ``http.client`` connection, at every concurrency of ``--clients``:

- ``GET /v1/games/{id}``: a seated player's view of an active game;
- ``POST /v1/games/{id}/actions``: a real, accepted step of that player's
  turn.  Every game is seeded, so the benchmark plays it ahead of time with
  the engine (the same deal, the same rules) and each client sends the next
  legal step that keeps its player in the round, for whichever seat is to
  move; a game whose round is about to end is left for the next one from a
  pool made beforehand.  Any answer but 200 is counted apart.

Each figure is printed with its ratio to the bare endpoint at the same
concurrency (GET against a bare GET, POST against a bare POST of a small
JSON body), and so is the server's CPU per request (its gunicorn processes, from /proc, over the measured
seconds): on a machine shared with other work, requests per second swing from run to run, CPU per request
less.  So each figure is measured ``--rounds`` times (3), each round beside its bare one, and the rounds pooled;
each round's ratio is printed too (on a 2-core VM one round's GET ratio was seen anywhere from 67 % to 89 %).
Targets (issue 25): GET >= 80 % of bare, POST >= 40 % of bare.  The load
generator runs on the same machine as the servers; on a small machine it
takes a share of the CPU from both alike.  At the end the servers are
stopped and every Redis key of the run is deleted.

``--floor``: each round also measures ``GET /healthz`` on the service: every hook each request of this app passes
(the Accept check, ``nosniff``, the language headers, flask-smorest's wrappers), no route work, no Redis, a small
JSON.  Its ratio to bare is the most any GET of this app can reach served this way, so it tells how much of a gap
is the framework's and how much the route's own (issue 25: with the view's own work stubbed out, GET measured 81 %).

``--metrics``: the service with its Prometheus metrics on (``RED7_METRICS_PORT``, gunicorn's multiprocess mode with
``PROMETHEUS_MULTIPROC_DIR`` in the run's directory, the master serving them), as production would run it; run the
bench with and without it to see what measuring costs (issue 41: within 10 %).

``--rate-limits``: the default limits' budgets on the service (a token's and an address's, every request charged
to both), ten times their amounts per second (6000 a token, 12000 an address): the bench's clients, all on one
address with two tokens and well over 600 requests a second, are never refused.  Leases are 1/20 of a budget, so
a process asks Redis once per 300 requests of a token here, against once per 30 with the defaults.

Why production's shape by default: it is what serves the API (``service/processes/gunicorn_config.py``), and what
``bench.load_bench`` measures.  gthread answers differently: a thread back from a Redis round trip waits for the
GIL (up to Python's 5 ms switch interval) while another thread computes, so every round trip of a request adds
to its latency there and not under gevent, whose greenlets give way only where they wait.  ``--worker-class
gthread`` measures that shape (the figures before issue 25 were taken on it).

The pieces live next to this module: ``bench.api_serving`` (gunicorn, the bare endpoint, the
keep-alive client, the cleanup of Redis) and ``bench.api_load`` (the games played ahead of
time, the client threads and their statistics); this module holds the command line and the report.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import signal
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.api_load import (
    GamePool,
    PlannedGame,
    Request,
    Result,
    ThreadState,
    make_games,
    measure,
    plan_actions,
    send_actions,
    send_bare_post,
    send_game_views,
    send_get,
)
from bench.api_serving import (
    DEFAULT_REDIS,
    ROOT,
    WORKER_CLASSES,
    BenchRun,
    KeepAliveClient,
    Server,
    bare_app,
    free_port,
    servers_running,
    start_gunicorn,
    stop,
    tail,
)

__all__ = [
    "DEFAULT_REDIS",
    "ROOT",
    "TARGETS",
    "GamePool",
    "KeepAliveClient",
    "PlannedGame",
    "Request",
    "Result",
    "Server",
    "ThreadState",
    "bare_app",
    "free_port",
    "main",
    "make_games",
    "measure",
    "plan_actions",
    "send_actions",
    "send_bare_post",
    "send_game_views",
    "send_get",
    "servers_running",
    "start_gunicorn",
    "stop",
    "table",
    "tail",
]

TARGETS = {"GET": 0.80, "POST": 0.40}
#: The rows the targets are for (any other row beside a bare one, the floor's, is shown against bare only).
TARGET_ROWS = {"GET": "GET /v1/games/{id}", "POST": "POST /v1/games/{id}/actions"}
FLOOR_ROW = "GET /healthz (the app's floor)"

# --- the report -------------------------------------------------------------------------------------------------


def table(results: list[Result], bare: dict[tuple[str, int], Result]) -> str:
    head = (
        f"{'endpoint':<32} {'clients':>7} {'req/s':>9} {'vs bare':>8} {'target':>7} {'p50 ms':>8} {'vs bare':>8} "
        f"{'p99 ms':>8} {'vs bare':>8} {'non-200':>8} {'CPU us/req':>10} {'vs bare':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        base = bare.get((r.method, r.clients))
        is_bare = base is r
        ratio = "" if is_bare or not base else f"{100 * r.rate / base.rate:.0f}%"
        target = ""
        if not is_bare and base and r.label == TARGET_ROWS[r.method]:
            goal = TARGETS[r.method]
            target = ("ok" if r.rate >= goal * base.rate else "MISS") + f" {goal:.0%}"
        p50_ratio = "" if is_bare or not base else f"x{r.percentile(50) / base.percentile(50):.1f}"
        p99_ratio = "" if is_bare or not base else f"x{r.percentile(99) / base.percentile(99):.1f}"
        non200 = sum(r.other.values())
        cpu_ratio = "" if is_bare or not base else f"{100 * base.cpu_us_per_request / r.cpu_us_per_request:.0f}%"
        lines.append(
            f"{r.label:<32} {r.clients:>7} {r.rate:>9.0f} {ratio:>8} {target:>7} {r.percentile(50):>8.2f} {p50_ratio:>8} "
            f"{r.percentile(99):>8.2f} {p99_ratio:>8} {non200:>8} {r.cpu_us_per_request:>10.0f} {cpu_ratio:>8}"
        )
    return "\n".join(lines)


def pooled(rounds: list[Result]) -> Result:
    """One figure from its rounds: every request and second of them counted together (a round the machine slowed
    weighs as much as its seconds, no more)."""
    first = rounds[0]
    out = Result(first.label, first.method, first.clients, cpu_ms=None if first.cpu_ms is None else 0.0)
    for r in rounds:
        out.ok += r.ok
        out.other.update(r.other)
        out.seconds += r.seconds
        out.latencies.extend(r.latencies)
        if out.cpu_ms is not None and r.cpu_ms is not None:
            out.cpu_ms += r.cpu_ms
    return out


def cpu_of(server: Server) -> Callable[[], float]:
    """The server's CPU so far (ms): its gunicorn master and every worker below it."""
    from bench.cost_meter import cpu_ms
    from tests.harness.deployment import descendants

    return lambda: cpu_ms([server.process.pid], descendants)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.api_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds per figure (after a warm-up)")
    parser.add_argument("--warmup", type=float, default=0.5, help="seconds of warm-up before each figure")
    parser.add_argument("--clients", default="1,16", help="concurrencies to measure, comma-separated")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of each figure beside its bare one; the figures pool them all"
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (both servers)")
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads per worker, with gthread (both servers)")
    parser.add_argument(
        "--worker-class", choices=WORKER_CLASSES, default="gevent", help="production's gevent workers, or gunicorn's threads"
    )
    parser.add_argument(
        "--floor", action="store_true", help="also GET /healthz on the service each round: every hook, no route work"
    )
    parser.add_argument(
        "--rate-limits", action="store_true", help="the default rate limits' budgets on, 10x their amounts per second (see above)"
    )
    parser.add_argument("--metrics", action="store_true", help="the service's Prometheus metrics on (see above)")
    args = parser.parse_args(argv)
    concurrencies = [int(c) for c in args.clients.split(",") if c.strip()]

    try:
        import gunicorn  # noqa: F401
    except ImportError:
        print("api_bench: gunicorn is not installed (pip install '.[deploy]')", file=sys.stderr)
        return 2

    run = BenchRun.new("red7-bench")
    if not run.answers("api_bench"):
        return 2
    run_id = run.run_id
    env = run.service_env(rate_limits=args.rate_limits)
    logdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"red7-bench-{run_id}"
    logdir.mkdir(parents=True, exist_ok=True)
    service_env = env  # the bare app's server runs without them: one master serves the port
    if args.metrics:
        multiproc = logdir / "metrics"
        multiproc.mkdir()
        metrics = {
            "RED7_METRICS_PORT": str(free_port()),
            "RED7_METRICS_HOST": "127.0.0.1",
            "PROMETHEUS_MULTIPROC_DIR": str(multiproc),
        }
        service_env = {**env, **metrics}
    servers: list[Server] = []
    interrupted = False

    def on_term(signum: int, _: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    results: list[Result] = []
    bare: dict[tuple[str, int], Result] = {}
    desyncs: Counter = Counter()
    by_round: dict[tuple[str, int], list[float]] = {}  # each round's ratio to bare
    try:
        with servers_running(servers):
            shape = (args.workers, args.threads)
            servers.append(
                start_gunicorn("service", "service.processes.wsgi:app", service_env, *shape, "/readyz", logdir, args.worker_class)
            )
            servers.append(start_gunicorn("bare", "bench.api_serving:bare_app", env, *shape, "/bare", logdir, args.worker_class))
            service, bare_server = servers
            setup = KeepAliveClient(service.port)
            players = (
                setup.json("POST", "/v1/players", {"name": "Ana"}, expect=201),
                setup.json("POST", "/v1/players", {"name": "Bo"}, expect=201),
            )
            setup.close()
            view_games = make_games(service.port, max(concurrencies), 1_000_000, players)
            print(
                f"api_bench: service on :{service.port}, bare Flask on :{bare_server.port}; gunicorn "
                + (
                    f"gevent (production's settings), {args.workers} workers"
                    if args.worker_class == "gevent"
                    else f"gthread, {args.workers} workers x {args.threads} threads each"
                )
                + f"; Redis {run.redis_url} (prefix {run.prefix}); "
                f"{os.cpu_count()} CPUs; metrics {'on' if args.metrics else 'off'}; "
                f"{args.seconds:g} s per figure after {args.warmup:g} s warm-up; rate limits "
                + (
                    f"on ({env['RED7_RATE_LIMIT_TOKEN']} a token, {env['RED7_RATE_LIMIT_ADDRESS']} an address)"
                    if args.rate_limits
                    else "off"
                ),
                flush=True,
            )

            seed = 2_000_000
            for clients in concurrencies:
                timing = (clients, args.seconds, args.warmup)
                rounds: dict[str, list[Result]] = {}
                for _ in range(args.rounds):  # each figure beside its bare one, again and again: the machine's swings
                    for r in (
                        measure("bare GET /bare", "GET", bare_server.port, *timing, send_get("/bare"), cpu_of(bare_server)),
                        measure("GET /v1/games/{id}", "GET", service.port, *timing, send_game_views(view_games), cpu_of(service)),
                    ):
                        rounds.setdefault(r.label, []).append(r)
                    if args.floor:
                        r = measure(FLOOR_ROW, "GET", service.port, *timing, send_get("/healthz"), cpu_of(service))
                        rounds.setdefault(r.label, []).append(r)
                    bare_post = measure(
                        "bare POST /bare", "POST", bare_server.port, *timing, send_bare_post(), cpu_of(bare_server)
                    )
                    rounds.setdefault(bare_post.label, []).append(bare_post)
                    # Enough planned steps for the service to go as fast as the bare endpoint did.
                    steps_per_game = statistics.mean(len(plan_actions(seed + i)) for i in range(20))
                    needed = bare_post.rate * (args.seconds + args.warmup) * 1.2 + 20 * clients
                    count = max(4 * clients, math.ceil(needed / max(1.0, steps_per_game)))
                    started = time.perf_counter()
                    pool = GamePool(make_games(service.port, count, seed, players))
                    seed += count
                    print(
                        f"api_bench: {count} games made for POST at {clients} client(s) "
                        f"({steps_per_game:.1f} planned steps each, {time.perf_counter() - started:.1f} s)",
                        flush=True,
                    )
                    r = measure(
                        "POST /v1/games/{id}/actions", "POST", service.port, *timing, send_actions(pool, desyncs), cpu_of(service)
                    )
                    if r.seconds < args.seconds * 0.9:
                        print(f"api_bench: the game pool ran dry after {r.seconds:.1f} s at {clients} client(s)", flush=True)
                    rounds.setdefault(r.label, []).append(r)
                beside_bare = {
                    "GET": ("bare GET /bare", [TARGET_ROWS["GET"], *([FLOOR_ROW] if args.floor else [])]),
                    "POST": ("bare POST /bare", [TARGET_ROWS["POST"]]),
                }
                for method, (base_label, labels) in beside_bare.items():
                    bare[(method, clients)] = pooled(rounds[base_label])
                    results.append(bare[(method, clients)])
                    for label in labels:
                        results.append(pooled(rounds[label]))
                        by_round[(label, clients)] = [
                            o.rate / b.rate if b.rate else 0.0 for b, o in zip(rounds[base_label], rounds[label], strict=True)
                        ]
    except KeyboardInterrupt:
        interrupted = True
    finally:
        deleted = run.delete_keys()
        for server in servers:
            log = tail(server.log).strip()
            if log and ("Traceback" in log or "ERROR" in log):
                print(f"api_bench: {server.name} logged errors:\n{log}", file=sys.stderr)
        for path in logdir.glob("*.log"):
            path.unlink()
        if args.metrics:
            shutil.rmtree(logdir / "metrics", ignore_errors=True)
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
            ours = next(r for r in results if r.label == TARGET_ROWS[method] and r.clients == clients)
            base = bare[(method, clients)]
            verdict = "meets" if ours.rate >= goal * base.rate else "MISSES"
            each = ", ".join(f"{ratio:.0%}" for ratio in by_round[(ours.label, clients)])
            print(
                f"{method} at {clients:>2} client(s): {ours.rate / base.rate:.0%} of bare (rounds: {each}), "
                f"{verdict} the {goal:.0%} target"
            )
    if args.floor:
        for clients in concurrencies:
            floor = next(r for r in results if r.label == FLOOR_ROW and r.clients == clients)
            each = ", ".join(f"{ratio:.0%}" for ratio in by_round[(FLOOR_ROW, clients)])
            print(
                f"floor at {clients:>2} client(s): GET /healthz {floor.rate / bare[('GET', clients)].rate:.0%} of bare "
                f"(rounds: {each}): what any GET of this app reaches at most, served this way"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
