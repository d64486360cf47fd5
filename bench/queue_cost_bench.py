"""What one accepted human move costs the queue's Redis: commands sent and round trips, counted on the wire.

    python -m bench.queue_cost_bench                       # greedy + random AIs, 40 moves
    python -m bench.queue_cost_bench --experts --moves 20  # two expert AIs
    python -m bench.queue_cost_bench --push                # and a web push subscription on the human too

The production split: the stores on a redis-server of their own, the queue on another (both AOF, ``appendfsync
always`` unless told), gunicorn as the image runs it (one gevent process), one ``red7 worker``; the default rate
limits, a webhook on every player, ``If-Match`` and ``Idempotency-Key`` on every POST (the frontend of
``bench.cost_bench``).  Between the service and the queue's Redis sits a counting proxy: it parses what clients
send (RESP) and counts each command, and a *round trip* each time a connection sends after it was answered
(a pipeline or a transaction is one; a script is one command).  Printed per accepted human move, counted
between two quiet points: the commands and round trips, gross and net of the idle background (the pulses and
the ticker, measured apart per second), and the commands sent most.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rq import Queue
from rq.registry import StartedJobRegistry

from bench.cost_bench import DEFAULTS, PRODUCTION, Frontend, webhook_receiver
from service.application.push import new_vapid_key, public_key_of
from tests.harness.deployment import Client, RedisServer, free_port, processes
from tests.workers.push_service import PushService

GREEDY_RANDOM = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
EXPERTS = [{"kind": "human"}, {"kind": "ai", "level": "expert"}, {"kind": "ai", "level": "expert"}]


# --- a counting proxy -------------------------------------------------------------------------------------------


@dataclass
class Tally:
    commands: int = 0
    round_trips: int = 0
    names: Counter[str] = field(default_factory=Counter)

    def copy(self) -> Tally:
        return Tally(self.commands, self.round_trips, Counter(self.names))

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.commands + other.commands, self.round_trips + other.round_trips, self.names + other.names)

    def __sub__(self, other: Tally) -> Tally:
        return Tally(self.commands - other.commands, self.round_trips - other.round_trips, self.names - other.names)


class _Commands:
    """RESP commands parsed from one client's bytes as they come (arrays of bulk strings; inline ones too)."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[str]:
        self.buffer += data
        names = []
        while True:
            parsed = self._one()
            if parsed is None:
                return names
            names.append(parsed)

    def _one(self) -> str | None:
        buf = self.buffer
        if not buf:
            return None
        end = buf.find(b"\r\n")
        if end < 0:
            return None
        if buf[:1] != b"*":  # an inline command
            self.buffer = buf[end + 2 :]
            return buf[:end].split(b" ", 1)[0].decode(errors="replace").upper()
        count, at, name = int(buf[1:end]), end + 2, ""
        for index in range(count):
            line = buf.find(b"\r\n", at)
            if line < 0:
                return None
            size = int(buf[at + 1 : line])
            start = line + 2
            if len(buf) < start + size + 2:
                return None
            if index == 0:
                name = buf[start : start + size].decode(errors="replace").upper()
            at = start + size + 2
        self.buffer = buf[at:]
        return name


