"""Players' own feeds (issue 37, item 1): N players each holding one feed open on the production shape; how soon a
notice reaches its player, and what an idle open feed costs Redis.

    python -m bench.player_feed_bench                  # 300 players, 600 notices
    python -m bench.player_feed_bench --players 2000 --notices 1000

A redis-server of its own (AOF), gunicorn as the image runs it (gevent workers), one ``red7 worker``.  Every player
opens ``GET /v1/players/me/events`` as Server-Sent Events on a socket of its own and waits, idle; the sockets are read
through selectors by ``--readers`` processes of their own (4; :class:`Readers`, which ``bench.talk_bench`` reads the
games' streams with too), so that the client timing the notices shares no CPU
time and no GIL with the senders (``--readers 0``: one thread of the senders' process, as this bench first did).  Then
a few senders challenge random players and cancel each challenge: each is a notice (``challenge_received``, then
``challenge_cancelled``) written by the request and carried by the target's open feed.  A notice's latency is from
just before the request that made it was sent to the moment its frame arrived at a reader (the request's own time
included; one wall clock for every process).  Printed: p50/p99/max latency (target p99 <= 1 s), notices lost, the
Redis commands a second the idle feeds cost (beside those of the worker and the API with no feed open), Redis memory
(``used_memory`` before and after the feeds opened: per idle feed; ``MEMORY USAGE`` of a feed's stream holding its
notices), and the load average (the figures move with it on a shared host).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import selectors
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import redis
import requests

from tests.harness.deployment import processes, redis_server

#: One frame's data line (its JSON on one line).
DATA_LINE = re.compile(rb"^data: (\{.*\})\r?$", re.MULTILINE)


def arrival_key(event: bytes, tag: str, data: dict[str, Any]) -> tuple[str, str]:
    """What a frame's arrival is kept by: a notice by (challenge id, its event); table talk (``bench.talk_bench``) by
    (the message's id, the tag of the stream it came down: whose seat)."""
    if event == b"notice":
        return data.get("challenge_id", ""), data["event"]
    return data["id"], tag


class Feeds:
    """A share of the open feeds, read by one thread through a selector: each frame of the event ``event`` by its
    :func:`arrival_key`, and how many feeds opened (``opened``: a counter shared with the other readers; a feed opens
    when its answer is a 200 and ``opened_on`` came down it).  ``streams``: (path, token, tag), each on a socket of its
    own: the players' own feeds, or the games' streams of ``bench.talk_bench``."""

    def __init__(
        self,
        base: str,
        streams: list[tuple[str, str, str]],
        opened: Any,
        carried: Any,
        event: bytes = b"notice",
        opened_on: bytes = b"event: state",
    ) -> None:
        url = urlparse(base)
        self.selector = selectors.DefaultSelector()
        self.arrived: dict[tuple[str, str], float] = {}
        self.opened, self.carried = opened, carried
        self._event, self._opened_on = event, opened_on
        self._buffers: dict[socket.socket, bytes] = {}
        self._tags: dict[socket.socket, str] = {}
        self._answered: set[socket.socket] = set()  # a 200 came
        self._started: set[socket.socket] = set()  # and then opened_on
        for path, token, tag in streams:
            sock = socket.create_connection((url.hostname, url.port))
            sock.sendall(
                f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {token}\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            sock.setblocking(False)
            self._buffers[sock] = b""
            self._tags[sock] = tag
            self.selector.register(sock, selectors.EVENT_READ)

    def run(self, stop: Any) -> None:
        """Read until ``stop`` is set."""
        header = b"event: " + self._event
        while not stop.is_set():
            for key, _ in self.selector.select(0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                now = time.time()
                if not chunk:
                    self.selector.unregister(sock)
                    continue
                buffer = self._buffers[sock] + chunk
                if not self._buffers[sock] and buffer.startswith(b"HTTP/1.1 200"):
                    self._answered.add(sock)
                if sock in self._answered and sock not in self._started and self._opened_on in buffer:
                    self._started.add(sock)
                    with self.opened.get_lock():
                        self.opened.value += 1
                # Complete frames only (a frame ends with a blank line; chunked encoding's size lines end none): the
                # rest waits for the next read, so a frame split over two reads is kept whole.
                *frames, self._buffers[sock] = re.split(rb"\r?\n\r?\n", buffer)
                for frame in frames:
                    data = DATA_LINE.search(frame) if header + b"\n" in frame or header + b"\r\n" in frame else None
                    if data is None:
                        continue
                    found = arrival_key(self._event, self._tags[sock], json.loads(data.group(1)))
                    if found not in self.arrived:
                        self.arrived[found] = now
                        with self.carried.get_lock():
                            self.carried.value += 1
        for sock in self._buffers:
            sock.close()


def read_feeds(base: str, streams: list[tuple[str, str, str]], shared: tuple[Any, ...], event: bytes, opened_on: bytes) -> None:
    """A reader process: its share of the feeds, read until told to stop; then what arrived, sent back."""
    opened, carried, stop, out = shared
    feeds = Feeds(base, streams, opened, carried, event, opened_on)
    feeds.run(stop)
    out.put(feeds.arrived)


class Readers:
    """The feeds spread over ``processes`` reader processes (0: one thread of this process, which also runs the
    senders: a client that may be the bottleneck itself, on a busy host).  A frame's arrival is timed by the reader
    that got it, with the wall clock every process shares.  ``streams``: as :class:`Feeds` takes them, or tokens (the
    players' own feeds)."""

    def __init__(
        self,
        base: str,
        streams: list[str] | list[tuple[str, str, str]],
        processes: int,
        event: bytes = b"notice",
        opened_on: bytes = b"event: state",
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.opened = context.Value("i", 0)
        self.carried = context.Value("i", 0)  # frames arrived, all readers together
        self.stop = context.Event()
        self.out: Any = context.Queue()
        self.arrived: dict[tuple[str, str], float] = {}
        self._workers: list[Any] = []
        feeds = [("/v1/players/me/events", s, "") if isinstance(s, str) else s for s in streams]
        if processes <= 0:
            self._thread_feeds = Feeds(base, feeds, self.opened, self.carried, event, opened_on)
            self._workers.append(threading.Thread(target=self._thread_feeds.run, args=(self.stop,), daemon=True))
        else:
            shared = (self.opened, self.carried, self.stop, self.out)
            self._workers += [
                context.Process(target=read_feeds, args=(base, feeds[n::processes], shared, event, opened_on))
                for n in range(processes)
            ]
        for worker in self._workers:
            worker.start()

    def close(self) -> None:
        self.stop.set()
        for worker in self._workers:
            if isinstance(worker, threading.Thread):
                worker.join(5)
                self.arrived.update(self._thread_feeds.arrived)
            else:
                self.arrived.update(self.out.get(timeout=30))
        for worker in self._workers:
            worker.join(5)


def commands_a_second(store: redis.Redis, seconds: float) -> float:
    """The commands Redis runs a second, over ``seconds`` (these two reads apart)."""
    first = int(store.info("stats")["total_commands_processed"])
    time.sleep(seconds)
    return (int(store.info("stats")["total_commands_processed"]) - first - 1) / seconds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=300, help="players, each holding one feed open")
    parser.add_argument("--notices", type=int, default=600, help="notices sent (half challenges, half their cancels)")
    parser.add_argument("--senders", type=int, default=8, help="players who challenge, each from a thread")
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--readers", type=int, default=4, help="processes reading the feeds (0: a thread of this one)")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="how long the idle feeds' commands are counted")
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="red7-feeds-"))
    env = {
        "RED7_RATE_LIMIT_TOKEN": "",
        "RED7_RATE_LIMIT_ADDRESS": "",
        "RED7_RATE_LIMIT_SIGNUP": "",
        "RED7_RATE_LIMIT_CHALLENGE": "",
        "RED7_MAX_WAITS_PER_ADDRESS": "0",  # every feed comes from this one address
        "RED7_MAX_CHALLENGES_RECEIVED": "1000",
        "RED7_STREAM_MAX_SECONDS": "3600",  # no feed ends on its own before the run does (this client reconnects none)
    }
    try:
        with redis_server(directory, appendfsync="everysec") as server, processes(directory, server.url, **env) as deployment:
            base = deployment.api(workers=args.gunicorn_workers)
            deployment.worker()
            store = redis.Redis.from_url(server.url)
            session = requests.Session()

            def sign_up(n: int) -> dict[str, str]:
                made = requests.post(f"{base}/v1/players", json={"name": f"P{n}"}, timeout=30)
                made.raise_for_status()
                return dict(made.json())

            with ThreadPoolExecutor(8) as pool:
                players = list(pool.map(sign_up, range(args.players)))
                senders = list(pool.map(sign_up, range(args.senders)))
            store.config_set("maxmemory-policy", "noeviction")
            before = int(store.info("memory")["used_memory"])
            quiet_rate = commands_a_second(store, args.idle_seconds)  # the worker's and the API's own, with no feed open
            feeds = Readers(base, [p["token"] for p in players], args.readers)
            deadline = time.time() + 180
            while feeds.opened.value < args.players and time.time() < deadline:
                time.sleep(0.1)
            time.sleep(2.0)  # every feed blocked in its XREAD
            idle = int(store.info("memory")["used_memory"])
            clients = int(store.info("clients")["connected_clients"])
            # What the feeds cost while nothing happens: Redis commands a second (each a wake-up of a gevent worker).
            idle_rate = commands_a_second(store, args.idle_seconds) - quiet_rate
            sent: dict[tuple[str, str], float] = {}
            answered: dict[tuple[str, str], float] = {}
            lock = threading.Lock()

            def send(index: int) -> None:
                sender = senders[index % len(senders)]
                target = random.Random(index).choice(players)
                headers = {"Authorization": f"Bearer {sender['token']}"}
                at = time.time()
                made = session.post(f"{base}/v1/challenges", json={"players": [target["id"]]}, headers=headers, timeout=30)
                if made.status_code != 201:
                    print("refused:", made.status_code, made.text[:200], file=sys.stderr)
                    return
                challenge_id = made.json()["id"]
                with lock:
                    sent[(challenge_id, "challenge_received")], answered[(challenge_id, "challenge_received")] = at, time.time()
                at = time.time()
                session.delete(f"{base}/v1/challenges/{challenge_id}", headers=headers, timeout=30)
                with lock:
                    sent[(challenge_id, "challenge_cancelled")], answered[(challenge_id, "challenge_cancelled")] = at, time.time()

            started = time.time()
            with ThreadPoolExecutor(args.senders) as pool:
                list(pool.map(send, range(args.notices // 2)))
            took = time.time() - started
            deadline = time.time() + 10  # what is on its way arrives (the readers tell what came only as they stop)
            while feeds.carried.value < len(sent) and time.time() < deadline:
                time.sleep(0.1)
            feeds.close()
            latencies = [feeds.arrived[key] - at for key, at in sent.items() if key in feeds.arrived]
            requests_took = [answered[key] - at for key, at in sent.items()]
            after_answer = [max(0.0, feeds.arrived[key] - answered[key]) for key in sent if key in feeds.arrived]
            lost = len(sent) - len(latencies)
            sample = next(k for k in store.scan_iter(match="*:feed", count=1000))
            usage = int(store.memory_usage(sample) or 0)
            length = int(store.xlen(sample))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    readers = f"{args.readers} reader processes" if args.readers > 0 else "read by a thread of the senders' process"
    shape = f"gunicorn gevent x{args.gunicorn_workers}; {readers}"
    print(f"players with an open feed: {feeds.opened.value} of {args.players} ({shape})")
    print(f"load average at the end: {' '.join(f'{n:.2f}' for n in os.getloadavg())} ({os.cpu_count()} CPUs)")
    print(f"notices: {len(sent)} sent in {took:.1f} s ({len(sent) / took:.0f}/s), {lost} not carried")
    if latencies:
        print(
            f"latency request-to-feed: p50 {statistics.median(latencies) * 1000:.0f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms (target p99 <= 1 s)"
        )
        print(
            f"  of which the request itself: p50 {statistics.median(requests_took) * 1000:.0f} ms, p99 "
            f"{percentile(requests_took, 0.99) * 1000:.0f} ms; after its answer: p50 "
            f"{statistics.median(after_answer) * 1000:.0f} ms, p99 {percentile(after_answer, 0.99) * 1000:.0f} ms"
        )
    print(f"Redis clients connected with the feeds open: {clients}")
    per_feed = idle_rate / max(1, feeds.opened.value)
    print(f"Redis commands a second for the idle open feeds: {idle_rate:.0f} ({per_feed:.3f} a feed; {quiet_rate:.0f} else)")
    print(f"Redis used_memory per idle open feed: {(idle - before) / max(1, feeds.opened.value):.0f} bytes")
    print(f"MEMORY USAGE of one player's feed stream holding {length} notice(s): {usage} bytes")
    return 0 if not lost else 1


if __name__ == "__main__":
    sys.exit(main())
