"""Web push through the production shape: gunicorn, `red7 worker`, a redis-server of the test's own.

The push service is the tests' own on loopback (``tests/workers/push_service.py``): it verifies each message's VAPID
signature and decrypts it with the subscription's keys.  "Your turn" must reach it within 10 s (p95) of the move that
made it the player's turn, over 200 moves; a push service that hangs must delay no AI turn.
"""

from __future__ import annotations

import itertools
import statistics
import time
from datetime import datetime

from service.application.push import new_vapid_key, public_key_of
from tests.faults.players import Human, play_all
from tests.harness.deployment import Client, stream_events, wait_until
from tests.workers.push_service import PushService

MOVES = 200
P95_BOUND = 10.0
AI_GAP_BOUND = 1.5


def _at(event: dict) -> float:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()


def _move(ana: Client, game_id: str) -> bool:
    """Ana's whole turn, if it is hers; ``False`` once the game is over."""
    view = ana.json("GET", f"/games/{game_id}")
    if view["status"] != "active":
        return False
    while view["legal_steps"]:
        winning = [s for s in view["legal_steps"] if s["can_win"] and s["type"] != "fold"] or view["legal_steps"]
        step = {k: winning[0][k] for k in ("type", "card", "seat", "to") if k in winning[0]}
        view = ana.json("POST", f"/games/{game_id}/actions", json={"steps": [step]})
    return True


def test_your_turn_reaches_the_browser_within_seconds(deployment, server):
    key = new_vapid_key()
    service = PushService(public_key_of(key))
    try:
        env = {"RED7_WEBHOOK_PRIVATE_HOSTS": "1", "RED7_VAPID_PRIVATE_KEY": key}
        base = deployment.api(**env)
        deployment.worker(**env)
        ana = Client(base).sign_up("Ana")
        ana.json("POST", "/players/me/push-subscription", expect=201, json=service.device("phone").subscription())
        text = server.client()
        games: list[str] = []

        def turns() -> int:
            return sum(1 for r in service.received if r.message["event"] == "your_turn")

        deadline = time.monotonic() + 240
        while turns() < MOVES and time.monotonic() < deadline:
            game = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]})
            games.append(game["id"])
            while turns() < MOVES and time.monotonic() < deadline:
                if not _move(ana, game["id"]):
                    break
                time.sleep(0.05)
        wait_until(lambda: turns() >= MOVES, 30, f"{MOVES} pushes arrive")
        moves = {(g, e["n"]): _at(e) for g in games for e in stream_events(text, deployment.prefix, g)}
        delays = sorted(
            r.at - moves[r.message["game_id"], r.message["version"]]
            for r in service.received
            if r.message["event"] == "your_turn"
        )[:MOVES]
        p95 = delays[int(len(delays) * 0.95) - 1]
        print(
            f"\n{len(delays)} your-turn pushes, decrypted and verified: median {statistics.median(delays):.3f} s, "
            f"p95 {p95:.3f} s, max {delays[-1]:.3f} s after the move that made it Ana's turn"
        )
        assert len(delays) >= MOVES and not service.refused, service.refused
        assert p95 <= P95_BOUND
        assert not ana.server_errors()
    finally:
        service.close()


def test_a_hanging_push_service_delays_no_ai_turn(deployment, server):
    key = new_vapid_key()
    service = PushService(public_key_of(key))
    service.answers["hangs"] = None
    try:
        env = {"RED7_WEBHOOK_PRIVATE_HOSTS": "1", "RED7_VAPID_PRIVATE_KEY": key}
        base = deployment.api(**env)
        deployment.worker(**env)
        ana, bo = Client(base).sign_up("Ana"), Client(base).sign_up("Bo")
        ana.json("POST", "/players/me/push-subscription", expect=201, json=service.device("hangs").subscription())
        anas = Human(
            [ana],
            ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]})["id"],
        )
        playing, threads = play_all([anas], 60)
        wait_until(lambda: len(anas.acks) >= 4, 30, "Ana plays while her pushes hang")
        watched = bo.json(
            "POST", "/games", expect=201, json={"seats": [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]}
        )
        text = server.client()
        wait_until(
            lambda: stream_events(text, deployment.prefix, watched["id"])[-1]["type"] == "game_finished",
            60,
            "the all-AI game finishes",
            every=0.2,
        )
        playing.set()
        for thread in threads:
            thread.join(30)
        times = [_at(e) for e in stream_events(text, deployment.prefix, watched["id"])]
        gap = max(b - a for a, b in itertools.pairwise(times))
        print(f"\nAna's pushes hang at her push service; the all-AI game's longest wait between two moves was {gap:.2f} s")
        assert gap <= AI_GAP_BOUND
        assert not ana.server_errors() and not bo.server_errors()
    finally:
        service.close()
