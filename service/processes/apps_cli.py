"""``red7 apps``: the apps that may ask players to sign in with Red7 (docs/oauth.md), registered by the operator.

``red7 apps add --name N --redirect-uri U [--redirect-uri U2 ...] --scopes a,b``   register one; prints its client id
``red7 apps list``                                                                 every app, as JSON lines
``red7 apps remove CLIENT_ID``                                                     unregister one, ending its tokens

Each reads REDIS_URL (an embedded store lives in the process that made it: nothing to register there).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from service.runtime import Runtime


def add_parser(sub: Any) -> None:
    """``apps`` and its actions, on the ``red7`` command's subparsers."""
    apps = sub.add_parser("apps", help="apps on REDIS_URL that may ask players to sign in with Red7 (OAuth)")
    actions = apps.add_subparsers(dest="apps_action", required=True)
    add = actions.add_parser("add", help="register an app (a public client: PKCE, no secret)")
    add.add_argument("--name", required=True, help="shown to players on the consent page")
    add.add_argument("--redirect-uri", action="append", required=True, dest="redirect_uris", help="exact; repeatable")
    add.add_argument("--scopes", required=True, help="comma-separated scopes it may ask for (docs/tokens.md)")
    actions.add_parser("list", help="every registered app, as JSON lines")
    remove = actions.add_parser("remove", help="unregister an app: no sign-in from now on, every token it holds revoked")
    remove.add_argument("client_id")
    apps.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from service.processes.deployed import deployment_settings
    from service.runtime import build_runtime

    settings = deployment_settings("apps", "the store the service's apps live in.")
    return 2 if settings is None else run(args, build_runtime(settings))


def run(args: argparse.Namespace, runtime: Runtime) -> int:
    """Do what ``args`` ask on ``runtime``'s store; the exit status (2: nothing done)."""
    from service.common.errors import Refused

    oauth = runtime.oauth
    assert oauth is not None
    try:
        if args.apps_action == "add":
            scopes = [scope.strip() for scope in args.scopes.split(",") if scope.strip()]
            app = oauth.register(args.name, args.redirect_uris, scopes)
            print(json.dumps(asdict(app)))
        elif args.apps_action == "list":
            for app in oauth.apps():
                print(json.dumps(asdict(app)))
        elif not oauth.remove(args.client_id):
            print(f"red7 apps: no app {args.client_id}", file=sys.stderr)
            return 2
        else:
            print(f"red7 apps: {args.client_id} removed")
        return 0
    except Refused as refused:
        print(f"red7 apps: {refused.detail}", file=sys.stderr)
        return 2
