"""The load generator of the API benchmark (``python -m bench.api_bench``) and its statistics.

- games played ahead of time: seeded two-human games made through the service, each with the
  accepted steps the engine says keep the mover in the round (``plan_actions``, ``make_games``),
  handed out to client threads from a ``GamePool``;
- ``measure``: client threads, each on its own keep-alive connection, sending requests for a
  warm-up and then a measured window; a ``Result`` holds the rate, the latencies and their
  percentiles, and the count of answers other than 200;
- the requests sent: ``send_get``, ``send_bare_post``, ``send_game_views``, ``send_actions``.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.api_serving import KeepAliveClient

# --- games played ahead of time ---------------------------------------------------------------------------------


@dataclass
class PlannedGame:
    """A seeded two-human game and the accepted steps the benchmark will send, in order."""

    game_id: str
    tokens: tuple[str, str]
    actions: list[tuple[int, dict[str, Any]]]  # (seat, step)
    next: int = 0


def plan_actions(seed: int, limit: int = 200) -> list[tuple[int, dict[str, Any]]]:
    """The steps of one round of a seeded game, each legal and keeping its player in, as the engine sees it."""
    from engine import GameState, Start, Variant, decide_and_fold, legal_steps, step_to_dict

    _, state = decide_and_fold(GameState(), Start(2, Variant.ADVANCED, False, seed, None))
    out = []
    while len(out) < limit:
        options = [o for o in legal_steps(state) if o.can_win and not o.eliminates]
        if not options or state.turn is None:
            break
        seat = state.turn.seat
        choice = options[len(out) % len(options)]
        _, state = decide_and_fold(state, choice.step, seat)
        out.append((seat, step_to_dict(choice.step)))
        if state.turn is None or state.turn.seat is None:
            break
    return out


class GamePool:
    """Games handed out to client threads, one at a time."""

    def __init__(self, games: list[PlannedGame]) -> None:
        self._games = list(reversed(games))
        self._lock = threading.Lock()

    def take(self) -> PlannedGame | None:
        with self._lock:
            return self._games.pop() if self._games else None

    def __len__(self) -> int:
        return len(self._games)


def make_games(
    port: int, count: int, seed_base: int, players: tuple[dict[str, Any], dict[str, Any]], parallel: int = 8
) -> list[PlannedGame]:
    """``count`` active two-human games (each seeded, both seats taken), with their planned steps."""
    seeds = [seed_base + i for i in range(count)]
    out: list[PlannedGame | None] = [None] * count
    errors: list[BaseException] = []

    def work(indices: list[int]) -> None:
        client = KeepAliveClient(port)
        try:
            for i in indices:
                ana, bo = players
                created = client.json(
                    "POST",
                    "/v1/games",
                    {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": seeds[i]},
                    ana["token"],
                    expect=201,
                )
                client.json("POST", f"/v1/games/{created['id']}/join", {"code": created["join_code"]}, bo["token"])
                out[i] = PlannedGame(created["id"], (ana["token"], bo["token"]), plan_actions(seeds[i]))
        except BaseException as exc:
            errors.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=work, args=(list(range(k, count, parallel)),)) for k in range(parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [g for g in out if g is not None]


# --- measuring --------------------------------------------------------------------------------------------------


@dataclass
class Result:
    label: str
    method: str
    clients: int
    ok: int = 0
    other: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    #: The server's CPU (all its processes) over the measured seconds, in ms; ``None``: not measured.
    cpu_ms: float | None = None

    @property
    def cpu_us_per_request(self) -> float:
        answered = self.ok + sum(self.other.values())
        return math.nan if self.cpu_ms is None or not answered else self.cpu_ms * 1000 / answered

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] * 1000


Request = Callable[[KeepAliveClient, "ThreadState"], tuple[int, bool]]  # -> (status, keep going)


@dataclass
class ThreadState:
    index: int
    game: PlannedGame | None = None


def measure(
    label: str,
    method: str,
    port: int,
    clients: int,
    seconds: float,
    warmup: float,
    send: Request,
    cpu: Callable[[], float] | None = None,
) -> Result:
    """``clients`` threads, each on its own keep-alive connection, for ``warmup`` + ``seconds``; only the latter counts.

    ``cpu``: the server's CPU so far (ms), read as the measured seconds start and once every client is done: CPU per
    request does not depend on what else the machine runs, as requests per second do."""
    result = Result(label, method, clients)
    lock = threading.Lock()
    start_barrier = threading.Barrier(clients + 1)
    window: dict[str, float] = {}
    stop_at = [math.inf]
    finished_at: list[float] = []

    def run(index: int) -> None:
        client = KeepAliveClient(port)
        state = ThreadState(index)
        latencies: list[float] = []
        ok = 0
        other: Counter = Counter()
        start_barrier.wait()
        try:
            while True:
                began = time.perf_counter()
                if began >= stop_at[0]:
                    break
                status, more = send(client, state)
                ended = time.perf_counter()
                if began >= window["start"]:
                    if status == 200:
                        ok += 1
                        latencies.append(ended - began)
                    elif status:
                        other[status] += 1
                if not more:
                    break
        finally:
            client.close()
            with lock:
                result.ok += ok
                result.other.update(other)
                result.latencies.extend(latencies)
                finished_at.append(time.perf_counter())

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    now = time.perf_counter()
    window["start"] = now + warmup
    stop_at[0] = window["start"] + seconds
    start_barrier.wait()
    if cpu is not None:
        time.sleep(max(0.0, window["start"] - time.perf_counter()))
        before = cpu()
    for t in threads:
        t.join()
    if cpu is not None:
        result.cpu_ms = cpu() - before
    # A POST run may end early when the game pool runs dry: count the time the clients really ran.
    result.seconds = max(0.001, min(stop_at[0], max(finished_at)) - window["start"])
    return result


def send_get(path: str, token: str | None = None) -> Request:
    def send(client: KeepAliveClient, _: ThreadState) -> tuple[int, bool]:
        status, _, _ = client.request("GET", path, token=token)
        return status, True

    return send


def send_bare_post() -> Request:
    body = {"steps": [{"type": "play", "card": "R7"}]}

    def send(client: KeepAliveClient, _: ThreadState) -> tuple[int, bool]:
        status, _, _ = client.request("POST", "/bare", body)
        return status, True

    return send


def send_game_views(games: list[PlannedGame]) -> Request:
    def send(client: KeepAliveClient, state: ThreadState) -> tuple[int, bool]:
        game = games[state.index % len(games)]
        status, _, _ = client.request("GET", f"/v1/games/{game.game_id}", token=game.tokens[0])
        return status, True

    return send


def send_actions(pool: GamePool, desyncs: Counter) -> Request:
    def send(client: KeepAliveClient, state: ThreadState) -> tuple[int, bool]:
        game = state.game
        while game is None or game.next >= len(game.actions):
            game = state.game = pool.take()
            if game is None:
                return 0, False  # the pool ran dry: this client is done
        seat, step = game.actions[game.next]
        game.next += 1
        status, payload, _ = client.request("POST", f"/v1/games/{game.game_id}/actions", {"steps": [step]}, game.tokens[seat])
        if status != 200:
            desyncs[f"{status} {_code(payload)}"] += 1
            state.game = None  # the plan no longer matches that game: take another
        return status, True

    return send


def _code(payload: bytes) -> str:
    try:
        return str(json.loads(payload).get("code"))
    except ValueError:
        return "?"
