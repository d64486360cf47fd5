"""A flood of decision analyses beside all-AI games, on the production shape: what ``tests/faults/test_analysis_queue.py``
and ``bench/analysis_flood_bench.py`` share (issue 34).

All-AI tables play throughout (:class:`Tables`: greedy, random and greedy, the advanced rules), each made
by a player of its own, a new game as each ends.  :func:`measure` gives the gaps between two events of the games that
began and ended within a window (the AIs decide in milliseconds, so a gap is the service's delay) and the CPU each kind
of process took; :func:`flood` has one token ask for many analyses at once, then another player for one, and says how
the requests were answered and how soon the other player's analysis started.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import redis

from bench.cost_meter import cpu_ms
from service.common.config import Settings
from service.domain.game import decode
from tests.harness.deployment import Client, Processes, descendants, stream_events, wait_until

#: The all-AI tables: quick AIs, so that a gap between two moves is the service's delay, not an AI's thought.
TABLE = {"seats": [{"kind": "ai", "level": level} for level in ("greedy", "random", "greedy")], "variant": "advanced"}
#: The games a flood asks about: three random AIs, advanced, with the action rules (about 90 decisions, a minute of a
#: core each to analyse).
ANALYSED = {"seats": [{"kind": "ai", "level": "random"}] * 3, "variant": "advanced", "action_rules": True}
#: A small game to analyse (two random AIs, the basic rules: about 8 decisions, a fraction of a second).
SMALL = {"seats": [{"kind": "ai", "level": "random"}] * 2, "variant": "basic"}

#: Issue 34's targets.
GAP_RATIO = 1.5
START_WITHIN = 10.0


def _at(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()


def over(text: redis.Redis, prefix: str, game_id: str) -> bool:
    """Whether the game's last event finished it (read straight from its stream)."""
    last = text.xrevrange(f"{prefix}game:{{{game_id}}}:events", count=1)
    return bool(last) and decode(last[0][1]["e"])["type"] == "game_finished"


def finished_games(
    base: str, text: redis.Redis, prefix: str, count: int, name: str, kind: dict[str, Any] = ANALYSED
) -> list[str]:
    """``count`` finished games of ``kind`` to analyse, made by players of their own (each within the AI-seat quota)."""
    made: list[str] = []
    per_player = 6  # 18 AI seats of the 24 a player may have in play
    for n in range(0, count, per_player):
        maker = Client(base).sign_up(f"{name}{n}")
        for seed in range(n, min(count, n + per_player)):
            made.append(maker.json("POST", "/games", expect=201, json={**kind, "seed": 9000 + seed})["id"])
    wait_until(lambda: all(over(text, prefix, g) for g in made), 180, f"{count} games to analyse finish", every=0.5)
    return made


@dataclass
class Tables:
    """All-AI games played one after another at ``count`` tables, each by a player of its own."""

    base: str
    text: redis.Redis
    prefix: str
    count: int
    games: list[tuple[str, float, float]] = field(default_factory=list)  # id, made, over (monotonic)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        players = [Client(self.base).sign_up(f"table{n}") for n in range(self.count)]
        self.threads = [threading.Thread(target=self._table, args=(p,), daemon=True) for p in players]
        for thread in self.threads:
            thread.start()

    def _table(self, player: Client) -> None:
        while not self.stop.is_set():
            made = time.monotonic()
            game = player.call("POST", "/games", json=TABLE)
            if game is None or game.status_code != 201:
                time.sleep(0.2)
                continue
            game_id = game.json()["id"]
            while not self.stop.is_set() and not over(self.text, self.prefix, game_id):
                time.sleep(0.05)
            with self.lock:
                self.games.append((game_id, made, time.monotonic()))

    def end(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)

    def within(self, since: float, until: float) -> list[str]:
        with self.lock:
            return [g for g, made, ended in self.games if made >= since and ended <= until]


@dataclass
class Gaps:
    """The gaps between two events of the games of a window: each game's largest (its median and p99), every gap's
    p99, and the median length of a game."""

    games: int
    largest_median: float
    largest_p99: float
    every_p99: float
    length_median: float

    def line(self) -> str:
        return (
            f"{self.games:4d} games; largest gap a game: median {self.largest_median * 1000:6.1f} ms, "
            f"p99 {self.largest_p99 * 1000:6.1f} ms; every gap: p99 {self.every_p99 * 1000:6.1f} ms; "
            f"a game {self.length_median:.2f} s"
        )


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]


def gaps(text: redis.Redis, prefix: str, game_ids: list[str]) -> Gaps:
    largest, every, lengths = [], [], []
    for game_id in game_ids:
        times = [_at(e) for e in stream_events(text, prefix, game_id)]
        between = [b - a for a, b in itertools.pairwise(times)]
        largest.append(max(between))
        every += between
        lengths.append(times[-1] - times[0])
    assert largest, "no game began and ended within the window"
    return Gaps(len(largest), statistics.median(largest), p99(largest), p99(every), statistics.median(lengths))


@dataclass
class Flood:
    """What a flood met: the answers to its requests (by status), how long after asking the other player's analysis
    started and ended (``None``: not within the window), and how many of the flood's were done by its end."""

    answers: Counter[int]
    refusals: list[dict[str, Any]]
    started_after: float | None
    done_after: float | None
    flooder_done: int


