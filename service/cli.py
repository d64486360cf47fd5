"""The ``red7`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="red7", description="Red7 game service")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the service")
    serve.add_argument("--embedded", action="store_true", help="in-memory store, jobs run in-process")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    demo = sub.add_parser("demo", help="watch bots play a game in the terminal")
    demo.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    demo.add_argument("--seed", type=int)
    args = parser.parse_args(argv)

    if args.command in ("serve", "demo"):
        # Until the HTTP service lands, "serve" shows the engine at work.
        from engine.demo import main as demo_main

        demo_main(players=getattr(args, "players", 3), seed=getattr(args, "seed", None))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
