"""Load: people playing against AIs on the production shape, and what each action costs every process.

    python -m bench.load_bench                      # 16 and 64 clients, 20 s each
    python -m bench.load_bench --clients 16 --seconds 10

A redis-server of its own (AOF, ``appendfsync always`` as docker-compose
ships it), gunicorn as the image runs it, two ``red7 worker`` processes.
Each client is one human against a greedy and a random AI (advanced rules,
card actions), with ``If-Match`` and ``Idempotency-Key`` on every action, and
waits for the AIs with a long-poll, as a frontend does: by default the view's
(``GET /v1/games/{id}?wait=10`` with ``If-None-Match``, from the view the action
answered: the new view in one request, as the README's quick start waits), or
with ``--wait events`` the events' long-poll and then a view (the way before the
view could wait).  Printed per level:

- human actions per second (accepted, 200);
- p50/p95/p99 of a view (GET; with ``--wait view`` only the plain views: a game's
  first, and after a refused action), an action (POST), and the wait for the AIs
  (from the action that hands them the turn until the view shows the human to move);
- how many requests of each kind an accepted action took (views, actions, long-polls);
- CPU per accepted action of redis-server, gunicorn (all its processes), the
  workers and this load generator (its 2-core machine is shared with it), from /proc.

Issue 11's targets at 64 clients: ≥ 300 actions/s, view p99 ≤ 100 ms, AI turn p99 ≤ 1.5 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import requests

from bench.cost_meter import cpu_ms
from tests.faults.players import pick
from tests.harness.deployment import Client, Processes, descendants, processes, redis_server


@dataclass
class Timings:
    views: list[float] = field(default_factory=list)
    actions: list[float] = field(default_factory=list)
    ai_waits: list[float] = field(default_factory=list)
    accepted: int = 0
    refused: int = 0
    long_polls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def player(base: str, stop: threading.Event, measuring: threading.Event, timings: Timings, wait: str) -> None:
    signed = Client(base).sign_up(f"p{uuid.uuid4().hex[:6]}")
    # Keep-alive connections, as browsers and apps keep them; no log of answers (the fault tests' Client keeps one).
    me = Client(base, signed.token, signed.player_id, session=requests.Session(), record=False)
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
    game = me.json("POST", "/games", expect=201, json={"seats": seats, "variant": "advanced", "action_rules": True})
    waiting_since: float | None = None
    view: dict | None = None  # the view this client holds (with --wait view: the POST's answer, or a long-poll's)
    while not stop.is_set():
        if view is None:
            started = time.perf_counter()
            response = me.call("GET", f"/games/{game['id']}")
            took = time.perf_counter() - started
            if response is None or response.status_code != 200:
                time.sleep(0.1)
                continue
            view = response.json()
            if measuring.is_set():
                with timings.lock:
                    timings.views.append(took)
        if view["status"] == "finished":
            game = me.json("POST", "/games", expect=201, json={"seats": seats, "variant": "advanced", "action_rules": True})
            waiting_since, view = None, None
            continue
        if not view["legal_steps"]:
            if waiting_since is None:
                waiting_since = time.perf_counter()
            if wait == "view":  # the view's long-poll: the new view as soon as the AIs moved, in one request
                headers = {"If-None-Match": f'"{view["version"]}"'}
                polled = me.call("GET", f"/games/{game['id']}?wait=10", headers=headers, timeout=20)
                if polled is None or polled.status_code not in (200, 304):
                    view = None
                elif polled.status_code == 200:
                    view = polled.json()
            else:  # the events' long-poll, then the view
                me.call("GET", f"/games/{game['id']}/events?after={view['version']}&wait=10", timeout=20)
                view = None
            if measuring.is_set():
                with timings.lock:
                    timings.long_polls += 1
            continue
        if waiting_since is not None and measuring.is_set():
            with timings.lock:
                timings.ai_waits.append(time.perf_counter() - waiting_since)
        waiting_since = None
        headers = {"If-Match": f'"{view["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
        started = time.perf_counter()
        answer = me.call("POST", f"/games/{game['id']}/actions", json={"steps": [pick(view["legal_steps"])]}, headers=headers)
        took = time.perf_counter() - started
        if measuring.is_set():
            with timings.lock:
                timings.actions.append(took)
                if answer is not None and answer.status_code == 200:
                    timings.accepted += 1
                else:
                    timings.refused += 1
        answered = answer.json() if answer is not None and answer.status_code == 200 else None
        if answered is not None and not answered["legal_steps"]:
            waiting_since = time.perf_counter()
        view = answered if wait == "view" else None


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    cuts = statistics.quantiles(values, n=100)
    return f"{statistics.median(values) * 1000:7.1f} {cuts[94] * 1000:8.1f} {cuts[98] * 1000:8.1f}"


def kind_of(args: list[str]) -> str:
    """Which kind of process a command line starts: gunicorn, a ``red7 worker``, or something else."""
    if "gunicorn" in args:
        return "gunicorn"
    if args[-1:] == ["worker"] and "service.processes.cli" in args:
        return "workers"
    return "other"


def run_level(
    deployment: Processes, base: str, redis_pid: int, clients: int, seconds: float, warmup: float, wait: str = "view"
) -> None:
    stop, measuring, timings = threading.Event(), threading.Event(), Timings()
    threads = [threading.Thread(target=player, args=(base, stop, measuring, timings, wait), daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(warmup)

    def started(kind: str) -> list[int]:
        # gunicorn's command line says "--workers" too: a process is told by its program, not by a word in it
        return [p.pid for p in deployment.started if kind_of(list(map(str, p.args))) == kind]

    kinds = {
        "redis-server": [redis_pid],
        "gunicorn": started("gunicorn"),
        "workers": started("workers"),
        "this load generator": [os.getpid()],
    }
    below = {kind: descendants if kind != "this load generator" else (lambda _: []) for kind in kinds}  # it started the others
    before = {kind: cpu_ms(pids, below[kind]) / 1000 for kind, pids in kinds.items()}
    measuring.set()
    started = time.monotonic()
    time.sleep(seconds)
    measuring.clear()
    elapsed = time.monotonic() - started
    after = {kind: cpu_ms(pids, below[kind]) / 1000 for kind, pids in kinds.items()}
    stop.set()
    for thread in threads:
        thread.join(30)
    accepted = max(timings.accepted, 1)
    print(
        f"\n{clients} clients, {elapsed:.0f} s: {timings.accepted / elapsed:.1f} human actions/s accepted "
        f"({timings.refused} refused)"
    )
    print(f"{'':22} {'p50 ms':>7} {'p95 ms':>8} {'p99 ms':>8}   n")
    print(f"{'GET view':22} {percentiles(timings.views)}   {len(timings.views)}")
    print(f"{'POST action':22} {percentiles(timings.actions)}   {len(timings.actions)}")
    print(f"{'wait for the AIs':22} {percentiles(timings.ai_waits)}   {len(timings.ai_waits)}")
    made = len(timings.views) + len(timings.actions) + timings.long_polls
    print(
        f"requests per accepted action: {made / accepted:.2f} ({len(timings.views) / accepted:.2f} views, "
        f"{len(timings.actions) / accepted:.2f} actions, {timings.long_polls / accepted:.2f} long-polls)"
    )
    print(
        "CPU per accepted action: "
        + ", ".join(f"{kind} {(after[kind] - before[kind]) / accepted * 1000:.1f} ms" for kind in kinds)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, action="append", help="clients per level (default: 16 and 64)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=2, help="red7 worker processes")
    parser.add_argument("--worker-threads", type=int, default=None, help="jobs each runs at once (default: the service's)")
    parser.add_argument(
        "--wait",
        choices=("view", "events"),
        default="view",
        help="how a client waits for the AIs: the view's long-poll (default), or the events' and then the view",
    )
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="red7-load-"))
    # Sign-ups come from one address here, as fast as the clients start: their limit is raised; the rest stay on.
    signups = {"RED7_RATE_LIMIT_SIGNUP": "100000 per minute"}
    with redis_server(directory) as server, processes(directory, server.url, **signups) as deployment:
        base = deployment.api()
        threads = {"RED7_WORKER_THREADS": str(args.worker_threads)} if args.worker_threads else {}
        for _ in range(args.workers):
            deployment.worker(**threads)
        assert server.process is not None
        each = f"{args.worker_threads} job thread(s) each" if args.worker_threads else "the default job threads"
        print(f"load: gunicorn (gevent, 2 processes), {args.workers} red7 workers ({each}), redis-server with AOF always")
        how = "the view's long-poll" if args.wait == "view" else "the events' long-poll, then the view"
        print(f"clients wait for the AIs with {how}")
        for clients in args.clients or [16, 64]:
            run_level(deployment, base, server.process.pid, clients, args.seconds, args.warmup, args.wait)
    shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
