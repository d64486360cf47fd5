"""Cost: what one accepted human move, and one human turn, costs Redis and the app; what a game keeps in Redis.

    python -m bench.cost_bench                 # 40 moves, 20 samples of each part, a day, 10 s idle: ~30 s
    python -m bench.cost_bench --moves 5 --day-turns 3 --samples 5
    python -m bench.cost_bench --split           # the stores' Redis and the queue's apart, each measured apart

The production shape with the production defaults: a redis-server of its own
(AOF, ``appendfsync always``, as docker-compose ships it), gunicorn as the
image runs it (one gevent process), one ``red7 worker``; the default rate
limits, key prefix and queue; a webhook on every player (a receiver on
loopback answering 200); ``If-Match`` and ``Idempotency-Key`` on every POST.
One human plays a greedy and a random AI (advanced rules, card actions) as a
frontend does: GET the view, POST a step, long-poll until it is their turn
again.  Printed:

- per accepted human move and per human turn (its POSTs, the views and
  long-polls the client made, the AI turns in between and every job): Redis
  commands, Redis CPU (µs), the time inside commands (µs, from commandstats),
  gunicorn's and the worker's CPU (ms), and the ten commands called most;
  counted between two quiet points (queues empty, nothing running, nothing on
  the agenda due soon, the human to move), creating games left out;
- the parts apart: a GET view with the default limits and on a second
  gunicorn without limits, a POST alone (the worker stopped meanwhile), the
  jobs it makes, a long-poll answered at once, and the idle background (the
  worker's pulse and ticker) per second;
- memory: the keys one live asynchronous game holds at one move per player
  per hour (TTLs applied as bench/cost_keys.py says), half an hour after its
  last hour of play within a day (a game of three ends within about 15 hours
  at that pace, so its last hour in play is taken), and what a finished game
  keeps for good; then more games played to their end (``--finished-games``),
  each sized apart, since games differ in length.
- with ``--split``, production's split: the stores on one redis-server and the queue (RQ, the agenda, shares,
  markers, pulses) on another (``RED7_QUEUE_URL``), both with the AOF policy asked; per accepted human move, for
  each Redis apart: commands, round trips, AOF flushes (fsyncs, with ``always``) and CPU (bench/cost_meter.py
  says how each is counted); then who asks the stores (MONITOR on the stores' Redis), the parts and memory left out;
- who asks: more moves played under Redis's MONITOR (a phase of its own: it
  costs the server), each command put down to the part of the service that
  sent it by the key it touches (bench/cost_owners.py): RQ, rate limits,
  idempotency records, the event store, the agenda, fair shares, markers.
"""

from __future__ import annotations

import argparse
import http.server
import os
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import requests
from rq import Queue
from rq.registry import StartedJobRegistry

from bench.cost_keys import KeyLedger, by_kind
from bench.cost_meter import Cost, Meter
from bench.cost_owners import monitored, tally
from service.common.config import Settings
from tests.faults.players import pick
from tests.harness.deployment import Client, RedisServer, descendants, processes, redis_server

DEFAULTS = Settings()
SEATS = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
NEW_GAME = {"seats": SEATS, "variant": "advanced", "action_rules": True}
#: The service as production runs it: the limits, prefix and queue of ``Settings``, webhooks to loopback allowed.
PRODUCTION = {
    "RED7_RATE_LIMIT_TOKEN": DEFAULTS.rate_limit_token,
    "RED7_RATE_LIMIT_ADDRESS": DEFAULTS.rate_limit_address,
    "RED7_RATE_LIMIT_SIGNUP": DEFAULTS.rate_limit_signup,
    "RED7_RATE_LIMIT_IMPORT": DEFAULTS.rate_limit_import,
    "RED7_KEY_PREFIX": DEFAULTS.key_prefix,
    "RED7_QUEUE_NAME": DEFAULTS.queue_name,
    "RED7_WEBHOOK_PRIVATE_HOSTS": "1",
}
NO_LIMITS = {
    "RED7_RATE_LIMIT_TOKEN": "",
    "RED7_RATE_LIMIT_ADDRESS": "",
    "RED7_RATE_LIMIT_SIGNUP": "",
    "RED7_RATE_LIMIT_IMPORT": "",
}


