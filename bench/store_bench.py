"""Event store benchmark: what snapshots save a cold reader, and how fast appends go.

    python -m bench.store_bench [--repeat 50]

Uses the Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/14``, under a
key prefix of its own, deleted at the end), or fakeredis if none answers.  A
long game (4 players, advanced, action rules, random bots; >= 300 events) is
stored as the service stores it; then a process with no cached fold loads it:

- from the events alone (fold all of them),
- from a snapshot a few events back (fold only the tail),

and single-event appends with their version check are timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid

import fakeredis
import redis

from bench.replay_bench import long_game
from service.application.games import GameService
from service.domain.game import load
from service.storage.events import EventStore
from service.storage.players import PlayerStore


def client() -> tuple[redis.Redis, str]:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14")
    try:
        real = redis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=1)
        real.ping()
        return real, url
    except redis.RedisError:
        return fakeredis.FakeRedis(decode_responses=True), "fakeredis (no Redis answered)"


def timed(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    redis_client, where = client()
    prefix = f"red7-bench-{uuid.uuid4().hex[:8]}:"
    try:
        store = EventStore(redis_client, prefix)
        stored = long_game()
        store.append("g_long", 0, [json.dumps(data) for _, data in stored])
        events = len(stored)

        def cold() -> GameService:  # a process that has never seen the game
            return GameService(store, PlayerStore(redis_client, prefix), snapshot_every=10**9)

        without = timed(args.repeat, lambda: cold().load("g_long"))
        game = cold().load("g_long")
        tail = 5  # a snapshot of the game this many events before its end
        early = load("g_long", [(n, json.dumps(d)) for n, d in stored[:-tail]])
        store.save_snapshot("g_long", early.version, json.dumps(early.to_dict()))
        with_snapshot = timed(args.repeat, lambda: cold().load("g_long"))
        assert cold().load("g_long").to_dict() == game.to_dict(), "the snapshot plus the tail is not the game"

        version = store.version("g_long")
        appends = 500
        started = time.perf_counter()
        for i in range(appends):
            store.append("g_append", i, ['{"type":"x"}'])
        append_ms = (time.perf_counter() - started) * 1000 / appends

        print(f"event store on {where}")
        print(f"  cold load of a {events}-event game (4 players, advanced, action rules):")
        print(f"    from the events alone:            median {without:.2f} ms")
        speedup = without / with_snapshot
        print(f"    from a snapshot {tail} events back:    median {with_snapshot:.2f} ms  ({speedup:.1f}x faster)")
        print(f"  append of one event with its version check: {append_ms:.3f} ms each ({1000 / append_ms:,.0f}/s, one client)")
        print(f"  (the stream held {version} events)")
    finally:
        for key in redis_client.scan_iter(match=f"{prefix}*"):
            redis_client.delete(key)


if __name__ == "__main__":
    main()
