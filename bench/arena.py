"""Arena: two-player games between bot levels, with win rates and their 95% intervals.

    python -m bench.arena [--games N] [--seconds S] [--iterations K] [--pairs expert:greedy,greedy:random]

Each pair plays ``--games`` advanced two-player games on fixed seeds; every seed
is played twice with the seats swapped, so neither bot profits from the seat
order or from a lucky deal.  The table gives each pair's games, the first bot's
game wins with a Wilson 95% interval, its share of the rounds and the mean
points per game of both bots; below it, the expert's time per move (wall
clock, the whole ``plan_view`` call).  Targets: the expert wins >= 60% against
greedy, greedy >= 60% against random.

The defaults (100 games per pair, 0.25 s per expert move) finish in about ten
minutes on one core; ``--iterations`` replaces the time budget with a fixed
number of samples per move, which makes every game reproducible.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import GreedyBot, RandomBot
from engine.events import Event, RoundScored, Variant
from engine.expert import ExpertBot
from engine.projection import View
from engine.selfplay import play_game
from engine.steps import Step

LEVELS = ("random", "greedy", "expert")


@dataclass(slots=True)
class MoveClock:
    """The expert's thinking time per move, measured around each call."""

    times: list[float] = field(default_factory=list)


class TimedExpert:
    """An :class:`ExpertBot` whose every decision is timed (the bot itself reads no clock but its own)."""

    name = "expert"

    def __init__(self, bot: ExpertBot, clock: MoveClock) -> None:
        self.bot = bot
        self.clock = clock

    def plan_view(self, seen: View, history: Sequence[Event]) -> Sequence[Step]:
        started = time.perf_counter()
        steps = self.bot.plan_view(seen, history)
        self.clock.times.append(time.perf_counter() - started)
        return steps


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a win rate: honest at small counts and near 0% or 100%."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(slots=True)
class PairResult:
    first: str
    second: str
    games: int = 0
    wins: int = 0  # games won by ``first``
    rounds: int = 0
    rounds_won: int = 0  # rounds won by ``first``
    points: list[int] = field(default_factory=lambda: [0, 0])  # total points of first, second


def make_bot(level: str, rng: random.Random, args: argparse.Namespace, clock: MoveClock) -> Any:
    if level == "random":
        return RandomBot(rng)
    if level == "greedy":
        return GreedyBot(rng)
    return TimedExpert(ExpertBot(rng, seconds=args.seconds, iterations=args.iterations), clock)


def play_pair(first: str, second: str, args: argparse.Namespace, clock: MoveClock) -> PairResult:
    result = PairResult(first, second)
    seeds = args.games // 2
    for index in range(seeds):
        seed = args.seed * 1_000_003 + index
        for swapped in (False, True):
            levels = (second, first) if swapped else (first, second)
            rngs = [random.Random(seed * 4 + 2 * swapped + seat) for seat in range(2)]
            bots = [make_bot(level, rng, args, clock) for level, rng in zip(levels, rngs, strict=True)]
            record = play_game(bots, variant=Variant.ADVANCED, action_rules=args.action_rules, seed=seed)
            assert record.final is not None and record.final.winner is not None
            mine = 1 if swapped else 0
            result.games += 1
            result.wins += record.final.winner == mine
            for r in record.rounds:
                result.rounds += 1
                result.rounds_won += r.winner == mine
            for event in record.events:
                if isinstance(event, RoundScored):
                    result.points[0 if event.seat == mine else 1] += event.points
        if args.progress and (index + 1) % 5 == 0:
            print(f"  {first}:{second}: {result.games} games, {first} won {result.wins}", file=sys.stderr, flush=True)
    return result


def parse_pairs(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        names = item.strip().split(":")
        if len(names) != 2 or any(name not in LEVELS for name in names):
            raise argparse.ArgumentTypeError(f"{item!r}: write pairs as level:level with levels among {', '.join(LEVELS)}")
        pairs.append((names[0], names[1]))
    return pairs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.arena", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per pair (an even number: each seed twice)")
    parser.add_argument("--seconds", type=float, default=0.25, help="the expert's time budget per move")
    parser.add_argument("--iterations", type=int, default=None, help="a fixed number of samples per expert move instead")
    parser.add_argument("--pairs", type=parse_pairs, default=parse_pairs("expert:greedy,greedy:random"))
    parser.add_argument("--action-rules", action="store_true", help="play with the actions of 1, 3, 5 and 7")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--progress", action="store_true", help="report progress on stderr")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be an even number, at least 2 (each seed is played with the seats both ways)")

    budget = f"{args.iterations} samples per move" if args.iterations is not None else f"{args.seconds:g} s per move"
    rules = "with action rules" if args.action_rules else "no action rules"
    print(
        f"arena: 2 players, advanced, {rules}; {args.games} games per pair ({args.games // 2} seeds x 2 seatings), "
        f"seed {args.seed}; expert budget {budget}"
    )
    clock = MoveClock()
    started = time.perf_counter()
    results = [play_pair(first, second, args, clock) for first, second in args.pairs]
    elapsed = time.perf_counter() - started

    print(f"{'pair':<16} {'games':>5} {'wins':>5} {'win rate':>8}  {'95% CI':<15} {'rounds won':>10} {'points/game':>13}")
    for r in results:
        low, high = wilson(r.wins, r.games)
        pair = f"{r.first}:{r.second}"
        points = f"{r.points[0] / r.games:.1f}-{r.points[1] / r.games:.1f}"
        print(
            f"{pair:<16} {r.games:>5} {r.wins:>5} {100 * r.wins / r.games:>7.1f}%  "
            f"[{100 * low:5.1f}%, {100 * high:5.1f}%] {100 * r.rounds_won / max(r.rounds, 1):>9.1f}% {points:>13}"
        )
    if clock.times:
        mean = sum(clock.times) / len(clock.times)
        longest = max(clock.times)
        print(f"expert time per move: mean {1000 * mean:.0f} ms, max {1000 * longest:.0f} ms over {len(clock.times)} moves")
    print(f"total time {elapsed:.0f} s")


if __name__ == "__main__":
    main()
