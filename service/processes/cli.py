"""The ``red7`` command: ``serve``, ``worker``, ``replay``, ``migrate``, ``ratings``, ``archive``, ``stats``, ``mod``
(service/processes/mod_cli.py), and the engine's ``demo``."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any


def local_base_url(host: str, port: int) -> str:
    """The URL a client on this machine reaches ``red7 serve --host host --port port`` at."""
    if host in ("", "0.0.0.0", "::"):  # every interface: this machine reaches it on loopback
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def port_taken(host: str, port: int) -> OSError | None:
    """Why ``red7 serve`` could not listen on ``host:port`` (another program holds it, say), or None: checked before
    anything starts, so that the answer names ``--port`` rather than werkzeug's exit in the middle of the start."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as werkzeug binds: a port in TIME_WAIT is free
        try:
            probe.bind((host or "0.0.0.0", port))
        except OSError as exc:
            return exc
    return None


def _serve(args: argparse.Namespace) -> int:
    taken = port_taken(args.host, args.port)
    if taken is not None:
        print(
            f"red7: cannot listen on {args.host}:{args.port} ({taken.strerror or taken}): another program may hold "
            f"that port. Pick another with --port, e.g. `red7 serve --port {args.port + 1}` "
            f"(or `python3 dev.py run --port {args.port + 1}`).",
            file=sys.stderr,
        )
        return 2
    from service.common.config import Settings
    from service.http.app import create_app
    from service.http.servers import ProblemRequestHandler
    from service.runtime import build_runtime
    from workers.runner import start_embedded

    overrides = {"redis_url": ""} if args.embedded else {}
    settings = Settings.from_env(None, **overrides)
    base = local_base_url(args.host, args.port)
    if settings.embedded and not settings.public_url:  # its workers run here, so they link to this very server
        settings = replace(settings, public_url=base)
    if settings.embedded and not settings.vapid_private_key:  # web push works out of the box, until it stops
        from service.application.push import new_vapid_key, public_key_of

        settings = replace(settings, vapid_private_key=new_vapid_key())
        logging.getLogger("red7.settings").warning(
            "web push: a TEMPORARY VAPID key for this run, public key %s (subscriptions made with it end when it does); "
            "to keep one, make it with `red7 vapid` and set RED7_VAPID_PRIVATE_KEY (a private key is never logged)",
            public_key_of(settings.vapid_private_key),
        )
    runtime = build_runtime(settings)
    app = create_app(runtime)
    if settings.metrics_port:
        from service.processes.metrics import serve_metrics

        serve_metrics(settings.metrics_port, settings.metrics_host, runtime)
        print(f"red7: metrics on port {settings.metrics_port} (/metrics)")
    if settings.embedded:
        logging.getLogger("rq").setLevel(logging.WARNING)  # RQ logs each job, and each idle worker leaving, at INFO
        start_embedded(runtime)
        print("red7: embedded mode — an in-memory store (fakeredis) and in-process workers.")
        print("red7: NOTHING PERSISTS: every player and game is gone when this process stops.")
        print("red7: set REDIS_URL (and run `red7 worker`) for a real deployment.")
    else:
        queue = f" (the queue at {settings.queue_url})" if settings.queue_url else ""
        print(f"red7: using Redis at {settings.redis_url}{queue}; run `red7 worker` for AI seats, scoring and deadlines.")
    print(f"red7: play in a browser at {base}/play")
    print(f"red7: serving {base}/v1  (API docs: {base}/v1/docs, spec: {base}/v1/openapi.json)")
    # werkzeug's server, answering what it refuses by itself (a header too large ...) as problem+json too
    app.run(host=args.host, port=args.port, threaded=True, use_reloader=False, request_handler=ProblemRequestHandler)
    return 0


#: What a ``red7 worker`` may run (``--kind``; ``workers.runner.run_forever``).
KINDS = ("all", "games", "analyses")


