"""What counting Redis round trips costs a command (issue 41: ``red7_redis_round_trips``, "without slowing the hot path").

    python -m bench.roundtrips_bench [--url redis://127.0.0.1:6379/0] [--commands 20000] [--rounds 5]

The same ``GET`` of one key, ``--commands`` times, on a client of the real Redis at ``--url``: as redis-py makes it,
and with the stores' counting connections (:func:`service.storage.connections.counted`) while a request's count is
open (:mod:`service.common.roundtrips`).  CPU time (``time.process_time``) per command, the best of ``--rounds``, and
the difference: what counting adds to every round trip.
"""

from __future__ import annotations

import argparse
import time

import redis

from service.common import roundtrips
from service.storage.connections import counted


def per_command(client: redis.Redis, commands: int, rounds: int) -> float:
    client.set("red7-bench:roundtrips", "x")
    best = float("inf")
    for _ in range(rounds):
        roundtrips.begin()
        began = time.process_time()
        for _ in range(commands):
            client.get("red7-bench:roundtrips")
        best = min(best, (time.process_time() - began) / commands)
        roundtrips.end()
    client.delete("red7-bench:roundtrips")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--commands", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    plain = per_command(redis.Redis.from_url(args.url), args.commands, args.rounds)
    counting = per_command(counted(redis.Redis.from_url(args.url)), args.commands, args.rounds)
    print(f"plain:    {plain * 1e6:7.2f} us CPU a command")
    print(f"counted:  {counting * 1e6:7.2f} us CPU a command")
    print(f"counting: {(counting - plain) * 1e6:+7.2f} us a round trip ({(counting - plain) / plain:+.1%})")


if __name__ == "__main__":
    main()
