"""``red7 mod``: what an operator does for safety without a moderator account (issue 36).

``red7 mod words add|remove|list [WORD ...]``            the filter's own words, for every process at once
``red7 mod grant|revoke PLAYER``                          the moderator role (PLAYER: a handle or an id)
``red7 mod warn|rename|mute|suspend|ban|unban PLAYER``    an action on a player (``--reason``; ``--seconds`` for mute
                                                          and suspend), as a moderator's ``moderatePlayer``
``red7 mod reports``                                      the open reports, oldest first
``red7 mod decide REPORT ACTION``                          a report decided, as ``decideReport``
``red7 mod log``                                          the audit log

Each reads REDIS_URL (there is nothing to act on in an embedded store another process holds), and acts as
``operator`` in the audit log.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from service.runtime import Runtime

PLAYER_ACTIONS = ("warn", "rename", "mute", "suspend", "ban", "unban")


def add_parser(sub: Any) -> None:
    """``mod`` and its actions, on the ``red7`` command's subparsers."""
    mod = sub.add_parser("mod", help="safety on REDIS_URL: the filter's words, moderators, moderation's actions")
    actions = mod.add_subparsers(dest="mod_action", required=True)
    words = actions.add_parser("words", help="the words names and handles may not hold, beside the eight languages' lists")
    words.add_argument("change", choices=("add", "remove", "list"))
    words.add_argument("words", nargs="*")
    for name, text in (("grant", "make a player a moderator"), ("revoke", "take the moderator role away")):
        role = actions.add_parser(name, help=text)
        role.add_argument("player", help="the player's handle or id")
    for name in PLAYER_ACTIONS:
        act = actions.add_parser(name, help=f"{name} a player, as a moderator's moderatePlayer")
        act.add_argument("player", help="the player's handle or id")
        act.add_argument("--reason", default="by the operator", help="why (the audit log keeps it)")
        act.add_argument("--seconds", type=int, help="how long a mute or a suspension lasts")
    actions.add_parser("reports", help="the open reports, oldest first, as JSON lines")
    decide = actions.add_parser("decide", help="decide a report, as a moderator's decideReport")
    decide.add_argument("report")
    decide.add_argument("action", choices=("dismiss", *PLAYER_ACTIONS))
    decide.add_argument("--reason", default="by the operator")
    decide.add_argument("--seconds", type=int)
    actions.add_parser("log", help="the audit log, oldest first, as JSON lines")
    mod.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime

    settings = deployment_settings("mod", "the store whose players to act on.")
    return 2 if settings is None else run(args, build_runtime(settings))


def run(args: argparse.Namespace, runtime: Runtime) -> int:
    """Do what ``args`` ask on ``runtime``'s stores; the exit status (2: nothing done)."""
    from service.application.moderation import OPERATOR
    from service.common.errors import Refused

    safety = runtime.safety
    assert safety is not None
    moderation = safety.moderation
    try:
        if args.mod_action == "words":
            return _words(args, safety.screen)
        if args.mod_action in ("grant", "revoke"):
            player = runtime.accounts.find(args.player)
            moderation.set_role(player, args.mod_action == "grant")
            verb = "is a moderator now" if args.mod_action == "grant" else "is no longer a moderator"
            print(f"red7 mod: {player.handle or player.id} ({player.name}) {verb}")
        elif args.mod_action in PLAYER_ACTIONS:
            entry = moderation.act(OPERATOR, args.player, args.mod_action, args.reason, args.seconds)
            print(json.dumps(asdict(entry)))
        elif args.mod_action == "decide":
            report = moderation.decide(OPERATOR, args.report, args.action, args.reason, args.seconds)
            print(json.dumps(report.json()))
        elif args.mod_action == "reports":
            cursor: str | None = None
            while True:
                reports, cursor = safety.reports.open_page(cursor, 100)
                for report in reports:
                    print(json.dumps(report.json()))
                if cursor is None:
                    break
        elif args.mod_action == "log":
            after: str | None = None
            while True:
                entries, after = moderation.log_page(after, 200)
                for entry in entries:
                    print(json.dumps(asdict(entry)))
                if after is None:
                    break
        return 0
    except Refused as refused:
        print(f"red7 mod: {refused.detail}", file=sys.stderr)
        return 2


def _words(args: argparse.Namespace, screen: Any) -> int:
    words = sorted({word.strip().lower() for word in args.words if word.strip()})
    if args.change == "list":
        for word in screen.operator_words():
            print(word)
        return 0
    if not words:
        print("red7 mod words: name the words", file=sys.stderr)
        return 2
    screen.change_words(words, add=args.change == "add")
    print(f"red7 mod words: {len(words)} {'added' if args.change == 'add' else 'removed'}")
    return 0
