"""Table talk on the live feeds (issue 36): N two-player games talking at once on the production shape; how soon a
message said at a table reaches the other seat's open stream.

    python -m bench.talk_bench                      # 200 games, each saying something every 2 s or so, 5 each
    python -m bench.talk_bench --games 200 --every 5 --messages 10

A redis-server of its own (AOF), gunicorn as the image runs it (gevent workers), one ``red7 worker``.  Each game has two
human seats, and each seat holds the game's stream open (``GET /v1/games/{id}/stream`` as Server-Sent Events, on a
socket of its own, read by ``--readers`` processes of their own, 2: :class:`bench.player_feed_bench.Readers`, so that
the client timing the frames shares no CPU time and no GIL with the senders).  Then every
game talks at once, at a steady pace whatever the answers (an open loop): each table says ``--messages`` things, one
every ``--every`` seconds or so (half to one and a half times it, the first at a random moment of the first period),
the seats in turn, preset phrases and short texts (``sayAtTable``), sent by ``--senders`` threads.  A message's latency
is from just before the request that said it was sent to the moment its ``event: talk`` frame arrived on the *other*
seat's stream (the request's own time included); how late the senders were against the pace is printed beside it.
Printed: p50/p95/p99/max (target p99 <= 1 s), the messages lost (said, answered 200, never carried to the other seat
within 10 s), Redis commands and CPU of each process kind per message said, and what the open streams cost idle.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from bench.api_serving import KeepAliveClient
from bench.cost_meter import cpu_ms
from bench.load_bench import kind_of
from bench.player_feed_bench import Readers, percentile
from tests.harness.deployment import descendants, processes, redis_server

#: Seconds the streams are watched idle (open, nothing said) before the talk: what they cost by themselves.
IDLE = 3.0
PHRASES = ("good_luck", "your_move", "thinking", "well_played")
#: Free texts said (no digits: the word filter reads digits as letters, and "gg 0 at 53" is held back as "goatse").
TEXTS = ("nice move", "oh no", "that was close", "hm, let me think", "your turn", "what a round", "nearly had it")


@dataclass(frozen=True)
class Table:
    game_id: str
    tokens: tuple[str, str]
    players: tuple[str, str]


def make_tables(port: int, count: int, parallel: int) -> list[Table]:
    """``count`` games of two human seats, both taken (two players of their own each: no token's budget is shared)."""
    local = threading.local()

    def client() -> KeepAliveClient:
        if not hasattr(local, "client"):
            local.client = KeepAliveClient(port)
        return local.client  # type: ignore[no-any-return]

    def make(n: int) -> Table:
        ana = client().json("POST", "/v1/players", {"name": f"Ana {n}"}, expect=201)
        bo = client().json("POST", "/v1/players", {"name": f"Bo {n}"}, expect=201)
        created = client().json("POST", "/v1/games", {"seats": [{"kind": "human"}, {"kind": "human"}]}, ana["token"], expect=201)
        client().json("POST", f"/v1/games/{created['id']}/join", {"code": created["join_code"]}, bo["token"])
        return Table(created["id"], (ana["token"], bo["token"]), (ana["id"], bo["id"]))

    with ThreadPoolExecutor(parallel) as pool:
        return list(pool.map(make, range(count)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="two-player games, every seat's stream open, talking at once")
    parser.add_argument("--messages", type=int, default=5, help="messages said at each table (the seats in turn)")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between a table's messages, on average")
    parser.add_argument("--senders", type=int, default=64, help="threads saying them")
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--readers", type=int, default=2, help="processes reading the streams (0: a thread of this one)")
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="red7-talk-"))
    env = {
        "RED7_RATE_LIMIT_TOKEN": "",
        "RED7_RATE_LIMIT_ADDRESS": "",
        "RED7_RATE_LIMIT_SIGNUP": "",
        "RED7_MAX_WAITS_PER_ADDRESS": "0",  # every stream comes from this one address
    }
    try:
        with redis_server(directory, appendfsync="everysec") as server, processes(directory, server.url, **env) as deployment:
            base = deployment.api(workers=args.gunicorn_workers)
            deployment.worker()
            port = int(urlparse(base).port or 80)
            tables = make_tables(port, args.games, 8)
            # Each stream is one seat's, tagged with its player: a talk frame is kept by (the message, who received it).
            readers = [(f"/v1/games/{t.game_id}/stream", t.tokens[seat], t.players[seat]) for t in tables for seat in (0, 1)]
            feeds = Readers(base, readers, args.readers, event=b"talk", opened_on=b"retry:")
            deadline = time.time() + 120
            while feeds.opened.value < len(readers) and time.time() < deadline:
                time.sleep(0.1)
            time.sleep(1.0)  # every stream waiting on its game
            opened = feeds.opened.value
            sent: dict[tuple[str, str], float] = {}  # (message id, the other seat's player) -> when it was sent
            answered: dict[tuple[str, str], float] = {}
            refused: list[str] = []
            lock = threading.Lock()
            local = threading.local()

            late: list[float] = []  # how long after its time each message was sent (the senders all busy)

            def say(job: tuple[float, int, int]) -> None:
                due, round_, index = job
                time.sleep(max(0.0, due - time.time()))
                table = tables[index]
                seat = round_ % 2
                if not hasattr(local, "client"):
                    local.client = KeepAliveClient(port)
                rng = random.Random(round_ * 100_003 + index)
                body = {"phrase": rng.choice(PHRASES)} if rng.random() < 0.5 else {"text": rng.choice(TEXTS)}
                at = time.time()
                late.append(at - due)
                status, payload, _ = local.client.request("POST", f"/v1/games/{table.game_id}/talk", body, table.tokens[seat])
                done = time.time()
                if status != 200:
                    with lock:
                        refused.append(f"{status} {payload[:200]!r}")
                    return
                answer = json.loads(payload)
                if answer["held"]:  # held back by the filter: nobody else receives it (none of TEXTS is)
                    with lock:
                        refused.append(f"held: {body}")
                    return
                key = (answer["id"], table.players[1 - seat])
                with lock:
                    sent[key], answered[key] = at, done

            store = server.client()
            before = {k: int(v["calls"]) for k, v in store.info("commandstats").items()}
            assert server.process is not None
            kinds = {"redis-server": [server.process.pid]}
            for kind in ("gunicorn", "workers"):
                kinds[kind] = [p.pid for p in deployment.started if kind_of(list(map(str, p.args))) == kind]
            idle_from = {kind: cpu_ms(pids, descendants) for kind, pids in kinds.items()}
            time.sleep(IDLE)
            cpu_before = {kind: cpu_ms(pids, descendants) for kind, pids in kinds.items()}
            own_before = time.process_time()
            idle = {kind: (cpu_before[kind] - idle_from[kind]) / IDLE for kind in kinds}
            # Each table says a message every --every seconds or so (half to one and a half times it), its first
            # at a random moment of the first period: the games talk at once, at a steady pace, whatever the answers.
            pace = random.Random(7)
            started = time.time() + 0.5
            jobs = []
            for index in range(len(tables)):
                due = started + pace.uniform(0, args.every)
                for round_ in range(args.messages):
                    jobs.append((due, round_, index))
                    due += args.every * pace.uniform(0.5, 1.5)
            jobs.sort()
            with ThreadPoolExecutor(args.senders) as pool:
                list(pool.map(say, jobs))
            took = time.time() - started
            cpu = {kind: cpu_ms(pids, descendants) - cpu_before[kind] for kind, pids in kinds.items()}
            cpu["this bench's senders"] = (time.process_time() - own_before) * 1000
            deadline = time.time() + 10
            while feeds.carried.value < 2 * len(sent) and time.time() < deadline:  # each on both seats' streams
                time.sleep(0.1)
            feeds.close()
            after = {k: int(v["calls"]) for k, v in store.info("commandstats").items()}
            commands = {k.removeprefix("cmdstat_"): n - before.get(k, 0) for k, n in after.items() if n > before.get(k, 0)}
            latencies = [feeds.arrived[key] - at for key, at in sent.items() if key in feeds.arrived]
            requests_took = [answered[key] - at for key, at in sent.items()]
            lost = len(sent) - len(latencies)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"games talking at once: {len(tables)} (two human seats each), streams open: {opened} of {len(readers)} "
          f"(gunicorn gevent x{args.gunicorn_workers}, one red7 worker, redis-server of its own)")  # fmt: skip
    print(f"messages: {len(sent)} said in {took:.1f} s ({len(sent) / max(took, 1e-9):.0f}/s) by {args.senders} senders, "
          f"{len(refused)} refused or held, {lost} lost (not on the other seat's stream within 10 s); each table every "
          f"{args.every:g} s or so, sent p99 {percentile(late, 0.99) * 1000:.0f} ms after its time")  # fmt: skip
    for key in [key for key in sent if key not in feeds.arrived][:3]:
        print(f"  lost: message {key[0]} to {key[1]}, said {time.strftime('%H:%M:%S', time.gmtime(sent[key]))}")
    for reason in refused[:5]:
        print("  refused:", reason)
    if latencies:
        print(
            f"latency say-to-other-seat's-stream: p50 {statistics.median(latencies) * 1000:.0f} ms, "
            f"p95 {percentile(latencies, 0.95) * 1000:.0f} ms, p99 {percentile(latencies, 0.99) * 1000:.0f} ms, "
            f"max {max(latencies) * 1000:.0f} ms (target p99 <= 1 s)"
        )
        print(
            f"  of which the request itself: p50 {statistics.median(requests_took) * 1000:.0f} ms, "
            f"p99 {percentile(requests_took, 0.99) * 1000:.0f} ms"
        )
    said = max(1, len(sent))
    busiest = sorted(commands.items(), key=lambda kv: -kv[1])[:8]
    print(
        f"Redis commands per message said (its request, both streams' wakes, its notices): {sum(commands.values()) / said:.1f}: "
        + ", ".join(f"{name} {n / said:.1f}" for name, n in busiest)
    )
    print(f"CPU of the {opened} open streams idle, per second: " + ", ".join(f"{kind} {ms:.0f} ms" for kind, ms in idle.items()))
    print("CPU per message said: " + ", ".join(f"{kind} {ms / said:.1f} ms" for kind, ms in cpu.items()))
    return 0 if not lost and not refused and latencies else 1


if __name__ == "__main__":
    sys.exit(main())
