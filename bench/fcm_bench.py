"""Native push (issue 37, item 5): how long after a move its your-turn notice reaches FCM (target: p95 <= 10 s).

    python -m bench.fcm_bench                 # 200 devices: ~20 s
    python -m bench.fcm_bench --players 500

A redis-server of its own, the service and its workers in this process (``red7 serve --embedded``'s shape), and the
tests' fake FCM (tests/harness/fcm.py: it checks each assertion and message as Google would).  Each player registers a
device and starts a game against a greedy AI with ten minutes a turn, all at once from a few threads; the delay of a
notice is from the answer to the request that made the turn due to the moment the fake FCM took the message.

FCM is one receiver to the notices' breakers (service/outbound/breaker.py): a device that hung alone would make every
device wait its turn behind it, but FCM answers for all devices alike, so the bench has no such device (a hanging FCM
delaying no web push and no game is tests/workers/test_push_fcm.py's).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime, connect
from tests.harness.deployment import redis_server
from tests.harness.fcm import FakeFcm
from tests.harness.support import HUMAN, Api, ai
from workers.runner import start_embedded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="players, each with one device and one game")
    parser.add_argument("--clients", type=int, default=8, help="threads making the games")
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="red7-fcm-"))
    fake = FakeFcm()
    try:
        with redis_server(directory, appendfsync="everysec") as server:
            settings = Settings(
                redis_url=server.url,
                queue_url=server.url,
                fcm_credentials=str(fake.write_credentials(directory)),
                fcm_endpoint=fake.base,
                max_games_in_play=0,
                max_ai_seats_in_play=0,
                rate_limit_token="",
                rate_limit_address="",
                rate_limit_signup="",
            )
            runtime = build_runtime(settings, clients=connect(settings))
            api = Api(create_app(runtime), runtime)
            players = [api.player("Ana") for _ in range(args.players)]
            for n, player in enumerate(players):  # one device each
                token = f"bench-device-{n}:APA91b"
                api.call("POST", "/v1/players/me/push-devices", player["token"], json={"platform": "fcm", "token": token})
            stop = start_embedded(runtime, idle=1)
            try:
                made: dict[str, float] = {}

                def start(n: int) -> None:
                    game = api.game(players[n]["token"], [HUMAN, ai("greedy")], seed=n, turn_timeout=600)
                    made[game["id"]] = time.time()

                began = time.time()
                with ThreadPoolExecutor(args.clients) as pool:
                    list(pool.map(start, range(args.players)))
                wanted = args.players
                deadline = time.time() + 120
                first: dict[str, float] = {}
                while time.time() < deadline:
                    for sent in list(fake.sent):
                        data = sent.message["data"]
                        if data["event"] == "your_turn" and data["game_id"] not in first:
                            first[data["game_id"]] = sent.at
                    if len(first) >= wanted:
                        break
                    time.sleep(0.1)
            finally:
                stop.set()
                time.sleep(1.2)
    finally:
        fake.close()
        shutil.rmtree(directory, ignore_errors=True)
    delays = sorted(first[g] - made[g] for g in first if g in made)
    if not delays:
        print("no notice arrived", file=sys.stderr)
        return 1
    p95 = delays[max(0, int(len(delays) * 0.95) - 1)]
    print(f"devices: {args.players}; games made in {max(made.values()) - began:.1f} s")
    print(f"your-turn notices at FCM: {len(delays)} of {wanted}; refused by the fake: {len(fake.refused)}")
    print(f"delay after the move (s): p50 {statistics.median(delays):.2f}  p95 {p95:.2f}  max {delays[-1]:.2f}")
    print(f"access tokens minted: {fake.assertions}")
    ok = len(delays) >= wanted and p95 <= 10 and not fake.refused
    print("target p95 <= 10 s:", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
