"""What a finished game keeps in Redis for good, before and after its stream is compacted (issue 25: <= 6 KB).

    python -m bench.compaction_bench              # 9 games: ~10 s
    python -m bench.compaction_bench --games 20

A redis-server of its own; the service in-process (no rate limits, no webhooks: they keep nothing for good).
Each game is the cost bench's: one human (who takes a step that can win when it has one) against a greedy and a
random AI, advanced rules with the card actions, a seed of its own.  Once it is over, what it keeps for good (no
TTL: its stream, or packed record, and its version; MEMORY USAGE, exact) is measured, the game compacted
(``GameService.compact``, as the ``compact`` job does), measured again, and its replay file read again through a
runtime of its own (nothing cached): it must be the same bytes, and verify.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from replays.verify import verify_replay
from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime, connect
from tests.harness.deployment import redis_server
from tests.harness.support import HUMAN, Api, ai, play_out

SEATS = [HUMAN, ai("greedy"), ai("random")]


def kept(api: Api, game_id: str) -> int:
    """Bytes the game's keys without a TTL hold (MEMORY USAGE, every element counted)."""
    client, prefix = api.runtime.redis, api.runtime.settings.key_prefix
    total = 0
    for part in ("events", "packed", "version", "snapshot", "idem"):
        key = f"{prefix}game:{{{game_id}}}:{part}"
        if client.ttl(key) == -1:
            total += int(client.memory_usage(key, samples=0) or 0)
    return total


def fresh(settings: Settings) -> Api:
    runtime = build_runtime(settings, clients=connect(settings))
    return Api(create_app(runtime), runtime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=9, help="games played to their end")
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="red7-compaction-"))
    rows = []
    started = time.monotonic()
    with redis_server(directory, appendfsync="everysec") as server:
        no_limits = {f"rate_limit_{name}": "" for name in ("token", "address", "signup", "import")}
        settings = Settings(redis_url=server.url, queue_url=server.url, **no_limits)
        api = fresh(settings)
        token = api.player("Bench")["token"]
        for seed in range(1, args.games + 1):
            game_id = api.game(token, SEATS, variant="advanced", action_rules=True, seed=seed)["id"]
            play_out(api, game_id, token)
            export = f"/v1/games/{game_id}/replay/export"
            before_file = api.call("GET", export, token).get_data()
            events, before = api.runtime.store.version(game_id), kept(api, game_id)
            outcome = api.runtime.games.compact(game_id)
            assert outcome.endswith("events compacted"), outcome
            after = kept(api, game_id)
            after_file = fresh(settings).call("GET", export, token).get_data()
            assert after_file == before_file, f"game {game_id}: its replay changed"
            assert verify_replay(json.loads(after_file)).ok, f"game {game_id}: its replay does not verify"
            rows.append((events, before, after))
            print(f"game {seed:3}: {events:4} events, {before / 1024:5.1f} KB kept for good -> {after / 1024:4.1f} KB compacted")
    shutil.rmtree(directory, ignore_errors=True)
    befores, afters = [b for _, b, _ in rows], [a for _, _, a in rows]
    events = sum(e for e, _, _ in rows)
    print(
        f"\n{len(rows)} finished games (1 human vs greedy + random, advanced, actions), kept for good (stream or packed "
        f"record, and version): median {statistics.median(befores) / 1024:.1f} KB -> {statistics.median(afters) / 1024:.1f} "
        f"KB, largest {max(befores) / 1024:.1f} KB -> {max(afters) / 1024:.1f} KB; {sum(befores) / events:.0f} -> "
        f"{sum(afters) / events:.0f} bytes an event; every replay the same bytes after, and verified "
        f"({time.monotonic() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
