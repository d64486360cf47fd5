"""Ratings benchmarks: do the ladders rank what they should, predict who wins, and stay fast?

    python -m bench.ratings_bench ladders  [--games 400]           # why one ladder per variant
    python -m bench.ratings_bench ranks    [--games 300]           # AI levels only: expert > greedy > random?
    python -m bench.ratings_bench predicts [--games 2000]          # graded strengths, 80/20 in time: who wins?
    python -m bench.ratings_bench fast     [--players 100000]      # update and leaderboard latency, Redis and cluster

Every game is played by the engine's bots and turned into a ladder's result by the service's own code: the game
folded as the service folds it (:func:`service.domain.game.load`), its standing and result
(:func:`service.domain.ratings.result_of`), and the ladder's fold (:func:`service.domain.ratings.fold`).

``ranks``: rated games of 2, 3 and 4 AI seats of mixed levels (the expert on a fixed budget of samples per move,
``--iterations``, 128 by default, so every game is reproducible; about 5 minutes); then the ratings (μ) of the
three levels.  Target: expert > greedy > random.

``predicts``: a population of players of graded strength — the greedy AI that plays a uniformly random turn
instead with probability ε (0, 0.25, 0.5, 0.75; ε = 1 is the random AI) — two of each, in 2-4-player games of both
variants.  Games are ordered in time; the first 80% only rate, then each game of the last 20% is predicted before it
is applied (OpenSkill's ``predict_win`` on the ratings of the moment), as a live service would.  Beside it a pairwise
Elo (K 24, each game as the pairs of its places; a seat's chance to win ∝ 10^(Elo/400)).  Targets: the winner picked
at least 1/N + 10 points of the time, a log-loss at least 10% below the uniform guess's (ln N).

``fast``: a ladder of ``--players`` rated players written into a redis-server of its own (and a 3-primary Redis
Cluster), then ``--updates`` games applied (``RatingStore.apply``: read, compute, one script) and ``--reads`` top-50
leaderboard reads and page-around-a-player reads (``RatingService.leaderboard``), each timed.  Targets: an update's
p99 <= 5 ms, a top-50 read's p99 <= 20 ms.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import Event, Variant
from engine.bots import GreedyBot, RandomBot
from engine.expert import ExpertBot
from engine.legal import Position
from engine.selfplay import play_game
from engine.steps import Step
from service.domain.game import decode, event_envelope, load
from service.domain.lobby import GameCreated, LobbyEvent, SeatSpec, SeatTaken
from service.domain.ratings import EVERY_RESULT, MODEL, NEW, Ladder, Placing, Rating, Result, fold, result_of

LEVELS = ("random", "greedy", "expert")


# --- games played by bots, read as the service reads them --------------------------------------------------


class SloppyGreedy:
    """The greedy AI, which plays a uniformly random turn instead with probability ``epsilon``."""

    def __init__(self, rng: random.Random, epsilon: float) -> None:
        self.rng = rng
        self.epsilon = epsilon
        self.greedy = GreedyBot(rng)
        self.random = RandomBot(rng)
        self.name = f"greedy-{epsilon:g}"

    def plan(self, pos: Position) -> Sequence[Step]:
        return (self.random if self.rng.random() < self.epsilon else self.greedy).plan(pos)


def result_of_play(
    game_id: str,
    players: Sequence[str],
    bots: Sequence[Any],
    variant: Variant,
    seed: int,
    at_ms: int,
    levels: Sequence[str | None] | None = None,
) -> Result:
    """A game the bots play, as the service would store it (human seats held by ``players``, or AI seats of
    ``levels``), turned into its ladder's result by the service's own code."""
    seats = tuple(SeatSpec("ai", level) if level else SeatSpec("human") for level in (levels or [None] * len(players)))
    created = GameCreated("p_bench", seats, variant.value, False, None, "fold", "random", seed, None, "", rated=True)
    lobby: list[LobbyEvent] = [created]
    lobby += [SeatTaken(n, player, player) for n, player in enumerate(players) if seats[n].kind == "human"]
    record = play_game(bots, variant=variant, seed=seed)
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at_ms // 1000)) + f".{at_ms % 1000:03d}Z"
    events: list[LobbyEvent | Event] = [*lobby, *record.events]
    payloads = [(n + 1, event_envelope(e, at=at, by="bench")) for n, e in enumerate(events)]
    game = load(game_id, payloads)
    found = result_of(game, [decode(p) for _, p in payloads])
    if found is None:
        raise RuntimeError(f"{game_id} was not rated")
    return found


# --- ladders ----------------------------------------------------------------------------------------------------


def ladders(args: argparse.Namespace) -> None:
    print(f"greedy against random, {args.games} two-player games each (seats swapped every other game):")
    for variant in (Variant.BASIC, Variant.ADVANCED):
        for actions in (False, True):
            wins = 0
            for g in range(args.games):
                bots = [GreedyBot(random.Random(2 * g)), RandomBot(random.Random(2 * g + 1))]
                if g % 2:
                    bots.reverse()
                final = play_game(bots, variant=variant, action_rules=actions, seed=args.seed * 100_003 + g).final
                assert final is not None
                wins += final.winner == g % 2
            rules = "with action rules" if actions else "no action rules "
            print(f"  {variant.value:8s} {rules}: greedy wins {100 * wins / args.games:5.1f}%")


# --- ranks ------------------------------------------------------------------------------------------------------


def ranks(args: argparse.Namespace) -> dict[str, Rating]:
    rng = random.Random(args.seed)
    results = []
    started = time.perf_counter()
    counts = {level: 0 for level in LEVELS}
    for g in range(args.games):
        players = 2 + g % 3
        levels = [LEVELS[g % 3], LEVELS[(g + 1) % 3]] + [rng.choice(LEVELS) for _ in range(players - 2)]
        rng.shuffle(levels)
        bots = [
            ExpertBot(random.Random(rng.getrandbits(32)), iterations=args.iterations)
            if level == "expert"
            else GreedyBot(random.Random(rng.getrandbits(32)))
            if level == "greedy"
            else RandomBot(random.Random(rng.getrandbits(32)))
            for level in levels
        ]
        variant = Variant.ADVANCED if g % 2 else Variant.BASIC
        for level in levels:
            counts[level] += 1
        results.append(
            result_of_play(
                f"g{g:05d}",
                [f"ai:{lv}" for lv in levels],
                bots,
                variant,
                args.seed * 1_000_003 + g,
                1_780_000_000_000 + g * 1000,
                levels,
            )
        )
    elapsed = time.perf_counter() - started
    folded = fold(results)
    print(
        f"{args.games} rated games of 2, 3 and 4 AI seats (basic and advanced alternately; the expert at "
        f"{args.iterations} samples per move), seed {args.seed}, played in {elapsed:.0f} s; seats: "
        + ", ".join(f"{level} {count}" for level, count in counts.items())
    )
    shown: dict[str, Rating] = {}
    for name, ladder in sorted(folded.items()):
        print(f"  {name} ladder ({len(ladder.games)} games):")
        for player, record in sorted(ladder.records.items(), key=lambda item: -item[1].rating.mu):
            r = record.rating
            print(
                f"    {player:10s} rating {r.shown:5d}  mu {r.mu:7.3f}  sigma {r.sigma:6.3f}  seats {record.played:4d}  "
                f"won {record.won:4d}  average place {record.places / record.played:.2f}"
            )
            shown[f"{name}/{player}"] = r
    for name in sorted(folded):
        order = [shown[f"{name}/ai:{level}"].mu for level in ("expert", "greedy", "random")]
        verdict = "yes" if order[0] > order[1] > order[2] else "NO"
        print(f"  {name}: expert > greedy > random (ratings): {verdict}")
    return shown


# --- predicts ---------------------------------------------------------------------------------------------------

EPSILONS = (0.0, 0.25, 0.5, 0.75, 1.0)


def corpus(args: argparse.Namespace) -> list[Result]:
    rng = random.Random(args.seed)
    players = {f"eps{eps:g}-{copy}": eps for eps in EPSILONS for copy in "ab"}
    names = list(players)
    results = []
    for g in range(args.games):
        seated = rng.sample(names, rng.randint(2, 4))
        bots = [SloppyGreedy(random.Random(rng.getrandbits(32)), players[name]) for name in seated]
        variant = rng.choice((Variant.BASIC, Variant.ADVANCED))
        results.append(
            result_of_play(f"g{g:05d}", seated, bots, variant, args.seed * 1_000_003 + g, 1_780_000_000_000 + g * 1000)
        )
    return results


def predicts(args: argparse.Namespace) -> dict[str, float]:
    started = time.perf_counter()
    results = corpus(args)
    played = time.perf_counter() - started
    split = int(len(results) * 0.8)
    ladders: dict[str, Ladder] = {}
    elo: dict[str, float] = {}
    scores = {"openskill": [0, 0.0], "elo": [0, 0.0]}
    uniform_hits = uniform_loss = 0.0
    tested = 0
    for n, result in enumerate(results):
        # The model alone: every result counts (the rules against farming choose which results count, not how; a
        # population of newcomers playing only each other would otherwise never be rated:
        # service/domain/ratings/counting.py).
        ladder = ladders.setdefault(result.ladder, Ladder(result.ladder, rules=EVERY_RESULT))
        seats = result.seats
        if n >= split:
            tested += 1
            winners = {p.seat for p in seats if p.place == 1}
            teams = [
                [MODEL.create_rating([r.mu, r.sigma])]
                for r in (ladder.records[p.player].rating if p.player in ladder.records else NEW for p in seats)
            ]
            chances = {"openskill": MODEL.predict_win(teams)}
            powers = [10 ** (elo.get(p.player, 1500.0) / 400) for p in seats]
            chances["elo"] = [power / sum(powers) for power in powers]
            for name, probability in chances.items():
                best = max(range(len(seats)), key=lambda s: probability[s])
                scores[name][0] += best in winners
                scores[name][1] += -math.log(max(1e-12, sum(probability[s] for s in winners)))
            uniform_hits += len(winners) / len(seats)
            uniform_loss += -math.log(len(winners) / len(seats))
        ladder.add(result)
        _elo_update(elo, seats)
    figures = {"uniform_accuracy": uniform_hits / tested, "uniform_log_loss": uniform_loss / tested}
    print(
        f"{len(results)} rated games among {len(EPSILONS) * 2} players of graded strength (greedy playing a random turn "
        f"with probability {', '.join(f'{e:g}' for e in EPSILONS)}; two players each), 2-4 players, both variants, "
        f"seed {args.seed}, played in {played:.0f} s"
    )
    print(f"  trained on the first {split} games; each of the last {tested} predicted before it is applied")
    print(
        f"  uniform guess: winner right {100 * figures['uniform_accuracy']:.1f}% (1/N), log-loss "
        f"{figures['uniform_log_loss']:.4f} (ln N)"
    )
    for name, (hits, loss) in scores.items():
        accuracy, log_loss = hits / tested, loss / tested
        figures[f"{name}_accuracy"], figures[f"{name}_log_loss"] = accuracy, log_loss
        over = 100 * (accuracy - figures["uniform_accuracy"])
        below = 100 * (1 - log_loss / figures["uniform_log_loss"])
        label = "OpenSkill (Plackett-Luce)" if name == "openskill" else "pairwise Elo (baseline) "
        print(
            f"  {label}: winner right {100 * accuracy:.1f}% (+{over:.1f} points over 1/N; target +10), log-loss "
            f"{log_loss:.4f} ({below:.1f}% below uniform; target 10%)"
        )
    for name, ladder in sorted(ladders.items()):
        order = sorted(ladder.records.items(), key=lambda item: -item[1].rating.mu)
        print(f"  {name} ladder: " + "  ".join(f"{p} {r.rating.shown}" for p, r in order))
    return figures


def _elo_update(elo: dict[str, float], seats: Sequence[Placing], k: float = 24.0) -> None:
    change = dict.fromkeys((p.player for p in seats), 0.0)
    for a in seats:
        for b in seats:
            if a.seat < b.seat:
                ra, rb = elo.get(a.player, 1500.0), elo.get(b.player, 1500.0)
                expected = 1 / (1 + 10 ** ((rb - ra) / 400))
                actual = 1.0 if a.place < b.place else 0.5 if a.place == b.place else 0.0
                change[a.player] += k * (actual - expected)
                change[b.player] -= k * (actual - expected)
    for player, delta in change.items():
        elo[player] = elo.get(player, 1500.0) + delta


# --- fast -------------------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fill(client: Any, store: Any, ladder: str, players: int, seed: int) -> None:
    """``players`` rated players on ``ladder``, written straight (records and leaderboard), as ratings a ladder holds."""
    from service.domain.ratings import Record, exact, text

    rng = random.Random(seed)
    batch = 2000
    for start in range(0, players, batch):
        records, board = {}, {}
        for n in range(start, min(players, start + batch)):
            rating = Rating(exact(rng.gauss(25, 4)), exact(rng.uniform(1.5, 8.3)))
            record = Record(f"Player {n}", rating, rng.randint(1, 200), 0, 0, {}, rng.randint(0, 200))
            records[f"p_{n:06d}"] = record.to_text()
            if record.form.established():
                board[f"p_{n:06d}"] = float(text(rating.mu))
        client.hset(store.key(ladder, "records"), mapping=records)
        client.zadd(store.key(ladder, "ranked"), board)
        client.zadd(store.key(ladder, "board"), board)


def time_it(runs: int, call: Any, cpu: list[float] | None = None) -> list[float]:
    """Wall-clock ms of each call (and, into ``cpu``, this process's CPU ms of each: the machine may be shared)."""
    times = []
    for n in range(runs):
        started, used = time.perf_counter(), time.process_time()
        call(n)
        times.append((time.perf_counter() - started) * 1000)
        if cpu is not None:
            cpu.append((time.process_time() - used) * 1000)
    return times


def server_usec(client: Any) -> float:
    """Microseconds Redis spent in commands since its stats were reset (a single server: ``INFO commandstats``)."""
    stats = client.info("commandstats")
    return float(sum(entry["usec"] for entry in stats.values()))


def measure(client: Any, where: str, args: argparse.Namespace) -> dict[str, float]:
    from service.application.ratings import RatingService
    from service.storage.ratings import RatingStore

    prefix = f"red7-bench-{random.getrandbits(32):08x}:"
    store = RatingStore(client, prefix)
    service = RatingService(store, None, lambda game_id: None)  # type: ignore[arg-type]  # reads only
    started = time.perf_counter()
    fill(client, store, "advanced", args.players, args.seed)
    filled = time.perf_counter() - started
    rng = random.Random(args.seed)
    players = [f"p_{n:06d}" for n in range(args.players)]

    def update(n: int) -> None:
        seated = rng.sample(players, rng.randint(2, 4))
        places = list(range(1, len(seated) + 1))
        rng.shuffle(places)
        at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_780_000_000 + n)) + ".000Z"
        store.apply(
            Result(
                f"g{n:06d}",
                "advanced",
                at,
                tuple(Placing(s, p, p, place) for s, (p, place) in enumerate(zip(seated, places, strict=True))),
            )
        )

    # Warm the scripts and pools with games that finished before the measured ones: a warm-up game finishing later
    # would make every measured update an out-of-order one (each re-folding the 20 later games), which a live ladder,
    # fed in the order games end, almost never sees.
    warm = 20
    time_it(warm, lambda n: (update(n), service.leaderboard("advanced", limit=50)))
    single = not hasattr(client, "get_nodes")
    if single:
        client.config_resetstat()
    cpu: list[float] = []
    updates = time_it(args.updates, lambda n: update(warm + n), cpu)
    served = server_usec(client) / args.updates / 1000 if single else None
    top = time_it(args.reads, lambda n: service.leaderboard("advanced", limit=50))
    ranked = [_text(p) for p in client.zrange(store.key("advanced", "board"), 0, -1)]
    around = time_it(args.reads, lambda n: service.leaderboard("advanced", limit=50, around=rng.choice(ranked)))
    memory = client.memory_usage(store.key("advanced", "board")) or 0
    memory += client.memory_usage(store.key("advanced", "records")) or 0
    print(f"  {where}: {args.players:,} rated players written in {filled:.1f} s (leaderboard and records {memory / 1e6:.1f} MB)")
    print(
        f"    update (read, Plackett-Luce, one script), {args.updates} games of 2-4: "
        f"median {statistics.median(updates):.2f} ms, p99 {percentile(updates, 0.99):.2f} ms (target <= 5)"
    )
    print(
        f"      of which CPU: this client median {statistics.median(cpu):.2f} ms, p99 {percentile(cpu, 0.99):.2f} ms"
        + (f"; Redis {served:.3f} ms per update (INFO commandstats)" if served is not None else "")
    )
    print(f"      (the machine's load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(
        f"    top-50 leaderboard read, {args.reads} reads: median {statistics.median(top):.2f} ms, "
        f"p99 {percentile(top, 0.99):.2f} ms (target <= 20)"
    )
    print(
        f"    the 50 around a player, {args.reads} reads: median {statistics.median(around):.2f} ms, "
        f"p99 {percentile(around, 0.99):.2f} ms"
    )
    for part in ("version", "games", "records", "order", "ranked", "board", "hidden"):
        client.delete(store.key("advanced", part))
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        client.delete(key)
    return {"update_p99": percentile(updates, 0.99), "top_p99": percentile(top, 0.99)}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def fast(args: argparse.Namespace) -> None:
    from service.storage.connections import store_client
    from tests.harness.deployment import REDIS_SERVER, RedisCluster, redis_server

    if REDIS_SERVER is None:
        raise SystemExit("fast needs redis-server on the PATH (it starts its own, and a cluster)")
    print(
        f"ladder latency with {args.players:,} rated players (a redis-server and a Redis Cluster of this bench's own, "
        "on loopback; client and servers share the machine):"
    )
    with tempfile.TemporaryDirectory() as directory:
        with redis_server(Path(directory), appendfsync="everysec") as server:
            measure(server.client(), "redis-server (AOF everysec)", args)
        if args.cluster:
            (Path(directory) / "cluster").mkdir()
            cluster = RedisCluster(Path(directory) / "cluster", masters=3, replicas=0, appendfsync="everysec")
            try:
                cluster.start()
                client = store_client(cluster.url, 64)
                measure(client, "Redis Cluster, 3 primaries (a ladder is one slot)", args)
                client.close()
            finally:
                cluster.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ratings_bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="bench", required=True)
    one = sub.add_parser("ladders", help="greedy against random with and without the action rules, per variant")
    one.add_argument("--games", type=int, default=400)
    one.add_argument("--seed", type=int, default=1)
    one = sub.add_parser("ranks", help="AI levels only: expert > greedy > random?")
    one.add_argument("--games", type=int, default=300)
    one.add_argument(
        "--iterations",
        type=int,
        default=128,
        help="the expert's samples per move (in production it thinks for a second instead). At 32 the basic ladder "
        "cannot tell it from greedy; at 8 it is no stronger than greedy",
    )
    one.add_argument("--seed", type=int, default=1)
    one = sub.add_parser("predicts", help="graded strengths, split 80/20 in time: the winner predicted")
    one.add_argument("--games", type=int, default=2000)
    one.add_argument("--seed", type=int, default=1)
    one = sub.add_parser("fast", help="update and leaderboard latency with many rated players")
    one.add_argument("--players", type=int, default=100_000)
    one.add_argument("--updates", type=int, default=2000)
    one.add_argument("--reads", type=int, default=2000)
    one.add_argument("--no-cluster", dest="cluster", action="store_false", help="the single redis-server only")
    one.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    {"ladders": ladders, "ranks": ranks, "predicts": predicts, "fast": fast}[args.bench](args)


if __name__ == "__main__":
    main()