def flood(fay: Client, gus: Client, fays: list[str], gus_game: str, requests: int, seconds: float) -> Flood:
    """Fay asks for ``requests`` analyses of ``fays`` (in turn), 8 at a time; then Gus for one of ``gus_game``, whose
    progress is read every 0.1 s until it starts, then every second, for ``seconds`` at most."""
    with ThreadPoolExecutor(8) as pool:
        paths = [f"/games/{fays[n % len(fays)]}/analysis" for n in range(requests)]
        answers = list(pool.map(lambda path: fay.call("POST", path), paths))
    counted = Counter(a.status_code if a is not None else 0 for a in answers)
    refusals = [
        {**a.json(), "retry_after": a.headers.get("Retry-After")} for a in answers if a is not None and a.status_code == 429
    ]
    asked = time.monotonic()
    gus.json("POST", f"/games/{gus_game}/analysis", expect=202)
    started = done = None
    while time.monotonic() < asked + seconds and done is None:
        status = gus.json("GET", f"/games/{gus_game}/analysis")["status"]
        if started is None and status in ("running", "done"):
            started = time.monotonic() - asked
        if status == "done":
            done = time.monotonic() - asked
        time.sleep(0.1 if started is None else 1.0)  # then no faster than a client showing its progress
    read = [fay.call("GET", f"/games/{g}/analysis") for g in fays]  # 404: one past the budget, never asked for
    flooder_done = sum(1 for r in read if r is not None and r.status_code == 200 and r.json()["status"] == "done")
    return Flood(counted, refusals, started, done, flooder_done)


def cpu_of(deployment: Processes, redis_pid: int) -> dict[str, float]:
    """CPU seconds so far of each kind of process: the workers (their own), the analysts (the workers' children),
    gunicorn (all its processes), redis-server."""
    workers = [p.pid for p in deployment.started if "worker" in map(str, p.args)]
    api = [p.pid for p in deployment.started if "gunicorn" in map(str, p.args)]
    children = [child for pid in workers for child in descendants(pid)]
    return {
        "workers": cpu_ms(workers, lambda _: []) / 1000,
        "analysts": cpu_ms(children, lambda _: []) / 1000,
        "gunicorn": cpu_ms(api, descendants) / 1000,
        "redis-server": cpu_ms([redis_pid], lambda _: []) / 1000,
    }


@dataclass
class Window:
    gaps: Gaps
    cpu: dict[str, float]


def measure(
    tables: Tables, seconds: float, cpu: Callable[[], dict[str, float]], during: Callable[[], Any] | None = None
) -> tuple[Window, Any]:
    """The games that began and ended within ``seconds`` from now, with ``during()`` run meanwhile (its result
    returned beside), and the CPU seconds each kind of process took."""
    since, before = time.monotonic(), cpu()
    result = during() if during is not None else None
    left = since + seconds - time.monotonic()
    if left > 0:
        time.sleep(left)
    after = cpu()
    spent = {kind: after[kind] - before[kind] for kind in before}
    return Window(gaps(tables.text, tables.prefix, tables.within(since, time.monotonic())), spent), result


@dataclass
class Outcome:
    """Both runs: without the flood, and with it."""

    without: Window
    with_flood: Window
    flood: Flood
    budget: int
    gus_game: str

    @property
    def median_ratio(self) -> float:
        return self.with_flood.gaps.largest_median / self.without.gaps.largest_median

    @property
    def p99_ratio(self) -> float:
        return self.with_flood.gaps.every_p99 / self.without.gaps.every_p99

    def report(self) -> list[str]:
        f = self.flood
        started = f"{f.started_after:.1f} s" if f.started_after is not None else "not within the run"
        done = f"{f.done_after:.1f} s" if f.done_after is not None else "not within the run"

        def cpu(spent: dict[str, float]) -> str:
            return ", ".join(f"{kind} {seconds:.1f}" for kind, seconds in spent.items())

        return [
            f"without the flood: {self.without.gaps.line()}",
            f"with the flood:    {self.with_flood.gaps.line()}",
            f"CPU seconds without: {cpu(self.without.cpu)}",
            f"CPU seconds with:    {cpu(self.with_flood.cpu)}",
            f"the flood: {sum(f.answers.values())} requests from one token at once, "
            + ", ".join(f"{n} x {code}" for code, n in sorted(f.answers.items()))
            + f" (its budget: {self.budget}); of its analyses, {f.flooder_done} done by the end",
            f"the other player's analysis started {started} after asking (target <= {START_WITHIN:.0f} s), ended {done}",
            f"with / without: the median of each game's largest gap {self.median_ratio:.2f}x, "
            f"every gap's p99 {self.p99_ratio:.2f}x (target <= {GAP_RATIO}x)",
        ]


def run(
    deployment: Processes,
    base: str,
    text: redis.Redis,
    redis_pid: int,
    seconds: float,
    table_count: int,
    requests: int,
    distinct: int,
    gus_kind: dict[str, Any] = ANALYSED,
) -> Outcome:
    """Both runs on a deployment with its API (at ``base``) and workers up: ``table_count`` all-AI tables throughout,
    ``seconds`` without the flood, then ``seconds`` with it (``requests`` from one token about ``distinct`` finished
    games, then another player's request about a game of ``gus_kind``)."""
    prefix = deployment.prefix
    fays = finished_games(base, text, prefix, distinct, "maker")
    (gus_game,) = finished_games(base, text, prefix, 1, "gusmaker", gus_kind)
    fay, gus = Client(base).sign_up("Fay"), Client(base).sign_up("Gus")
    tables = Tables(base, text, prefix, table_count)
    tables.start()
    try:
        time.sleep(3)  # every table under way
        cpu = lambda: cpu_of(deployment, redis_pid)  # noqa: E731
        without, _ = measure(tables, seconds, cpu)
        with_flood, flooded = measure(tables, seconds, cpu, lambda: flood(fay, gus, fays, gus_game, requests, seconds - 1))
    finally:
        tables.end()
    budget = int(Settings.from_env(deployment.env).rate_limit_analysis.split()[0])
    return Outcome(without, with_flood, flooded, budget, gus_game)
