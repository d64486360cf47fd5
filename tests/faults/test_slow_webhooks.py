"""A webhook receiver that hangs delays no game, and no other receiver's deliveries.

One `red7 worker` only.  Ana's webhook points at a receiver that takes
HANG seconds to answer, and she plays a game whose every turn of hers is
notified; meanwhile Bo's all-AI game plays on.  Had the deliveries shared the
games' queue and worker, each would hold Bo's AI turns for HANG seconds.
And with Ana's receiver never answering, Bo's own webhook hears of each of his
turns within a second: Ana's deliveries wait in her receiver's line, not in
the delivery threads everyone shares.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.faults.players import Human, play_all
from tests.harness.deployment import Client, stream_events, wait_until
from tests.harness.receivers import WebhookReceiver

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
        watched = bo.json(
            "POST", "/games", expect=201, json={"seats": [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]}
        )
        text = server.client()

        def finished() -> bool:
            return stream_events(text, deployment.prefix, watched["id"])[-1]["type"] == "game_finished"

        wait_until(finished, 60, "the all-AI game finishes", every=0.2)
        playing.set()
        for thread in threads:
            thread.join(30)
        moves = [
            datetime.fromisoformat(e["at"].replace("Z", "+00:00")).timestamp()
            for e in stream_events(text, deployment.prefix, watched["id"])
        ]
        gap = max(b - a for a, b in itertools.pairwise(moves))
        print(
            f"\n{len(calls)} notifications went to a receiver that hangs {HANG:.0f} s; "
            f"the all-AI game's longest wait between two moves was {gap:.2f} s"
        )
        assert gap <= AI_GAP_BOUND
        assert not ana.server_errors() and not bo.server_errors()
    finally:
        stop.set()
        receiver.shutdown()
        receiver.server_close()


#: Ana's deliveries due at once to her hanging receiver before Bo's are measured (the issue's count).
ANA_DELIVERIES = 12
#: Bo's deliveries measured, while Ana's receiver is called this many times (its line moves on after each timeout).
BO_DELIVERIES = 10
ANA_CALLS = 3
#: Bo plays two games against experts who think this long a move: his turns come a few a second, spread over Ana's
#: timeouts.
BO_PACE = "0.4"
DELIVERY_BOUND = 1.0  # seconds from the move that makes it Bo's turn to Bo's receiver hearing of it


def test_a_hanging_receiver_delays_no_other_players_webhooks(deployment, server):
    """Ana's receiver never answers; Bo's `your_turn` still reaches his within a second of the move that made it his turn.

    The deliveries shared one thread a worker, in one line: each of Ana's held it for the read timeout (5 s), and her
    retries came back into the same line, so a dozen of hers delayed Bo's by half a minute.
    """
    hanging, quick = WebhookReceiver(hang=120.0), WebhookReceiver()
    try:
        base = deployment.api(RED7_WEBHOOK_PRIVATE_HOSTS="1")
        deployment.worker(RED7_WEBHOOK_PRIVATE_HOSTS="1", RED7_EXPERT_SECONDS=BO_PACE)
        ana, bo = Client(base).sign_up("Ana"), Client(base).sign_up("Bo")
        ana.json("PATCH", "/players/me", json={"webhook_url": hanging.url})
        bo.json("PATCH", "/players/me", json={"webhook_url": quick.url})
        quick_ais = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
        anas = [Human([ana], ana.json("POST", "/games", expect=201, json={"seats": quick_ais})["id"]) for _ in range(2)]
        playing, threads = play_all(anas, 120)
        wait_until(
            lambda: sum(len(a.acks) for a in anas) >= ANA_DELIVERIES and hanging.calls,
            60,
            f"{ANA_DELIVERIES} of Ana's turns notified to her hanging receiver",
        )
        experts = [{"kind": "human"}, {"kind": "ai", "level": "expert"}, {"kind": "ai", "level": "expert"}]
        bos = [Human([bo], bo.json("POST", "/games", expect=201, json={"seats": experts})["id"]) for _ in range(2)]
        bo_playing, bo_threads = play_all(bos, 120)

        def bo_turns() -> list[tuple[float, dict]]:
            return [(at, body) for at, body in quick.calls if body["event"] == "your_turn"]

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (len(bo_turns()) < BO_DELIVERIES or len(hanging.calls) < ANA_CALLS):
            time.sleep(0.2)
        for stop, running in ((playing, threads), (bo_playing, bo_threads)):
            stop.set()
            for thread in running:
                thread.join(30)
        streams = {b.game_id: stream_events(server.client(), deployment.prefix, b.game_id) for b in bos}
        begun = sum(
            1
            for events in streams.values()
            for e in events  # a turn of Bo's (seat 0) began: each is notified
            if (e["type"], e.get("seat", e.get("first_seat"))) in (("turn_started", 0), ("round_dealt", 0))
        )
        with contextlib.suppress(AssertionError):  # the last may still be on its way
            wait_until(lambda: len(bo_turns()) >= begun, 5, "every turn of Bo's notified")
        moves = {(game_id, e["n"]): _at(e) for game_id, events in streams.items() for e in events}
        delays = [at - moves[body["game_id"], body["version"]] for at, body in bo_turns()]
        print(
            f"\nAna's hanging receiver was called {len(hanging.calls)} time(s) after {sum(len(a.acks) for a in anas)} "
            f"moves of hers; Bo heard of {len(delays)} of his {begun} turns, "
            f"{min(delays, default=0):.2f}-{max(delays, default=0):.2f} s after each began"
        )
        assert len(hanging.calls) >= ANA_CALLS, "Ana's line of deliveries moved on after each timeout"
        assert len(delays) >= max(BO_DELIVERIES, begun), f"Bo heard of {len(delays)} of his {begun} turns ({delays})"
        assert max(delays) <= DELIVERY_BOUND, delays
        assert not ana.server_errors() and not bo.server_errors()
    finally:
        hanging.close()
        quick.close()


def _at(event: dict) -> float:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()
