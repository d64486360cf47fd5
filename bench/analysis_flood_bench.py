"""A flood of decision analyses beside all-AI games, on the production shape (issue 34).

    python -m bench.analysis_flood_bench                      # 6 tables, 40 s a run, a flood of 200 requests
    python -m bench.analysis_flood_bench --seconds 20 --tables 4 --flood 200 --distinct 40

A redis-server of its own (AOF ``always``), gunicorn as the image runs it (gevent, 2 processes), two ``red7 worker``
processes with the defaults as shipped (rate limits too: ``RED7_RATE_LIMIT_ANALYSIS``, 30 an hour a token).
``--tables`` all-AI games play throughout (greedy, random and greedy, the advanced rules), each made by a
player of its own, a new one as each ends.  Two runs of ``--seconds`` each:

- *without the flood*: the games alone;
- *with the flood*: Fay's one token asks for ``--flood`` analyses at once (8 at a time) of ``--distinct`` finished
  3-player games (advanced, with the action rules: a hundred decisions and more each), then Gus asks for one.

Printed for each run, over the games that began and ended in it: how many, the median and p99 of each game's largest
gap between two of its events (a move, a round scored; the AIs decide in milliseconds, so a gap is the service's
delay), the p99 of every gap, the median length of a game, and the CPU seconds each kind of process took (the
analysts: the workers' child processes).  For the flood: how its requests were answered (202 up to the budget, 429
past it), how long after asking Gus's analysis started and ended, and how many of Fay's were done by the end.  Issue
34's targets: 429s past the budget, Gus's analysis started within 10 s, and the gaps (the median of each game's
largest, and every gap's p99: the p99 of each game's largest is the one or two games a run has in the second the
flood's requests are answered) within 1.5x of the run without the flood.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from tests.faults.flood import run
from tests.harness.deployment import processes, redis_server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="measured seconds per run")
    parser.add_argument("--tables", type=int, default=6, help="all-AI games playing at once")
    parser.add_argument("--flood", type=int, default=200, help="analyses one token asks for at once")
    parser.add_argument("--distinct", type=int, default=40, help="finished games the flood asks about")
    parser.add_argument("--workers", type=int, default=2, help="red7 worker processes")
    parser.add_argument(
        "--analysis-threads", type=int, default=None, help="analyses each worker runs at once (default: the service's; 0: none)"
    )
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="red7-flood-"))
    # The harness raises the token and address limits for its fast clients; the analysis budget stays as shipped.
    signups = {"RED7_RATE_LIMIT_SIGNUP": "100000 per minute"}  # every player signs up from this one address
    with redis_server(directory) as server, processes(directory, server.url, **signups) as deployment:
        base = deployment.api()
        analysts = {"RED7_ANALYSIS_THREADS": str(args.analysis_threads)} if args.analysis_threads is not None else {}
        for _ in range(args.workers):
            deployment.wait_listening(deployment.worker(**analysts))
        print(
            f"analysis flood: gunicorn (gevent, 2 processes), {args.workers} red7 workers ({analysts or 'defaults'}), "
            f"redis-server with AOF always; {args.tables} all-AI tables, {args.seconds:.0f} s a run"
        )
        assert server.process is not None
        outcome = run(deployment, base, server.client(), server.process.pid, args.seconds, args.tables, args.flood, args.distinct)
        for line in outcome.report():
            print(line)
    shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
