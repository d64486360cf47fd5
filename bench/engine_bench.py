"""Engine benchmark: random self-play speed and fold throughput, on one core.

    python -m bench.engine_bench [--seconds 3] [--repeat 5]

Each figure is measured ``--repeat`` times; the best and the median are
printed (the best is the least disturbed by other load on the machine).
Targets (issue 2), on one core: >= 1,000 rounds/s for 3 players, advanced,
no action rules; >= 300,000 events/s folded.  The process pins itself to one
CPU where the OS allows it, so the figures are one core's, and each target
is judged on the median.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

from engine.bots import RandomBot
from engine.events import Event, Variant
from engine.selfplay import play_game
from engine.state import fold


def self_play(players: int, action_rules: bool, seconds: float, seed: int) -> tuple[float, float]:
    """Rounds/s and games/s of random bots playing advanced games for about ``seconds``."""
    rng = random.Random(seed)
    bots = [RandomBot(rng) for _ in range(players)]
    games = rounds = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds or games == 0:
        record = play_game(bots, variant=Variant.ADVANCED, action_rules=action_rules, seed=seed * 7919 + games)
        games += 1
        rounds += len(record.rounds)
    return rounds / elapsed, games / elapsed


def recorded_games(count: int) -> list[list[Event]]:
    rng = random.Random(99)
    return [
        play_game([RandomBot(rng) for _ in range(4)], variant=Variant.ADVANCED, action_rules=True, seed=g).events
        for g in range(count)
    ]


def fold_rate(histories: list[list[Event]], seconds: float) -> float:
    """Events folded per second, folding each recorded game from scratch."""
    events = folded = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds or folded == 0:
        for history in histories:
            fold(history)
            events += len(history)
        folded += 1
    return events / elapsed


def measure(repeat: int, run: Callable[[int], tuple[float, ...]]) -> list[tuple[float, ...]]:
    return [run(i) for i in range(repeat)]


def summary(values: list[float], unit: str) -> str:
    return f"best {max(values):,.0f} {unit}, median {statistics.median(values):,.0f} {unit}"


ROUNDS_TARGET = 1_000
FOLD_TARGET = 300_000


def pin_to_one_cpu() -> str:
    """Run on a single CPU, so "on one core" holds even on a busy many-core machine."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (this OS cannot pin a process)"
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def verdict(values: list[float], target: float) -> str:
    median = statistics.median(values)
    return f"target {target:,.0f}: {'met' if median >= target else 'MISSED'} on the median"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each measurement")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"engine bench: {pin_to_one_cpu()}, {args.repeat} runs of {args.seconds:g} s each")

    setups = ((3, False, "3 players, advanced, no action rules"), (4, True, "4 players, advanced, action rules"))
    for players, action_rules, label in setups:
        runs = measure(args.repeat, lambda i, p=players, a=action_rules: self_play(p, a, args.seconds, seed=i + 1))
        print(f"random self-play, {label}:")
        print(f"  rounds/s: {summary([r for r, _ in runs], 'rounds/s')}")
        print(f"  games/s:  {summary([g for _, g in runs], 'games/s')}")
        if not action_rules:
            print(f"  {verdict([r for r, _ in runs], ROUNDS_TARGET)}")

    histories = recorded_games(40)
    total = sum(map(len, histories))
    rates = [fold_rate(histories, args.seconds) for _ in range(args.repeat)]
    per_game = total / len(histories)
    print(f"fold: {len(histories)} recorded 4-player advanced games with action rules ({total} events, {per_game:.0f} per game)")
    print(f"  events/s: {summary(rates, 'events/s')}")
    print(f"  {verdict(rates, FOLD_TARGET)}")


if __name__ == "__main__":
    main()
