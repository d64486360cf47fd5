"""``python -m bench.soak --minutes N --seed S [--dir D] [--cluster] [--plant NAME]``: one soak, its figures and
anomalies printed (exit 1 if any); ``python -m bench.soak --check history.json``: the checker again on a saved history.

``--cluster``: the stores on a Redis Cluster (3 primaries with a replica each, on loopback), the nemesis failing its
primaries over.  ``--plant NAME``: a defect planted in the service's processes (a monkeypatch loaded through a
``sitecustomize.py`` of the soak's own, never a switch of the service: :mod:`bench.soak.plants`), to see the checker
report it; the exit is then 0 when it reports the plant's anomalies and no implausible one."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench.soak import checker, plants
from bench.soak.history import load
from bench.soak.run import soak, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--appendfsync", choices=("always", "everysec"), default="always", help="the stores' AOF fsync")
    parser.add_argument("--dir", type=Path, help="where the logs, Redis files and history.json go (default: a temporary one)")
    parser.add_argument(
        "--cluster", action="store_true", help="the stores on a Redis Cluster (3 primaries, a replica each); failovers"
    )
    parser.add_argument(
        "--plant",
        choices=sorted(plants.PLANTS),
        help="a defect planted in the service's processes, which the checker must report: "
        + "; ".join(f"{p.name}: {p.summary}" for p in plants.PLANTS.values()),
    )
    parser.add_argument("--check", type=Path, help="check a saved history.json instead of running a soak")
    args = parser.parse_args(argv)
    if args.check:
        report = checker.check(load(args.check))
        print("\n".join(report.lines()))
        return 1 if report.total else 0
    directory = args.dir or Path(tempfile.mkdtemp(prefix="red7-soak-"))
    directory.mkdir(parents=True, exist_ok=True)
    soaked = soak(args.minutes, args.seed, directory, appendfsync=args.appendfsync, cluster=args.cluster, plant=args.plant)
    print("\n".join(summary(soaked)))
    extra = (" --cluster" if args.cluster else "") + (f" --plant {args.plant}" if args.plant else "")
    print(f"command: python -m bench.soak --minutes {args.minutes:g} --seed {args.seed} --appendfsync {args.appendfsync}{extra}")
    print(f"history: {directory / 'history.json'}")
    if args.plant:
        verdict = plants.judged(args.plant, soaked.report.anomalies)
        print(f"plant {args.plant}: {verdict or 'reported as expected'}")
        return 1 if verdict or soaked.failures else 0
    return 1 if soaked.report.total or soaked.failures else 0


if __name__ == "__main__":
    sys.exit(main())
