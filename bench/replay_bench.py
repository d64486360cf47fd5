"""Replay benchmark: time and memory to build the replay of a long game, and what an import may cost.

    python -m bench.replay_bench [--repeat 20]

The game: 4 players, advanced, with the action rules, played by random bots
(seeded) until one with at least 300 events comes up.  It is stored as the
service stores it (envelopes), then built into a full replay, repeatedly.
Target (issue 5): under 50 ms.

Then ``POST /v1/replays`` through the app (its test client, the in-memory
store): the long game's file, and the dearest files the import's bounds
still let through (``RED7_MAX_REPLAY_BYTES``, ``RED7_MAX_REPLAY_EVENTS``): as
many events as allowed, and as many bytes as allowed.  What a request may hold a
worker for is the worst of these.  Last, what the long game's import keeps in Redis.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import tracemalloc

from engine.bots import RandomBot
from engine.events import Variant, event_to_dict
from engine.selfplay import play_game
from replays.build import FULL, build_replay, content_hash


def long_game(min_events: int = 300) -> list[tuple[int, dict]]:
    """Stored envelopes of a seeded 4-player advanced game with the action rules and >= ``min_events`` events."""
    rng = random.Random(7)
    for seed in range(1000):
        record = play_game([RandomBot(rng) for _ in range(4)], variant=Variant.ADVANCED, action_rules=True, seed=seed)
        if len(record.events) >= min_events:
            break
    at, by = "2026-01-01T00:00:00.000Z", "bench"
    created = {
        "type": "game_created",
        "created_by": "p_bench",
        "variant": "advanced",
        "action_rules": True,
        "seats": [{"kind": "ai", "level": "random"}] * 4,
        "dealing": "seeded",
        "seed": seed,
        "deck": None,
        "turn_timeout": None,
        "timeout_action": "fold",
        "join_code": "x",
    }
    stored = [(1, {**created, "at": at, "by": by, "v": 1})]
    for number, event in enumerate(record.events, start=2):
        stored.append((number, json.loads(json.dumps({**event_to_dict(event), "at": at, "by": by, "v": 1}))))
    return stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    stored = long_game()
    build_replay("g_bench", stored, FULL)  # warm up
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        document = build_replay("g_bench", stored, FULL)
        times.append((time.perf_counter() - started) * 1000)
    tracemalloc.start()
    build_replay("g_bench", stored, FULL)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = len(json.dumps(document))
    print(f"replay of a 4-player advanced game with action rules: {len(stored)} events, {len(document['steps'])} steps")
    print(
        f"  build time: median {statistics.median(times):.1f} ms, best {min(times):.1f} ms, worst {max(times):.1f} ms "
        f"({args.repeat} runs; target < 50 ms)"
    )
    print(f"  peak memory while building: {peak / 1024 / 1024:.1f} MiB; document: {size / 1024:.0f} KiB of JSON")
    import_costs(document, max(3, args.repeat // 4))


def import_costs(document: dict, repeat: int) -> None:
    """Median time of ``POST /v1/replays`` for the real file and for the dearest files within the bounds."""
    from service.common.config import Settings
    from service.http.app import create_app
    from service.runtime import build_runtime

    settings = Settings(rate_limit_token="", rate_limit_address="", rate_limit_signup="", rate_limit_import="")
    runtime = build_runtime(settings)
    client = create_app(runtime).test_client()
    token = client.post("/v1/players", json={"name": "Bench"}).get_json()["token"]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    most = settings.max_replay_events
    repeated = [{**e, "n": n} for n, e in enumerate((document["events"] * most)[:most], start=1)]
    longest = {**document, "events": repeated}
    longest["hash"] = content_hash(longest)  # a hash that matches: the verifier replays until the events go wrong
    padded = {**document, "padding": "x" * (settings.max_replay_bytes - len(json.dumps(document)) - 200)}
    padded["hash"] = content_hash(padded)
    cases = [
        ("the long game (verifies)", document),
        (f"{most} events (the most allowed)", longest),
        (f"{settings.max_replay_bytes // 1024} KiB (the most allowed)", padded),
    ]
    print(f"  POST /v1/replays (median of {repeat}):")
    for name, body in cases:
        data = json.dumps(body).encode()
        times, status = [], 0
        for _ in range(repeat):
            started = time.perf_counter()
            status = client.post("/v1/replays", data=data, headers=headers).status_code
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"    {name}: {len(data) / 1024:.0f} KiB -> {status} in {statistics.median(times):.0f} ms (worst {max(times):.0f} ms)"
        )
    over = {**longest, "events": [*longest["events"], {**longest["events"][-1], "n": most + 1}]}
    print(f"    {most + 1} events -> {client.post('/v1/replays', json=over, headers=headers).status_code} (refused)")
    key = f"{settings.key_prefix}replay:{client.post('/v1/replays', json=document, headers=headers).get_json()['id']}"
    print(
        f"  what the long game's import keeps in Redis: {runtime.redis.strlen(key) / 1024:.1f} KiB "
        f"(its file: {len(json.dumps(document).encode()) / 1024:.0f} KiB)"
    )


if __name__ == "__main__":
    main()