class CountingProxy:
    """A TCP proxy to a Redis that counts the commands clients send and their round trips."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.tally = Tally()
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.stopped = False
        #: Each round trip's commands, by connection, while tracing (``None``: not tracing).
        self.trace: list[tuple[int, list[str]]] | None = None
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def snapshot(self) -> Tally:
        with self.lock:
            return self.tally.copy()

    def _accept(self) -> None:
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            state = {"answered": True}
            threading.Thread(target=self._up, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, state), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, state: dict[str, bool]) -> None:
        commands = _Commands()
        try:
            while data := client.recv(65536):
                names = commands.feed(data)
                with self.lock:
                    if state["answered"] and names:
                        self.tally.round_trips += 1
                        state["answered"] = False
                        if self.trace is not None:
                            self.trace.append((client.fileno(), []))
                    if self.trace is not None and names:
                        mine = [t for t in self.trace if t[0] == client.fileno()]
                        if mine:
                            mine[-1][1].extend(names)
                    self.tally.commands += len(names)
                    self.tally.names.update(names)
                server.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (client, server):
                sock.close()

    def _down(self, server: socket.socket, client: socket.socket, state: dict[str, bool]) -> None:
        try:
            while data := server.recv(65536):
                with self.lock:
                    state["answered"] = True
                client.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (client, server):
                sock.close()

    def close(self) -> None:
        self.stopped = True
        self.listener.close()


# --- playing ---------------------------------------------------------------------------------------------------


def quiet(queue_redis, timeout: float = 90) -> None:  # type: ignore[no-untyped-def]
    """No job queued or running and nothing on the agenda due within 10 s, twice in a row (read directly)."""
    queues = [
        Queue(name, connection=queue_redis)
        for name in (DEFAULTS.queue_name, DEFAULTS.webhook_queue_name, DEFAULTS.push_queue_name)
    ]
    lists = [key for q in queues for key in (q.key, q.intermediate_queue_key)]
    registries = [StartedJobRegistry(q.name, connection=queue_redis).key for q in queues]
    agenda = f"{DEFAULTS.key_prefix}agenda"
    deadline, calm = time.monotonic() + timeout, 0
    while calm < 2:
        assert time.monotonic() < deadline, "the service did not come to rest"
        busy = any(queue_redis.llen(key) for key in lists) or any(queue_redis.zcard(key) for key in registries)
        soon = int(time.time() * 1000) + 10_000
        busy = busy or bool(queue_redis.zrangebyscore(agenda, "-inf", soon, start=0, num=1))
        calm = 0 if busy else calm + 1
        time.sleep(0.05)


def trace(front: Frontend, queue_redis, proxy: CountingProxy, seats: list[dict[str, str]]) -> None:  # type: ignore[no-untyped-def]
    """One more human turn (its moves and the AI turns after it) in a new game, each round trip on the queue's
    Redis printed."""
    response = front.call("create", "POST", "/games", json={"seats": seats, "variant": "advanced", "action_rules": True})
    game = response.json()["id"]
    front.my_turn(game)
    quiet(queue_redis)
    proxy.trace = []
    moves, _ = front.play_turn(game)
    front.my_turn(game)
    quiet(queue_redis)
    print(f"one human turn ({moves} moves) and the AI turns after it, round trips on the queue's Redis by connection:")
    for conn, names in proxy.trace:
        print(f"  [{conn}] {' '.join(names)}")
    proxy.trace = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40, help="accepted human moves to measure")
    parser.add_argument("--experts", action="store_true", help="two expert AIs instead of greedy + random")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idleness measured for the background")
    parser.add_argument("--trace", action="store_true", help="print one more human turn's round trips, command by command")
    parser.add_argument("--push", action="store_true", help="the human has a web push subscription too (its own push service)")
    parser.add_argument("--appendfsync", default="always", choices=["always", "everysec", "no"], help="both Redis servers'")
    args = parser.parse_args(argv)
    seats = EXPERTS if args.experts else GREEDY_RANDOM
    directory = Path(tempfile.mkdtemp(prefix="red7-queue-cost-"))
    for part in ("stores", "queue", "run"):
        (directory / part).mkdir()
    stores = RedisServer(directory / "stores", appendfsync=args.appendfsync)
    queue = RedisServer(directory / "queue", appendfsync=args.appendfsync)
    stores.start()
    queue.start()
    proxy = CountingProxy(queue.port)
    vapid = new_vapid_key() if args.push else ""
    pushes = PushService(public_key_of(vapid)) if args.push else None
    try:
        with (
            webhook_receiver() as hook,
            processes(
                directory / "run", stores.url, RED7_QUEUE_URL=proxy.url, RED7_VAPID_PRIVATE_KEY=vapid, **PRODUCTION
            ) as deployment,
        ):
            api = deployment.api(workers=1)
            deployment.worker()
            queue_redis = queue.client()
            print(
                f"queue cost: stores and queue on two redis-servers (AOF {args.appendfsync}), gunicorn (gevent, 1 process), "
                f"1 red7 worker, default rate limits, a webhook{' and a web push' if pushes else ''} on every player, "
                f"If-Match and Idempotency-Key; "
                f"1 human vs {' + '.join(s.get('level', '') for s in seats[1:])}, advanced, actions"
            )
            quiet(queue_redis)
            time.sleep(2.0)
            before, started = proxy.snapshot(), time.monotonic()
            time.sleep(args.idle)
            idle = proxy.snapshot() - before
            idle_seconds = time.monotonic() - started
            me = Client(api).sign_up("queuecost")
            assert me.json("PATCH", "/players/me", json={"webhook_url": hook})["webhook_url"] == hook
            if pushes is not None:
                me.json("POST", "/players/me/push-subscription", expect=201, json=pushes.device("phone").subscription())
            front = Frontend(me)
            moves, played, spent = 0, Tally(), 0.0
            while moves < args.moves:
                response = front.call(
                    "create", "POST", "/games", json={"seats": seats, "variant": "advanced", "action_rules": True}
                )
                assert response.status_code == 201, response.text
                game = response.json()["id"]
                quiet(queue_redis)
                before, started = proxy.snapshot(), time.monotonic()
                over = False
                while not over and moves < args.moves:
                    accepted, over = front.play_turn(game)
                    moves += accepted
                if not over:
                    front.my_turn(game)
                quiet(queue_redis)
                played = played + (proxy.snapshot() - before)
                spent += time.monotonic() - started
            per_second = (idle.commands / idle_seconds, idle.round_trips / idle_seconds)
            print(f"idle background: {per_second[0]:.1f} commands/s, {per_second[1]:.1f} round trips/s")
            net_commands = played.commands - per_second[0] * spent
            net_trips = played.round_trips - per_second[1] * spent
            print(
                f"per accepted human move ({moves} moves, {spent:.1f} s): "
                f"{played.commands / moves:.1f} commands, {played.round_trips / moves:.1f} round trips gross; "
                f"{net_commands / moves:.1f} commands, {net_trips / moves:.1f} round trips net of the background"
            )
            print(
                "commands sent most, per move: "
                + ", ".join(f"{name} {n / moves:.1f}" for name, n in played.names.most_common(14))
            )
            if args.trace:
                trace(front, queue_redis, proxy, seats)
            if pushes is not None:
                got = sum(1 for r in pushes.received if r.message["event"] == "your_turn")
                print(f"web pushes: {got} your-turn pushes received, {len(pushes.refused)} refused")
    finally:
        if pushes is not None:
            pushes.close()
        proxy.close()
        queue.stop()
        stores.stop()
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
