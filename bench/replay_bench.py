"""Replay benchmark: time and memory to build the replay of a long game.

    python -m bench.replay_bench [--repeat 20]

The game: 4 players, advanced, with the action rules, played by random bots
(seeded) until one with at least 300 events comes up.  It is stored as the
service stores it (envelopes), then built into a full replay, repeatedly.
Target (issue 5): under 50 ms.
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
from replays.build import FULL, build_replay


def long_game(min_events: int = 300) -> list[tuple[int, dict]]:
    """Stored envelopes of a seeded 4-player advanced game with the action rules and >= ``min_events`` events."""
    rng = random.Random(7)
    for seed in range(1000):
        record = play_game([RandomBot(rng) for _ in range(4)], variant=Variant.ADVANCED, action_rules=True, seed=seed)
        if len(record.events) >= min_events:
            break
    at, by = "2026-01-01T00:00:00.000Z", "bench"
    created = {
        "type": "game_created", "created_by": "p_bench", "variant": "advanced", "action_rules": True,
        "seats": [{"kind": "ai", "level": "random"}] * 4, "dealing": "seeded", "seed": seed, "deck": None,
        "turn_timeout": None, "timeout_action": "fold", "join_code": "x",
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
    print(f"  build time: median {statistics.median(times):.1f} ms, best {min(times):.1f} ms, worst {max(times):.1f} ms "
          f"({args.repeat} runs; target < 50 ms)")
    print(f"  peak memory while building: {peak / 1024 / 1024:.1f} MiB; document: {size / 1024:.0f} KiB of JSON")


if __name__ == "__main__":
    main()
