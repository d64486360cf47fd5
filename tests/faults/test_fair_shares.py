"""A player at their AI quota cannot delay another player's AI turns by more than half a second.

The production shape: gunicorn, two `red7 worker`s, a redis-server.  Pat
plays a human seat against a greedy AI, first alone (the baseline), then while
Busy holds every AI seat their quota allows (the default, 24) in all-AI games
of experts who think a second a move — enough work to keep both workers busy
for ever.  Each of Busy's games queued its AI turns in the one queue every
table shares: Pat's AI turn waited behind them (seconds).  Busy's share
(``RED7_AI_TURNS_PER_PLAYER``, one turn on its way at a time by default) keeps
a worker free for everyone else, while Busy's games still move.
"""

from __future__ import annotations

import itertools
import time
import uuid
from datetime import datetime
from statistics import median

from tests.harness.deployment import Client, stream_events

BOUND = 0.5  # seconds an AI turn may be delayed by another player's load
TURNS = 30  # of Pat's, measured each time
EXPERT_SECONDS = "1.0"  # the default thinking time


def _at(event: dict) -> float:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()


def ai_replies(events: list[dict], human_id: str) -> list[float]:
    """How long the AI took to answer each of the human's moves: from the human's last event to the AI's first."""
    waits = []
    for before, after in itertools.pairwise(events):
        if before.get("by") == f"player:{human_id}" and str(after.get("by", "")).startswith("ai:"):
            waits.append(_at(after) - _at(before))
    return waits


def play_turns(pat: Client, game_id: str, turns: int) -> int:
    """Pat plays ``turns`` turns (a new game when one ends); returns how many were played."""
    played = 0
    deadline = time.monotonic() + 90
    while played < turns and time.monotonic() < deadline:
        view = pat.json("GET", f"/games/{game_id}")
        if view["status"] == "finished":
            break
        if not view["legal_steps"]:
            pat.call("GET", f"/games/{game_id}/events?after={view['version']}&wait=10", timeout=20)
            continue
        options = view["legal_steps"]
        step = next((s for s in options if s["can_win"] and not s["eliminates"]), options[0])
        body = {"steps": [{k: step[k] for k in ("type", "card", "draw", "seat", "to") if k in step}]}
        headers = {"If-Match": f'"{view["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
        answer = pat.call("POST", f"/games/{game_id}/actions", json=body, headers=headers)
        assert answer is not None and answer.status_code in (200, 409), answer and answer.text
        played += answer.status_code == 200
    return played


class Pat:
    """Pat's table: one game against a greedy AI at a time (a new one when it ends), so Pat's own AI seats stay few."""

    def __init__(self, client: Client, deployment, server) -> None:
        self.client, self.deployment, self.server = client, deployment, server
        self.games: list[str] = []

    def replies(self, count: int) -> list[float]:
        """Play until the AI has answered ``count`` of Pat's moves; how long each answer took."""
        started = time.time()
        deadline = time.monotonic() + 120
        waits: list[float] = []
        while len(waits) < count:
            assert time.monotonic() < deadline, f"the AI answered {len(waits)} of Pat's moves in 120 s"
            if not self.games or self.client.json("GET", f"/games/{self.games[-1]}")["status"] == "finished":
                seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
                self.games.append(self.client.json("POST", "/games", expect=201, json={"seats": seats})["id"])
            play_turns(self.client, self.games[-1], count - len(waits))
            events = [
                e for g in self.games for e in stream_events(self.server.client(), self.deployment.prefix, g) if _at(e) >= started
            ]
            waits = ai_replies(events, self.client.player_id or "")
        return waits


def test_a_player_at_their_ai_quota_cannot_delay_another_players_ai_turns(deployment, server):
    base = deployment.api(workers=1, RED7_EXPERT_SECONDS=EXPERT_SECONDS)
    for _ in range(2):  # both up before Pat's first move: a reply timed from a worker's start would hide a slow one
        deployment.wait_listening(deployment.worker(RED7_EXPERT_SECONDS=EXPERT_SECONDS))
    pat, busy = Pat(Client(base).sign_up("Pat"), deployment, server), Client(base).sign_up("Busy")
    alone = pat.replies(TURNS)

    experts = [{"kind": "ai", "level": "expert"}] * 4
    games = [busy.json("POST", "/games", expect=201, json={"seats": experts})["id"] for _ in range(6)]
    refused = busy.call("POST", "/games", json={"seats": [{"kind": "ai", "level": "greedy"}] * 2})
    assert refused is not None and refused.status_code == 409 and refused.json()["code"] == "ai_seat_limit_reached"
    text = server.client()
    moved_before = sum(len(stream_events(text, deployment.prefix, g)) for g in games)
    time.sleep(2)  # Busy's games have filled what they can of the queue

    loaded = pat.replies(TURNS)
    moved = sum(len(stream_events(text, deployment.prefix, g)) for g in games) - moved_before
    print(
        f"\nPat's AI replies alone: median {median(alone):.3f} s, max {max(alone):.3f} s; beside Busy's 24 expert "
        f"seats: median {median(loaded):.3f} s, max {max(loaded):.3f} s ({len(loaded)} replies); Busy's games "
        f"appended {moved} events meanwhile"
    )
    assert max(loaded) <= max(alone) + BOUND
    assert moved > 0, "Busy's games move on too (their share, not nothing)"
    assert not pat.client.server_errors() and not busy.server_errors()
