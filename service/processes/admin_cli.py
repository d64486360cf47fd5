"""``red7 admin``: what an operator reads and does in a running deployment (issue 41), each printing JSON with ``--json``.

``red7 admin game GAME``                 a game: its state, the jobs it is owed and where they are, its agenda entry
                                        and queue shard
``red7 admin reoffer GAME``              offer a stuck game's owed jobs again (those on their way are left alone)
``red7 admin queues``                    each queue shard's queues: depth, oldest job's age, started, scheduled, failed
``red7 admin failed``                    the jobs that failed for good, on every shard, oldest first
``red7 admin retry JOB [JOB ...]``        failed jobs queued again (``--all``: every failed job)
``red7 admin player PLAYER``             a player: tokens by label, games in play, ratings (PLAYER: a handle or an id)
``red7 admin revoke PLAYER TOKEN``       a token revoked (TOKEN: its id, as ``player`` lists it)

Each reads REDIS_URL.  Every command that changes something says so in a log line (``red7.admin``) with who ran it:
``--by``, else the login running the command.
"""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import sys
from typing import Any

from service.jobqueue import inspect
from service.runtime import Runtime

log = logging.getLogger("red7.admin")

#: The queues of a shard by their role.
ROLES = ("games", "webhooks", "push")


def add_parser(sub: Any) -> None:
    """``admin`` and its commands, on the ``red7`` command's subparsers."""
    admin = sub.add_parser("admin", help="operate a deployment on REDIS_URL: games, queues, failed jobs, players")
    admin.add_argument("--json", action="store_true", help="print JSON (else readable lines)")
    admin.add_argument("--by", default=None, help="who runs it, for the log of what changed (default: your login)")
    commands = admin.add_subparsers(dest="admin_command", required=True)
    commands.add_parser("game", help="a game's state, owed jobs, agenda entry and shard").add_argument("game")
    commands.add_parser("reoffer", help="offer a stuck game's owed jobs again").add_argument("game")
    commands.add_parser("queues", help="each queue shard's health")
    commands.add_parser("failed", help="the jobs that failed for good, oldest first")
    retry = commands.add_parser("retry", help="queue failed jobs again")
    retry.add_argument("jobs", nargs="*")
    retry.add_argument("--all", action="store_true", help="every failed job on every shard")
    commands.add_parser("player", help="a player's tokens, games and ratings").add_argument("player")
    revoke = commands.add_parser("revoke", help="revoke one of a player's tokens")
    revoke.add_argument("player")
    revoke.add_argument("token", help="the token's id (red7 admin player lists them)")
    admin.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime

    settings = deployment_settings("admin", "the deployment to operate.")
    return 2 if settings is None else run(args, build_runtime(settings))


def run(args: argparse.Namespace, runtime: Runtime) -> int:
    """Do what ``args`` ask on ``runtime``; the exit status (1: not found, 2: nothing done)."""
    from service.common.errors import NotFound, Refused

    command = args.admin_command
    by = args.by or getpass.getuser()
    try:
        if command == "game":
            return _say(args, game(runtime, args.game))
        if command == "reoffer":
            queued = reoffer(runtime, args.game)
            log.warning("admin reoffer of game %s by %s: %s", args.game, by, "queued" if queued else "nothing queued")
            return _say(args, {"game": args.game, "queued": queued})
        if command == "queues":
            return _say(args, queues(runtime))
        if command == "failed":
            return _say(args, failed(runtime))
        if command == "retry":
            retried = retry(runtime, [job["id"] for job in failed(runtime)] if args.all else args.jobs)
            log.warning("admin retry by %s: %s", by, ", ".join(retried) or "none")
            _say(args, {"retried": retried})
            return 0 if retried else 1
        if command == "player":
            return _say(args, player(runtime, args.player))
        if command == "revoke":
            who = runtime.accounts.find(args.player)
            runtime.accounts.revoke_token(who, args.token)
            log.warning("admin revoke of token %s of player %s by %s", args.token, who.id, by)
            return _say(args, {"player": who.id, "revoked": args.token})
    except NotFound as missing:
        print(f"red7 admin: {missing.detail}", file=sys.stderr)
        return 1
    except Refused as refused:
        print(f"red7 admin: {refused.detail}", file=sys.stderr)
        return 2
    return 2


def _say(args: argparse.Namespace, found: Any) -> int:
    """Print ``found``: as JSON with ``--json``, else a line a member (a list: a line an item)."""
    if args.json:
        print(json.dumps(found, default=str))
    elif isinstance(found, list):
        for item in found:
            print(" ".join(f"{k}={v}" for k, v in item.items()))
    else:
        for key, value in found.items():
            print(f"{key}: {json.dumps(value, default=str) if isinstance(value, (dict, list)) else value}")
    return 0


def game(runtime: Runtime, game_id: str) -> dict[str, Any]:
    """A game as an operator looks at it: its state, what it is owed and where each job is, its agenda entry."""
    loaded = runtime.games.load(game_id)
    shard = runtime.shard_of(game_id)
    dispatcher = shard.dispatcher
    owed = []
    for item in runtime.games.needs(loaded):
        job_id = item.job_id(dispatcher.namespace)
        state = inspect.job_state(dispatcher.queue_of(item), job_id)
        owed.append({"job": item.job, "id": job_id, "at": item.at, "status": state["status"] if state else "none"})
    look = shard.agenda.when(game_id)
    return {
        "id": loaded.id,
        "status": loaded.status,
        "version": loaded.version,
        "updated_at": loaded.updated_at,
        "seats": [{"kind": s.kind, "player_id": s.player_id, "level": s.level} for s in loaded.seats],
        "seat_to_move": loaded.seat_to_move(),
        "turn_started_at": loaded.turn_started_at,
        "shard": shard.index,
        "agenda_ms": look,
        "owed": owed,
    }


def reoffer(runtime: Runtime, game_id: str) -> bool:
    """Offer the game's owed jobs again (as the ticker's look does); whether one was queued now."""
    loaded = runtime.games.load(game_id)
    return runtime.shard_of(game_id).dispatcher.reoffer(loaded, runtime.games.needs(loaded))


def queues(runtime: Runtime) -> list[dict[str, Any]]:
    return [
        {"shard": shard.index, "queue": role, **inspect.health(queue)}
        for shard in runtime.shards
        for role, queue in zip(ROLES, shard.queues, strict=True)
    ]


def failed(runtime: Runtime) -> list[dict[str, Any]]:
    return [
        {"shard": shard.index, "queue": role, **job}
        for shard in runtime.shards
        for role, queue in zip(ROLES, shard.queues, strict=True)
        for job in inspect.failed(queue)
    ]


def retry(runtime: Runtime, job_ids: list[str]) -> list[str]:
    """Each of ``job_ids`` queued again, on whichever shard's queue it failed on; those retried."""
    retried = []
    for job_id in job_ids:
        if any(inspect.retry(queue, job_id) for shard in runtime.shards for queue in shard.queues):
            retried.append(job_id)
    return retried


def player(runtime: Runtime, ref: str) -> dict[str, Any]:
    """A player: tokens by label (never the token), games in play, ratings."""
    found = runtime.accounts.find(ref)
    return {
        "id": found.id,
        "name": found.name,
        "handle": found.handle,
        "created_at": found.created_at,
        "webhook": bool(found.webhook_url),
        "tokens": [{"id": t.id, "label": t.label, "created_at": t.created_at} for t in runtime.accounts.tokens(found)],
        "games_in_play": [g.id for g in runtime.games.lists.in_play(found)],
        "ratings": runtime.ratings.ratings_of(found.id),
    }
