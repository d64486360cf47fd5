"""What measuring a request costs: the Prometheus hooks' CPU per request (issue 41: metrics within 10 % of none).

    python -m bench.metrics_bench [--requests 20000] [--rounds 5]

One small Flask app (a route with a template, a JSON answer), called through werkzeug's test client so that no
network nor server is measured: without the metrics, with them in one process (prometheus-client's registry in
memory, as ``red7 serve`` and ``red7 worker`` keep it), and with them in gunicorn's multiprocess mode (each value an
mmap'd file in ``PROMETHEUS_MULTIPROC_DIR``, as the API's gunicorn workers keep them; a child process, since
prometheus-client reads that setting when imported).  CPU time (``time.process_time``) per request, the best of
``--rounds``, and the difference: what :func:`service.http.metrics.measure_requests` adds to every request.  The
end-to-end figure beside a real service: ``python -m bench.api_bench --metrics`` against the same without.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def per_request(measured: bool, requests: int, rounds: int) -> float:
    """The best round's CPU seconds per request of a small app, with or without the metrics hooks."""
    from flask import Flask, jsonify

    from service.http.metrics import measure_requests

    app = Flask("bench")

    @app.get("/v1/games/<game_id>")
    def view(game_id: str):  # type: ignore[no-untyped-def]
        return jsonify(id=game_id, version=7)

    if measured:
        measure_requests(app)
    client = app.test_client()
    for _ in range(500):  # warm
        client.get("/v1/games/g_1")
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for i in range(requests):
            client.get(f"/v1/games/g_{i % 100}")
        best = min(best, (time.process_time() - started) / requests)
    return best


def _child(mode: str, requests: int, rounds: int) -> float:
    """Measure ``mode`` in a child process (multiprocess mode must be set before prometheus-client is imported)."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="red7-metrics-bench-") as directory:
        if mode == "multiprocess":
            env["PROMETHEUS_MULTIPROC_DIR"] = directory
        else:
            env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        argv = [sys.executable, "-m", "bench.metrics_bench", "--child", mode]
        argv += ["--requests", str(requests), "--rounds", str(rounds)]
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", choices=("off", "memory", "multiprocess"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps({"seconds": per_request(args.child != "off", args.requests, args.rounds)}))
        return
    figures = {mode: _child(mode, args.requests, args.rounds) for mode in ("off", "memory", "multiprocess")}
    off = figures["off"]
    print(f"metrics_bench: {args.requests} requests x {args.rounds} rounds, best round, CPU per request")
    for mode, seconds in figures.items():
        extra = "" if mode == "off" else f"  (+{(seconds - off) * 1e6:.1f} µs, +{(seconds / off - 1) * 100:.1f} %)"
        print(f"  metrics {mode:<12} {seconds * 1e6:8.1f} µs{extra}")


if __name__ == "__main__":
    main()
