"""A webhook receiver that hangs delays no game: deliveries have a queue and a thread of their own.

One `red7 worker` only.  Ana's webhook points at a receiver that takes
HANG seconds to answer, and she plays a game whose every turn of hers is
notified; meanwhile Bo's all-AI game plays on.  Had the deliveries shared the
games' queue and worker, each would hold Bo's AI turns for HANG seconds.
"""

from __future__ import annotations

import itertools
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.deployment import Client, stream_events, wait_until
from tests.faults.players import Human, play_all

HANG = 8.0
AI_GAP_BOUND = 1.5  # seconds between two moves of an all-AI game (greedy and random decide in milliseconds)


def test_a_hanging_webhook_receiver_delays_no_game(deployment, server):
    calls: list[float] = []
    stop = threading.Event()

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            calls.append(time.monotonic())
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            stop.wait(HANG)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    receiver.daemon_threads = True
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        base = deployment.api(RED7_WEBHOOK_PRIVATE_HOSTS="1")
        deployment.worker(RED7_WEBHOOK_PRIVATE_HOSTS="1")
        ana, bo = Client(base).sign_up("Ana"), Client(base).sign_up("Bo")
        ana.json("PATCH", "/players/me", json={"webhook_url": f"http://127.0.0.1:{receiver.server_address[1]}/hook"})
        game = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]})
        player = Human([ana], game["id"])
        playing, threads = play_all([player], 60)
        wait_until(lambda: len(calls) >= 1, 30, "a notification reaches the hanging receiver")
        watched = bo.json("POST", "/games", expect=201, json={"seats": [{"kind": "ai", "level": "greedy"},
                                                                        {"kind": "ai", "level": "random"}]})
        text = server.client()

        def finished() -> bool:
            return stream_events(text, deployment.prefix, watched["id"])[-1]["type"] == "game_finished"

        wait_until(finished, 60, "the all-AI game finishes", every=0.2)
        playing.set()
        for thread in threads:
            thread.join(30)
        moves = [datetime.fromisoformat(e["at"].replace("Z", "+00:00")).timestamp()
                 for e in stream_events(text, deployment.prefix, watched["id"])]
        gap = max(b - a for a, b in itertools.pairwise(moves))
        print(f"\n{len(calls)} notifications went to a receiver that hangs {HANG:.0f} s; "
              f"the all-AI game's longest wait between two moves was {gap:.2f} s")
        assert gap <= AI_GAP_BOUND
        assert not ana.server_errors() and not bo.server_errors()
    finally:
        stop.set()
        receiver.shutdown()
        receiver.server_close()
