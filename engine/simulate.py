"""Self-play from the command line: how long rounds last, who wins them, how fast.

python -m engine.simulate --players 3 --games 2000 --variant advanced --seed 1
python -m engine.simulate --bots expert,greedy --players 2 --games 20 --expert-seconds 0.2
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from engine.bots import BOTS
from engine.events import Variant
from engine.selfplay import play_game


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="advanced")
    parser.add_argument("--action-rules", action="store_true", help="play with the actions of 1, 3, 5 and 7")
    parser.add_argument("--bots", default="random", help=f"comma-separated bot per seat ({', '.join(BOTS)}); one name for all")
    parser.add_argument("--expert-seconds", type=float, default=0.2, help="the expert's thinking time per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    names = args.bots.split(",")
    if len(names) == 1:
        names *= args.players
    if len(names) != args.players or any(n not in BOTS for n in names):
        parser.error(f"--bots needs {args.players} names among {', '.join(BOTS)}")

    rng = random.Random(args.seed)
    bots = [BOTS[name](rng, seconds=args.expert_seconds) if name == "expert" else BOTS[name](rng) for name in names]
    by_position = [0] * args.players
    by_seat = [0] * args.players
    game_wins = [0] * args.players
    rounds = turns = 0
    started = time.perf_counter()
    for game in range(args.games):
        record = play_game(bots, variant=Variant(args.variant), action_rules=args.action_rules, seed=args.seed * 1_000_003 + game)
        for r in record.rounds:
            rounds += 1
            turns += r.turns
            by_position[(r.winner - r.first_seat) % args.players] += 1
            by_seat[r.winner] += 1
        assert record.final is not None and record.final.winner is not None
        game_wins[record.final.winner] += 1
    elapsed = time.perf_counter() - started

    rules = "with action rules" if args.action_rules else "no action rules"
    thinking = f", expert {args.expert_seconds:g} s per move" if "expert" in names else ""
    bots_used = ",".join(names)
    print(f"{args.games} games, {args.players} players, {args.variant}, {rules}, bots {bots_used}, seed {args.seed}{thinking}")
    print(f"rounds: {rounds} ({rounds / args.games:.2f} per game), turns per round: {turns / rounds:.2f}")
    print(
        "round win rate by position from the first player: "
        + "  ".join(f"{i + 1}: {100 * w / rounds:.1f}%" for i, w in enumerate(by_position))
    )
    print("round win rate by seat: " + "  ".join(f"{s}({names[s]}): {100 * w / rounds:.1f}%" for s, w in enumerate(by_seat)))
    print("game win rate by seat: " + "  ".join(f"{s}({names[s]}): {100 * w / args.games:.1f}%" for s, w in enumerate(game_wins)))
    print(f"speed: {rounds / elapsed:,.0f} rounds/s, {args.games / elapsed:,.1f} games/s ({elapsed:.2f} s)")


if __name__ == "__main__":
    main()