def _at_least_one(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return number


def _worker(args: argparse.Namespace) -> int:
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime
    from workers.runner import run_forever

    settings = deployment_settings("worker", "the embedded store lives inside `red7 serve --embedded`.")
    if settings is None:
        return 2
    if not settings.public_url:
        print("red7 worker: RED7_PUBLIC_URL is not set, so webhooks carry only the path of a game (game_url).", file=sys.stderr)
    # It serves no views: a watch of game changes would only make Redis keep a backlog for it (changes.py).
    runtime = build_runtime(replace(settings, watch_changes=False))
    if settings.metrics_port:
        from service.processes.metrics import serve_metrics

        serve_metrics(settings.metrics_port, settings.metrics_host, runtime)
    run_forever(runtime, burst=args.burst, threads=args.threads, kind=args.kind)
    return 0


def _load_replay(source: str) -> dict[str, Any]:
    """A replay from a file, or from a game id in the store at REDIS_URL."""
    import json
    from pathlib import Path

    path = Path(source)
    if path.exists():
        document: dict[str, Any] = json.loads(path.read_text())
        return document
    from service.common.config import Settings
    from service.runtime import build_runtime

    settings = Settings.from_env()
    if settings.embedded:
        raise SystemExit(f"{source!r} is not a file, and without REDIS_URL there is no store to find a game in.")
    games = build_runtime(settings).games
    return games.replay(games.load(source), None)


def _replay(args: argparse.Namespace) -> int:
    import json

    from replays.render import lines
    from replays.verify import verify_replay

    document = _load_replay(args.source)
    if args.action == "show":
        for line in lines(document):
            print(line)
        return 0
    if args.action == "export":
        text = json.dumps(document, indent=1)
        if args.output:
            with open(args.output, "w") as file:
                file.write(text)
        else:
            print(text)
        return 0
    verdict = verify_replay(document)
    if verdict.ok:
        print(
            f"OK: {document['game_id']}: {verdict.steps} steps replayed through today's engine; "
            "states, outcome, deals and hash match."
        )
        if verdict.retold:
            print(f"  ({verdict.retold} steps' sentences read otherwise than today's words; the facts are the same)")
        return 0
    print(f"FAILED: {document.get('game_id')}:")
    for problem in verdict.problems:
        print(f"  - {problem}")
    return 1


def _migrate(args: argparse.Namespace) -> int:
    from service.application.games import GameService
    from service.processes.deployed import deployment_settings
    from service.storage.connections import store_client
    from service.storage.events import EventStore
    from service.storage.migrate import migrate
    from service.storage.players import PlayerStore

    settings = deployment_settings("migrate", "the store to move to the cluster key layout.")
    if settings is None:
        return 2
    store = store_client(settings.redis_url, settings.redis_max_connections)  # the stores only: no queue needed
    print(f"red7 migrate: moving the players under {settings.key_prefix!r} (REDIS_URL) to player:{{<id>}} ...")
    report = migrate(store, settings.key_prefix, limit=args.players, progress=lambda line: print(f"red7 migrate: {line}"))
    print(f"red7 migrate: {report.summary()}")
    games = GameService(EventStore(store, settings.key_prefix), PlayerStore(store, settings.key_prefix))
    looked, in_play = games.index_games_in_play()  # what a queue Redis that lost its data is rebuilt from
    print(f"red7 migrate: {in_play} of {looked} games indexed as in play")
    if settings.compact_after > 0 and not args.players:
        from datetime import UTC, datetime, timedelta

        from service.application.compaction import compact_over

        older_than = datetime.now(UTC) - timedelta(seconds=settings.compact_after)
        print(f"red7 migrate: compacting the games over before {older_than:%Y-%m-%d %H:%M:%S} UTC (RED7_COMPACT_AFTER) ...")
        compacted = compact_over(EventStore(store, settings.key_prefix), older_than, lambda line: print(f"red7 migrate: {line}"))
        print(f"red7 migrate: {compacted.summary()}")
    return 0


def _ratings(args: argparse.Namespace) -> int:
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime

    settings = deployment_settings("ratings", "the store whose game streams and ladders to read.")
    if settings is None:
        return 2
    ratings = build_runtime(settings).ratings
    print("red7 ratings rebuild: folding every finished rated game of the streams, in the order they finished ...")
    report = ratings.rebuild(write=args.write)
    print(f"red7 ratings rebuild: {report.games} finished rated games")
    if report.hidden:
        print(f"red7 ratings rebuild: {len(set(report.hidden))} deleted accounts taken off the leaderboards")
    for ladder, (games, rebuilt, stored) in report.ladders.items():
        verdict = "identical" if rebuilt == stored else "DIFFERENT"
        written = " (the rebuilt ladder written in its place)" if ladder in report.written else ""
        print(f"  {ladder}: {games} games; rebuilt sha256:{rebuilt}; stored sha256:{stored}: {verdict}{written}")
    differing = [ladder for ladder, (_, rebuilt, stored) in report.ladders.items() if rebuilt != stored]
    return 0 if all(ladder in report.written for ladder in differing) else 1


def _archive(args: argparse.Namespace) -> int:
    """``red7 archive rebuild [--write]``: the players' archives made again from the streams and compared;
    ``red7 archive dump YYYY-MM -o FILE``: every finished game of a month, a replay a line (gzip if FILE ends .gz)."""
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime

    settings = deployment_settings("archive", "the store whose game streams and archives to read.")
    if settings is None:
        return 2
    archive = build_runtime(replace(settings, watch_changes=False)).archive
    assert archive is not None
    if args.action == "rebuild":
        print("red7 archive rebuild: every finished game of the streams, indexed again for each of its players ...")
        report = archive.rebuild(write=args.write)
        print(f"red7 archive rebuild: {report.games} finished games; {report.players} archives compared")
        verdict = "identical" if report.identical else f"{len(report.different)} DIFFERENT"
        written = f" ({len(report.written)} written anew)" if report.written else ""
        print(f"red7 archive rebuild: {verdict}{written}")
        return 0 if report.identical or args.write else 1
    if not args.month or not args.output:
        print("red7 archive dump needs the month (YYYY-MM) and --output FILE", file=sys.stderr)
        return 2
    import gzip

    from service.application.archive import month_bounds

    try:
        month_bounds(args.month)
    except ValueError as error:
        print(f"red7 archive dump: {error}", file=sys.stderr)
        return 2
    count = 0
    with gzip.open(args.output, "wt", encoding="utf-8") if args.output.endswith(".gz") else open(args.output, "w") as file:
        for line in archive.month(args.month):
            file.write(line)
            count += 1
    print(f"red7 archive dump: {count} finished games of {args.month} written to {args.output}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    """``red7 stats rebuild [--write]``: the statistics counted again from the game streams and compared, group by
    group (each player's and everyone's by variant and player count), byte for byte."""
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime

    settings = deployment_settings("stats", "the store whose game streams and statistics to read.")
    if settings is None:
        return 2
    statistics = build_runtime(replace(settings, watch_changes=False)).statistics
    assert statistics is not None
    print("red7 stats rebuild: every finished game of the streams, counted again ...")
    report = statistics.rebuild(write=args.write)
    compared = f"{report.groups} groups of everyone's and {report.players} players' compared"
    print(f"red7 stats rebuild: {report.games} finished games; {compared}")
    print(f"red7 stats rebuild: rebuilt sha256:{report.rebuilt_sha256}; stored sha256:{report.stored_sha256}")
    verdict = "identical" if report.identical else f"{len(report.different)} DIFFERENT"
    written = f" ({len(report.written)} written anew)" if report.written else ""
    print(f"red7 stats rebuild: {verdict}{written}")
    for name in report.different[:20]:
        print(f"  differs: {name}")
    return 0 if report.identical or args.write else 1


def _vapid(args: argparse.Namespace) -> int:
    """A new key pair, as lines a shell or an env file takes: the private key for ``RED7_VAPID_PRIVATE_KEY`` (printed
    on request to the terminal that asked, never to a log), and the public key browsers will subscribe with."""
    from service.application.push import new_vapid_key, public_key_of

    key = new_vapid_key()
    print(f"RED7_VAPID_PRIVATE_KEY={key}")
    print(f"# public key (getPushKey answers it): {public_key_of(key)}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from engine.demo import main as demo_main

    demo_main(players=args.players, seed=args.seed)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="red7", description="Red7 game service")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--embedded", action="store_true", help="in-memory store and in-process workers, even if REDIS_URL is set")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(run=_serve)
    worker = sub.add_parser("worker", help="run background jobs (AI seats, scoring, deadlines, webhooks) on REDIS_URL")
    worker.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    worker.add_argument(
        "--threads", type=_at_least_one, default=None, help="jobs run at once, each in a thread (default: RED7_WORKER_THREADS, 8)"
    )
    worker.add_argument(
        "--kind",
        choices=KINDS,
        default="all",
        help="what it runs: the games' jobs and decision analyses (all), the games' jobs alone (games), or decision "
        "analyses alone (analyses: RED7_ANALYSIS_THREADS of them, at least one, each in a child process at the lowest "
        "CPU priority)",
    )
    worker.set_defaults(run=_worker)
    replay = sub.add_parser("replay", help="show, verify or export a replay (a file, or a game id on REDIS_URL)")
    replay.add_argument("action", choices=("show", "verify", "export"))
    replay.add_argument("source", help="a replay file (JSON) or a game id")
    replay.add_argument("-o", "--output", help="export: write here instead of standard output")
    replay.set_defaults(run=_replay)
    migrate = sub.add_parser(
        "migrate",
        help="move the store at REDIS_URL to the Redis Cluster key layout (stop the service first; safe to rerun), then "
        "compact the games over for longer than RED7_COMPACT_AFTER",
    )
    migrate.add_argument("--players", type=int, metavar="N", help="move at most N players, then stop (run it again to go on)")
    migrate.set_defaults(run=_migrate)
    ratings = sub.add_parser("ratings", help="the ladders on REDIS_URL: rebuild them from the game streams and compare")
    ratings.add_argument("action", choices=("rebuild",))
    ratings.add_argument(
        "--write",
        action="store_true",
        help="store the rebuilt ladder in place of one that differs (else: compare only; exit 1 if any differs)",
    )
    ratings.set_defaults(run=_ratings)
    archive = sub.add_parser(
        "archive",
        help="players' archives on REDIS_URL: rebuild them from the game streams and compare; dump a month's finished games",
    )
    archive.add_argument("action", choices=("rebuild", "dump"))
    archive.add_argument("month", nargs="?", help="dump: the month, YYYY-MM (UTC, by when each game finished)")
    archive.add_argument("-o", "--output", help="dump: the file to write, a replay a line (gzip-compressed if it ends .gz)")
    archive.add_argument(
        "--write", action="store_true", help="rebuild: store the rebuilt archive in place of one that differs (else compare only)"
    )
    archive.set_defaults(run=_archive)
    stats = sub.add_parser("stats", help="statistics across games on REDIS_URL: rebuild them from the game streams and compare")
    stats.add_argument("action", choices=("rebuild",))
    stats.add_argument(
        "--write", action="store_true", help="store the rebuilt statistics in place of those that differ (else compare only)"
    )
    stats.set_defaults(run=_stats)
    vapid = sub.add_parser("vapid", help="make a VAPID key pair for web push (printed, kept nowhere)")
    vapid.set_defaults(run=_vapid)
    demo = sub.add_parser("demo", help="watch bots play a game in the terminal")
    demo.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    demo.add_argument("--seed", type=int)
    demo.set_defaults(run=_demo)
    from service.processes import mod_cli

    mod_cli.add_parser(sub)  # red7 mod: the filter's words, the moderator role, moderation's actions
    from service.processes import apps_cli

    apps_cli.add_parser(sub)  # red7 apps: the apps that may ask players to sign in with Red7 (OAuth)
    from service.processes import admin_cli

    admin_cli.add_parser(sub)  # red7 admin: games, queues, failed jobs, players (issue 41)
    args = parser.parse_args(argv)
    from service.common import logformat

    try:
        logformat.configure(os.environ.get("RED7_LOG_FORMAT", "text"))
    except ValueError as error:
        print(f"red7: {error}", file=sys.stderr)
        return 2
    if args.command in ("serve", "worker"):  # the processes that answer requests and run jobs: their spans
        from service.processes import tracing

        try:
            tracing.configure(os.environ.get("RED7_OTLP_ENDPOINT", ""), f"red7-{'api' if args.command == 'serve' else 'worker'}")
        except tracing.TracingUnavailable as error:
            print(f"red7: {error}", file=sys.stderr)
            return 2
    run: Callable[[argparse.Namespace], int] = args.run  # one of the commands above (set_defaults)
    from service.common.config import SettingsError
    from service.storage.connections import BadRedisUrl

    try:
        return run(args)
    except (BadRedisUrl, SettingsError) as error:  # a setting that cannot work: said plainly, before anything starts
        print(f"red7: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