# --- a webhook receiver -----------------------------------------------------------------------------------------


class _Hook(http.server.BaseHTTPRequestHandler):
    received = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).received += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def webhook_receiver() -> Iterator[str]:
    """A receiver on loopback answering every delivery 200; its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- a frontend -------------------------------------------------------------------------------------------------


@dataclass
class Frontend:
    """One player's client as /play behaves: If-Match and a fresh Idempotency-Key on every POST, 429s waited out."""

    client: Client
    asked: dict[str, int] = field(default_factory=lambda: {"create": 0, "view": 0, "post": 0, "poll": 0, "429": 0})

    def call(self, kind: str, method: str, path: str, **kwargs: Any) -> requests.Response:
        if method == "POST":
            kwargs["headers"] = {"Idempotency-Key": uuid.uuid4().hex, **kwargs.get("headers", {})}
        for _ in range(20):
            response = self.client.call(method, path, timeout=40, **kwargs)
            assert response is not None, f"{method} {path}: no answer"
            self.asked[kind] += 1
            if response.status_code != 429:
                return response
            self.asked["429"] += 1
            time.sleep(float(response.headers.get("Retry-After") or 1))
        raise AssertionError(f"{method} {path}: still 429")

    def create_game(self) -> str:
        response = self.call("create", "POST", "/games", json=NEW_GAME)
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def view(self, game: str) -> dict[str, Any]:
        response = self.call("view", "GET", f"/games/{game}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait_news(self, game: str, version: int) -> None:
        response = self.call("poll", "GET", f"/games/{game}/events?after={version}&wait=25")
        assert response.status_code == 200, response.text

    def act(self, game: str, view: dict[str, Any]) -> dict[str, Any] | None:
        """POST one step; the answer's view, or None on a 409 (the view was stale)."""
        headers, body = {"If-Match": f'"{view["version"]}"'}, {"steps": [pick(view["legal_steps"])]}
        response = self.call("post", "POST", f"/games/{game}/actions", json=body, headers=headers)
        if response.status_code == 409:
            return None
        assert response.status_code == 200, response.text
        return dict(response.json())

    def my_turn(self, game: str) -> dict[str, Any]:
        """GET the view, long-polling until it is this player's turn or the game is over."""
        view = self.view(game)
        while view["status"] != "finished" and not view["legal_steps"]:
            self.wait_news(game, view["version"])
            view = self.view(game)
        return view

    def play_turn(self, game: str) -> tuple[int, bool]:
        """One human turn as a frontend plays it: (accepted POSTs, whether the game is over)."""
        view = self.my_turn(game)
        moves = 0
        while view["status"] != "finished":
            answer = self.act(game, view)
            if answer is None:
                view = self.view(game)
                continue
            moves += 1
            if not answer["legal_steps"]:
                return moves, answer["status"] == "finished"
            view = answer
        return moves, True


# --- the deployment and its quiet points ------------------------------------------------------------------------


@dataclass
class Bench:
    server: RedisServer
    meter: Meter
    api: str  # gunicorn with the defaults
    bare_api: str  # gunicorn without rate limits
    worker_pid: int
    hook: str
    lists: list[str]  # the queues, and the intermediate lists a worker moves a job to as it takes it
    registries: list[str]  # the jobs running
    stores_meter: Meter | None = None  # split: the stores' Redis (``meter`` is then the queue's)

    def player(self, base: str | None = None) -> Frontend:
        me = Client(base or self.api).sign_up(f"cost{uuid.uuid4().hex[:6]}")
        assert me.json("PATCH", "/players/me", json={"webhook_url": self.hook})["webhook_url"] == self.hook
        return Frontend(me)

    def quiet(self, timeout: float = 60) -> None:
        """Wait until no job is queued or running and nothing on the agenda is due within 10 s (twice in a row)."""
        deadline, calm = time.monotonic() + timeout, 0
        agenda = f"{DEFAULTS.key_prefix}agenda"
        while calm < 2:
            assert time.monotonic() < deadline, "the service did not come to rest"
            busy = any(self.meter.probe("LLEN", key) for key in self.lists)
            busy = busy or any(self.meter.probe("ZCARD", key) for key in self.registries)
            soon = int(time.time() * 1000) + 10_000
            busy = busy or bool(self.meter.probe("ZRANGEBYSCORE", agenda, "-inf", soon, "LIMIT", 0, 1))
            calm = 0 if busy else calm + 1
            time.sleep(0.05)

    @contextmanager
    def worker_stopped(self) -> Iterator[None]:
        """The worker's process tree frozen (SIGSTOP) for the few ms of a request, so that its jobs wait."""
        tree = [self.worker_pid, *descendants(self.worker_pid)]
        for pid in tree:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in tree:
                os.kill(pid, signal.SIGCONT)

    def measured(self, action: Callable[[], Any], *, settle: bool = False) -> tuple[Any, Cost]:
        """Run ``action`` between two snapshots (after it, wait for quiet first if ``settle``)."""
        before = self.meter.snapshot()
        result = action()
        if settle:
            self.quiet()
        return result, self.meter.cost(before, self.meter.snapshot())


# --- the measurements -------------------------------------------------------------------------------------------


@dataclass
class PlayTally:
    cost: Cost = field(default_factory=Cost)
    stores: Cost = field(default_factory=Cost)  # split: the stores' Redis (``cost`` is then the queue's)
    moves: int = 0
    turns: int = 0
    games: int = 0


def per_move(bench: Bench, moves: int) -> tuple[PlayTally, Frontend]:
    """Play ``moves`` accepted human moves as a frontend does; what they cost between quiet points."""
    me, tally = bench.player(), PlayTally()
    while tally.moves < moves:
        game = me.create_game()
        tally.games += 1
        bench.quiet()
        stores_before = bench.stores_meter.snapshot() if bench.stores_meter else None
        before = bench.meter.snapshot()
        over = False
        while not over and tally.moves < moves:
            accepted, over = me.play_turn(game)
            tally.moves += accepted
            tally.turns += 1
        if not over:
            me.my_turn(game)  # the AIs' answer to the last move, as the client sees it
        bench.quiet()
        tally.cost += bench.meter.cost(before, bench.meter.snapshot())
        if bench.stores_meter and stores_before:
            tally.stores += bench.stores_meter.cost(stores_before, bench.stores_meter.snapshot())
    return tally, me


@dataclass
class Parts:
    view: Cost = field(default_factory=Cost)
    bare_view: Cost = field(default_factory=Cost)
    post: Cost = field(default_factory=Cost)
    jobs: Cost = field(default_factory=Cost)
    poll: Cost = field(default_factory=Cost)
    idle: Cost = field(default_factory=Cost)
    nothing: Cost = field(default_factory=Cost)  # empty intervals: two snapshots in a row
    nothings: int = 0
    views: int = 0
    posts: int = 0
    polls: int = 0

    def net(self) -> dict[str, tuple[Cost, int]]:
        """Each part without what measuring it cost (a snapshot's INFO) and, for the jobs, without the idle
        background of the seconds waited for them: (cost, samples)."""
        one = 1 / max(self.nothings, 1)  # the share of self.nothing that one interval costs
        jobs = self.jobs.less(self.nothing, self.posts * one).less(self.idle, self.jobs.seconds / max(self.idle.seconds, 1e-9))
        return {
            "GET view, default rate limits": (self.view.less(self.nothing, one), self.views),
            "GET view, no rate limits": (self.bare_view.less(self.nothing, one), self.views),
            "POST action (the request alone)": (self.post.less(self.nothing, self.posts * one), self.posts),
            "its jobs (AI turns, scoring, webhooks)": (jobs, self.posts),
            "long-poll answered at once": (self.poll.less(self.nothing, self.polls * one), self.polls),
            f"idle background, per second ({self.idle.seconds:.0f} s)": (self.idle, self.idle.seconds),
        }


def parts(bench: Bench, me: Frontend, samples: int, idle_seconds: float) -> Parts:
    """Each part of a move on its own: views (with and without limits), a POST, its jobs, a long-poll, idleness."""
    out = Parts()
    bare = Frontend(Client(bench.bare_api, me.client.token, me.client.player_id))
    game = me.create_game()
    bench.quiet()
    _, out.idle = bench.measured(lambda: time.sleep(idle_seconds))
    for _ in range(samples):
        out.nothing += bench.measured(lambda: None)[1]
        out.nothings += 1
    me.my_turn(game)
    bench.quiet()
    out.view += bench.measured(lambda: [me.view(game) for _ in range(samples)])[1]
    out.bare_view += bench.measured(lambda: [bare.view(game) for _ in range(samples)])[1]
    out.views = samples
    while out.posts < samples:
        view = me.my_turn(game)
        if view["status"] == "finished":
            game = me.create_game()
            continue
        bench.quiet()
        with bench.worker_stopped():
            answer, cost = bench.measured(partial(me.act, game, view))
        if answer is None:
            continue
        out.post += cost
        out.posts += 1
        out.jobs += bench.measured(lambda: None, settle=True)[1]
        if answer["status"] != "finished" and not answer["legal_steps"]:  # the AIs have moved since: no wait
            out.poll += bench.measured(partial(me.wait_news, game, answer["version"]))[1]
            out.polls += 1
    return out


@dataclass
class Memory:
    live: dict[str, int]
    live_turns: int  # simulated hours (human turns) it had been in play when measured
    over_within_the_day: bool
    finished: dict[str, int]
    transient: dict[str, int]  # keys with a TTL at the end of the game: gone later, not counted
    shared_growth: int
    used_memory_delta: int
    names: dict[str, str]
    events: int = 0  # how many the finished game's stream holds


def memory(bench: Bench, day_turns: int) -> Memory:
    """A live asynchronous game after a simulated day, then the same game played to its end."""
    me = bench.player()
    client = bench.server.client()
    ledger = KeyLedger(client)
    ledger.start()
    used_before = int(client.info("memory")["used_memory"])
    game = me.create_game()
    names = {DEFAULTS.key_prefix: "", game: "<game>", str(me.client.player_id): "<player>"}
    turns, over, live, live_turns, used_after = 0, False, {}, 0, used_before
    while turns < day_turns and not over:
        _, over = me.play_turn(game)
        if not over:  # the AIs' answer, which may end the game
            over = me.my_turn(game)["status"] == "finished"
        bench.quiet()
        ledger.observe(hour=turns)
        turns += 1
        if not over:  # the game half an hour after this hour's moves: the middle of the wait for the next ones
            live, live_turns = ledger.alive(at_hour=turns - 0.5), turns
            used_after = int(client.info("memory")["used_memory"])
    while not over:
        _, over = me.play_turn(game)
    bench.quiet()
    ledger.observe(hour=turns)
    everything = ledger.alive(at_hour=turns)
    finished = {key: used for key, used in everything.items() if ledger.last_pttl.get(key) == -1}
    transient = {key: used for key, used in everything.items() if key not in finished}
    events = int(client.get(f"{DEFAULTS.key_prefix}game:{{{game}}}:version") or 0)
    return Memory(live, live_turns, over, finished, transient, ledger.shared_growth(), used_after - used_before, names, events)


def finished_games(bench: Bench, count: int) -> list[tuple[int, int]]:
    """Play ``count`` more games to their end: what each keeps for good (bytes, by MEMORY USAGE) and its events.

    Games differ in length (a round ends when a player cannot play), so one game says little of the next."""
    me = bench.player()
    client = bench.server.client()
    prefix, out = DEFAULTS.key_prefix, []
    for _ in range(count):
        game = me.create_game()
        over = False
        while not over:
            _, over = me.play_turn(game)
        bench.quiet()
        keys = [f"{prefix}game:{{{game}}}:{part}" for part in ("events", "version", "snapshot", "idem")]
        kept = sum(int(client.memory_usage(key, samples=0) or 0) for key in keys if client.ttl(key) == -1)
        out.append((kept, int(client.get(keys[1]) or 0)))
    return out


def report_finished(sizes: list[tuple[int, int]]) -> None:
    kept = sorted(size for size, _ in sizes)
    events = [n for _, n in sizes]
    print(
        f"\n{len(sizes)} more finished games, what each keeps for good (its stream and version; its player's list of "
        f"finished games, ~0.1 KB, apart): median {statistics.median(kept) / 1024:.1f} KB, largest "
        f"{kept[-1] / 1024:.1f} KB; {statistics.median(events):.0f} events (median), "
        f"{sum(kept) / max(sum(events), 1):.0f} bytes an event"
    )


# --- printing ---------------------------------------------------------------------------------------------------


@dataclass
class Owners:
    commands: Counter[str]
    moves: int
    turns: int
    sent: Counter[str] = field(default_factory=Counter)  # those the clients sent (a script's own commands left out)


def owners(bench: Bench, moves: int) -> Owners:
    """Play ``moves`` more accepted moves under MONITOR: every command of them (the client's views and long-polls,
    the jobs, the background meanwhile), put down to the part of the service that sent it."""
    me = bench.player()
    game = me.create_game()
    bench.quiet()
    skip = {str(bench.meter.redis.client_info()["addr"])}  # the bench's own probes, while it waits for quiet
    played = turns = 0
    with monitored(bench.server.client(), skip=skip) as seen:
        while played < moves:
            accepted, over = me.play_turn(game)
            played, turns = played + accepted, turns + 1
            if over:
                break
        me.my_turn(game)
        bench.quiet()
    return Owners(tally(seen), played, turns, tally([(where, command) for where, command in seen if where != "lua"]))


def report_owners(out: Owners) -> None:
    total = sum(out.commands.values())
    print(
        f"\nWho asks (MONITOR, {out.moves} more accepted moves in {out.turns} human turns, views, long-polls, jobs and "
        f"background included): {total / max(out.moves, 1):.1f} commands per accepted move"
    )
    for owner, calls in out.commands.most_common():
        print(f"    {owner:60} {calls / max(out.moves, 1):7.1f}  {calls / max(total, 1):5.0%}")
    sent = sum(out.sent.values())
    print(f"of them sent by the clients (a script counts once, its own commands left out): {sent / max(out.moves, 1):.1f}")
    for owner, calls in out.sent.most_common():
        print(f"    {owner:60} {calls / max(out.moves, 1):7.1f}  {calls / max(sent, 1):5.0%}")


def row(label: str, cost: Cost, n: float) -> str:
    n = n if n > 0 else 1
    return (
        f"{label:38} {cost.commands / n:9.1f} {cost.redis_cpu_us / n:9.0f} {cost.command_usec / n:9.0f} "
        f"{cost.app_ms.get('gunicorn', 0.0) / n:9.2f} {cost.app_ms.get('worker', 0.0) / n:9.2f}"
    )


HEADER = f"{'':38} {'commands':>9} {'Redis µs':>9} {'in cmds':>9} {'gunicorn':>9} {'worker':>9}"
UNITS = f"{'':38} {'':>9} {'CPU':>9} {'µs':>9} {'CPU ms':>9} {'CPU ms':>9}"


def top(cost: Cost, n: float, count: int = 10) -> str:
    return ", ".join(f"{name} {calls / max(n, 1):.1f}" for name, calls in cost.calls.most_common(count))


def report_moves(tally: PlayTally, me: Frontend) -> None:
    asked = me.asked
    print(
        f"\nPer accepted human move: {tally.moves} moves in {tally.turns} human turns of {tally.games} game(s), "
        f"{tally.cost.seconds:.1f} s measured; the client made {asked['view']} views, {asked['post']} POSTs, "
        f"{asked['poll']} long-polls ({asked['429']} answered 429)"
    )
    print(HEADER)
    print(UNITS)
    print(row("per accepted human move", tally.cost, tally.moves))
    print(row("per human turn", tally.cost, tally.turns))
    print(f"top 10 commands per accepted move: {top(tally.cost, tally.moves)}")
    n = max(tally.moves, 1)
    print(f"round trips per accepted move: {tally.cost.round_trips / n:.1f}; AOF flushes: {tally.cost.aof_flushes / n:.1f}")


def report_split(tally: PlayTally) -> None:
    """Each Redis apart, per accepted human move."""
    n = max(tally.moves, 1)
    print(f"\nEach Redis apart, per accepted human move ({tally.moves} moves):")
    print("(commands: those run, a script's own included; what the clients sent is in the MONITOR phase below)")
    print(f"{'':16} {'commands':>9} {'round trips':>12} {'AOF flushes':>12} {'Redis CPU µs':>13}")
    for name, cost in (("stores Redis", tally.stores), ("queue Redis", tally.cost)):
        print(
            f"{name:16} {cost.commands / n:9.1f} {cost.round_trips / n:12.1f} {cost.aof_flushes / n:12.1f} "
            f"{cost.redis_cpu_us / n:13.0f}"
        )
    for name, cost in (("stores Redis", tally.stores), ("queue Redis", tally.cost)):
        print(f"top 10 commands per accepted move, {name}: {top(cost, tally.moves)}")


def report_parts(out: Parts) -> None:
    print(
        f"\nThe parts ({out.posts} samples each; the worker stopped during the POST, so its jobs are apart; "
        f"the bench's own INFO, {out.nothing.redis_cpu_us / max(out.nothings, 1):.0f} µs Redis CPU, and the idle "
        "background while waiting for the jobs taken off):"
    )
    print(HEADER)
    print(UNITS)
    net = out.net()
    for label, (cost, n) in net.items():
        print(row(label, cost, n))
    for label, (cost, n) in [*list(net.items())[:4], list(net.items())[5]]:
        print(f"top 10 commands, {label}: {top(cost, n)}")


def kb(usage: dict[str, int]) -> str:
    return f"{sum(usage.values()) / 1024:.1f} KB in {len(usage)} keys"


def report_memory(mem: Memory) -> None:
    print("\nMemory (MEMORY USAGE of the keys a game created that would still exist):")
    if mem.over_within_the_day:
        when = f"{mem.live_turns - 0.5} h in, half an hour after its last hour's moves before the end (it ended within the day)"
    else:
        when = f"{mem.live_turns - 0.5} h in, half an hour after its last hour's moves"
    print(f"live async game, one move per player per hour, {when}: {kb(mem.live)}")
    for kind, keys, used in by_kind(mem.live, mem.names):
        print(f"    {kind:60} {keys:4} keys {used / 1024:8.1f} KB")
    print(
        f"    (INFO used_memory grew {mem.used_memory_delta / 1024:.1f} KB meanwhile, expired-to-be keys included; "
        f"keys there before the game grew {mem.shared_growth / 1024:.1f} KB by its end)"
    )
    stream = sum(used for key, used in mem.finished.items() if key.endswith(":events"))
    print(
        f"finished game, what it keeps for good (no TTL): {kb(mem.finished)}; its stream holds {mem.events} events, "
        f"{stream / max(mem.events, 1):.0f} bytes each (games vary in length: see the games below)"
    )
    for kind, keys, used in by_kind(mem.finished, mem.names):
        print(f"    {kind:60} {keys:4} keys {used / 1024:8.1f} KB")
    print(f"    and for a while, until their TTLs run out: {kb(mem.transient)}")
    for kind, keys, used in by_kind(mem.transient, mem.names)[:6]:
        print(f"    {kind:60} {keys:4} keys {used / 1024:8.1f} KB")


# --- main -------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40, help="accepted human moves to measure")
    parser.add_argument("--samples", type=int, default=20, help="samples of each part (views, POST, jobs, long-poll)")
    parser.add_argument("--day-turns", type=int, default=24, help="human turns of the simulated day (one an hour)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idleness measured")
    parser.add_argument("--finished-games", type=int, default=5, help="more games played to their end, to size them")
    parser.add_argument(
        "--owner-moves", type=int, default=20, help="accepted moves played under MONITOR to tell who sends each command (0: none)"
    )
    parser.add_argument(
        "--appendfsync",
        default="always",
        choices=["always", "everysec", "no"],
        help="redis-server's AOF fsync policy (docker-compose ships always): what fsyncs cost Redis's CPU",
    )
    parser.add_argument("--split", action="store_true", help="the stores' Redis and the queue's apart, each measured apart")
    args = parser.parse_args(argv)
    if args.split:
        return split(args)
    directory = Path(tempfile.mkdtemp(prefix="red7-cost-"))
    started = time.monotonic()
    with (
        webhook_receiver() as hook,
        redis_server(directory, appendfsync=args.appendfsync) as server,
        processes(directory, server.url, **PRODUCTION) as deployment,
    ):
        api = deployment.api(workers=1)
        bare_api = deployment.api(workers=1, name="bare", **NO_LIMITS)
        worker = deployment.worker()
        gunicorn = next(p.pid for p in deployment.started if api.rsplit(":", 1)[1] in str(p.args))
        connection = server.client()
        queues = [Queue(name, connection=connection) for name in (DEFAULTS.queue_name, DEFAULTS.webhook_queue_name)]
        lists = [key for queue in queues for key in (queue.key, queue.intermediate_queue_key)]
        registries = [StartedJobRegistry(queue.name, connection=connection).key for queue in queues]
        pid = server.process.pid if server.process else None
        meter = Meter(server.client(), {"gunicorn": [gunicorn], "worker": [worker.pid]}, descendants, pid)
        bench = Bench(server, meter, api, bare_api, worker.pid, hook, lists, registries)
        print(
            f"cost: gunicorn (gevent, 1 process), 1 red7 worker, redis-server with AOF {args.appendfsync}; default rate limits "
            f"({DEFAULTS.rate_limit_token} a token, {DEFAULTS.rate_limit_address} an address), a webhook on every "
            "player, If-Match and Idempotency-Key on every POST; 1 human vs greedy + random AIs, advanced, actions"
        )
        bench.quiet()
        tally, me = per_move(bench, args.moves)
        report_moves(tally, me)
        report_parts(parts(bench, me, args.samples, args.idle))
        report_memory(memory(bench, args.day_turns))
        if args.finished_games:
            report_finished(finished_games(bench, args.finished_games))
        if args.owner_moves:
            report_owners(owners(bench, args.owner_moves))
        print(f"\nwebhook deliveries received: {_Hook.received}; {time.monotonic() - started:.0f} s in all")
    shutil.rmtree(directory, ignore_errors=True)
    return 0


def split(args: argparse.Namespace) -> int:
    """The production split: the stores on one redis-server, the queue on another; each measured apart."""
    directory = Path(tempfile.mkdtemp(prefix="red7-cost-split-"))
    (directory / "stores").mkdir()
    (directory / "queue").mkdir()
    started = time.monotonic()
    with (
        webhook_receiver() as hook,
        redis_server(directory / "stores", appendfsync=args.appendfsync) as stores,
        redis_server(directory / "queue", appendfsync=args.appendfsync) as queue_server,
        processes(directory, stores.url, RED7_QUEUE_URL=queue_server.url, **PRODUCTION) as deployment,
    ):
        api = deployment.api(workers=1)
        worker = deployment.worker()
        gunicorn = next(p.pid for p in deployment.started if api.rsplit(":", 1)[1] in str(p.args))
        connection = queue_server.client()
        queues = [Queue(name, connection=connection) for name in (DEFAULTS.queue_name, DEFAULTS.webhook_queue_name)]
        lists = [key for queue in queues for key in (queue.key, queue.intermediate_queue_key)]
        registries = [StartedJobRegistry(queue.name, connection=connection).key for queue in queues]
        pids = {"gunicorn": [gunicorn], "worker": [worker.pid]}
        meter = Meter(queue_server.client(), pids, descendants, queue_server.process.pid if queue_server.process else None)
        stores_meter = Meter(stores.client(), {}, descendants, stores.process.pid if stores.process else None)
        bench = Bench(stores, meter, api, api, worker.pid, hook, lists, registries, stores_meter)
        print(
            f"cost, split: the stores and the queue on two redis-servers, AOF {args.appendfsync}; gunicorn (gevent, 1 "
            f"process), 1 red7 worker; default rate limits ({DEFAULTS.rate_limit_token} a token, "
            f"{DEFAULTS.rate_limit_address} an address), a webhook on every player, If-Match and Idempotency-Key on every "
            "POST; 1 human vs greedy + random AIs, advanced, actions"
        )
        bench.quiet()
        tally, me = per_move(bench, args.moves)
        report_moves(tally, me)
        report_split(tally)
        if args.owner_moves:
            report_owners(owners(bench, args.owner_moves))  # MONITOR on the stores' Redis
        print(f"\nwebhook deliveries received: {_Hook.received}; {time.monotonic() - started:.0f} s in all")
    shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
