"""Decision analysis benchmark: speed, calibration, discrimination and stability (issue 23).

    python -m bench.analysis_bench [--part all|speed|calibration|discrimination|stability]
                                   [--calibration-games 200] [--per-game 6] [--games 30] [--stability-games 10]

Speed: one game each of 2, 3 and 4 players (advanced, with the action rules,
played by the expert) analysed at the default budget.  Target: the 3-player game
in at most 60 s on the 2-core machine.

Calibration: self-play games (greedy players, 2-4 seats, both variants, with and
without the action rules; seeds from 900_000 on, which nothing was tuned on),
``--per-game`` decision points drawn from each, evaluated at the default budget;
the mover's win chance is compared with whether the mover won the game.  Targets:
a Brier score at least 20% better than guessing 1/N, an expected calibration
error at most 0.05 over 10 bins (the reliability table is printed).

Discrimination: 3-player games (advanced, with the action rules), one expert,
one greedy and one random player, the seats rotated (``--tables mixed``), or
each level at tables of its own (``--tables own``), each analysed whole.
Target: mean accuracy expert > greedy > random.  At mixed tables a player whose
win chance is near zero can lose few points of it, which flattered the random
player's accuracy while accuracy read ΔW; it reads the drop in place share now
(engine/analysis/).

Stability: the first ``--stability-games`` of those analysed again with another
seed.  Target: labels agree on at least 95% of decisions.  The labels each seed
gave are counted too: stability bought by labelling less would show there.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from engine.analysis import DEFAULT_BUDGET, LABELS, Analysis, analyse, decision_points, evaluate
from engine.bots import GreedyBot, RandomBot
from engine.events import Event, GameFinished, Variant
from engine.expert import ExpertBot
from engine.selfplay import ViewBot, play_game

EXPERT_ITERATIONS = 20  # the players' strength; the analysis has its own budget


def expert_game(players: int, seed: int) -> list[Event]:
    bots = [ExpertBot(random.Random(seed * 10 + s), iterations=EXPERT_ITERATIONS) for s in range(players)]
    return play_game(bots, variant=Variant.ADVANCED, action_rules=True, seed=seed).events


def speed() -> None:
    print(f"speed (default budget: {DEFAULT_BUDGET}), advanced with the action rules, expert players:")
    for players in (2, 3, 4):
        events = expert_game(players, 100 + players)
        started = time.perf_counter()
        analysis = analyse(events, 1)
        elapsed = time.perf_counter() - started
        target = "  (target <= 60 s)" if players == 3 else ""
        print(
            f"  {players} players: {len(analysis.decisions)} decisions, {len(events)} events: "
            f"{elapsed:.1f} s, {1000 * elapsed / max(1, len(analysis.decisions)):.0f} ms per decision{target}"
        )


def _winner(events: Sequence[Event]) -> int:
    return next(e.winner for e in events if isinstance(e, GameFinished))


def calibration(games: int, per_game: int) -> None:
    rng = random.Random(900_000)
    forecasts: list[tuple[float, int, int]] = []  # (win chance, won, players)
    started = time.perf_counter()
    for game in range(games):
        players = 2 + game % 3
        variant = Variant.ADVANCED if game % 4 else Variant.BASIC
        action_rules = game % 2 == 0
        seed = 900_000 + game
        bots = [GreedyBot(rng) for _ in range(players)]
        events = play_game(bots, variant=variant, action_rules=action_rules, seed=seed).events
        winner = _winner(events)
        points = decision_points(events)
        for point in rng.sample(points, min(per_game, len(points))):
            judged = evaluate(point, seed, DEFAULT_BUDGET)
            forecasts.append((judged.win, int(point.seat == winner), players))
    elapsed = time.perf_counter() - started
    brier = statistics.fmean((p - won) ** 2 for p, won, _ in forecasts)
    guess = statistics.fmean((1 / n - won) ** 2 for _, won, n in forecasts)
    print(f"calibration: {len(forecasts)} decision points from {games} greedy self-play games ({elapsed:.0f} s)")
    print(f"  Brier score {brier:.4f}, guessing 1/N {guess:.4f}: {100 * (1 - brier / guess):.1f}% better (target >= 20%)")
    bins: list[list[tuple[float, int]]] = [[] for _ in range(10)]
    for p, won, _ in forecasts:
        bins[min(9, int(p * 10))].append((p, won))
    ece = 0.0
    print("  reliability:  bin        count  mean forecast  observed")
    for index, members in enumerate(bins):
        if not members:
            print(f"                {index / 10:.1f}-{(index + 1) / 10:.1f}  {0:6d}")
            continue
        mean_p = statistics.fmean(p for p, _ in members)
        observed = statistics.fmean(won for _, won in members)
        ece += len(members) / len(forecasts) * abs(mean_p - observed)
        print(f"                {index / 10:.1f}-{(index + 1) / 10:.1f}  {len(members):6d}  {mean_p:13.3f}  {observed:8.3f}")
    print(f"  expected calibration error (10 bins): {ece:.4f} (target <= 0.05)")


def _bot(name: str, rng: random.Random, seed: int) -> ViewBot | GreedyBot | RandomBot:
    if name == "expert":
        return ExpertBot(random.Random(seed), iterations=EXPERT_ITERATIONS)
    return GreedyBot(rng) if name == "greedy" else RandomBot(rng)


def discrimination(games: int, stability_games: int, tables: str = "mixed") -> None:
    """``mixed``: one player of each level at every table, seats rotated; ``own``: each level at tables of its own."""
    names = ("expert", "greedy", "random")
    accuracy: dict[str, list[float]] = {name: [] for name in names}
    analyses: list[tuple[list[Event], Analysis]] = []
    started = time.perf_counter()
    for game in range(games):
        rng = random.Random(500 + game)
        order = [names[(game + s) % 3] for s in range(3)] if tables == "mixed" else [names[game % 3]] * 3
        bots = [_bot(name, rng, game * 3 + seat) for seat, name in enumerate(order)]
        events = play_game(bots, variant=Variant.ADVANCED, action_rules=True, seed=500 + game).events
        analysis = analyse(events, 1)
        analyses.append((events, analysis))
        for seat, name in enumerate(order):
            value = analysis.summaries[seat].accuracy
            if value is not None:
                accuracy[name].append(value)
    elapsed = time.perf_counter() - started
    at = "one of each at every table" if tables == "mixed" else "each level at tables of its own"
    print(f"discrimination: {games} games of expert, greedy and random, {at}")
    print(f"  (3 players, advanced, action rules; {elapsed:.0f} s)")
    for name in names:
        print(f"  {name:6s} mean accuracy {statistics.fmean(accuracy[name]):5.1f} over {len(accuracy[name])} players' games")
    ordered = statistics.fmean(accuracy["expert"]) > statistics.fmean(accuracy["greedy"]) > statistics.fmean(accuracy["random"])
    print(f"  expert > greedy > random: {'yes' if ordered else 'NO'}")
    if stability_games:
        stability(analyses[:stability_games])


def stability(analysed: Sequence[tuple[list[Event], Analysis]]) -> None:
    same = total = labelled = 0
    counts = ({label: 0 for label in LABELS}, {label: 0 for label in LABELS})
    for events, first in analysed:
        second = analyse(events, 2)
        for a, b in zip(first.decisions, second.decisions, strict=True):
            total += 1
            same += a.label == b.label
            labelled += a.label is not None or b.label is not None
            for count, label in zip(counts, (a.label, b.label), strict=True):
                if label is not None:
                    count[label] += 1
    print(
        f"stability: labels agree on {same} of {total} decisions ({100 * same / total:.1f}%, target >= 95%) "
        f"across analysis seeds 1 and 2, {len(analysed)} games; {labelled} decisions labelled by either"
    )
    for seed, count in enumerate(counts, 1):
        print(f"  labels with seed {seed}: " + ", ".join(f"{count[label]} {label}" for label in LABELS))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("all", "speed", "calibration", "discrimination", "stability"), default="all")
    parser.add_argument("--calibration-games", type=int, default=200)
    parser.add_argument("--per-game", type=int, default=6)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--stability-games", type=int, default=10)
    parser.add_argument("--tables", choices=("mixed", "own"), default="mixed", help="discrimination: who sits together")
    args = parser.parse_args(argv)
    if args.part in ("all", "speed"):
        speed()
    if args.part in ("all", "calibration"):
        calibration(args.calibration_games, args.per_game)
    if args.part in ("all", "discrimination"):
        discrimination(args.games, args.stability_games if args.part == "all" else 0, args.tables)
    if args.part == "stability":
        discrimination(args.stability_games, args.stability_games, args.tables)


if __name__ == "__main__":
    main()
