"""The worker that keeps time (holds the ticker's role) is killed just before a turn's deadline.

Nobody reads the game.  Another worker must take the role over and the
deadline must still fire within 2 s of its time; the player then comes back
and plays the game to its end.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from tests.faults.players import Human, play_all
from tests.harness.deployment import Client, stream_events, wait_until

TIMEOUT = 6  # seconds per human turn
LATE_BOUND = 2.0


def when(event: dict) -> datetime:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00"))


def test_a_deadline_fires_on_time_when_the_timekeeper_dies(deployment, server):
    base = deployment.api()
    workers = [deployment.worker(), deployment.worker()]
    text = server.client()
    for worker in workers:  # the one that takes the role over must be up by then, however slowly it started
        deployment.wait_listening(worker, text)
    role_key = f"{deployment.prefix}ticker"
    holder = wait_until(lambda: text.get(role_key), 20, "a worker takes the ticker's role")
    ana = Client(base).sign_up("Ana")
    game = ana.json(
        "POST",
        "/games",
        expect=201,
        json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}], "turn_timeout": TIMEOUT},
    )

    def human_turn_started() -> dict | None:
        for event in reversed(stream_events(text, deployment.prefix, game["id"])):
            if event["type"] == "turn_started" and event["seat"] == 0:
                return event
            if event["type"] == "round_dealt" and event["first_seat"] == 0:
                return event
        return None

    started = wait_until(human_turn_started, 20, "the human's turn starts")
    deadline = when(started) + timedelta(seconds=TIMEOUT)
    time.sleep(max(0.0, (deadline - timedelta(seconds=0.5) - datetime.now(deadline.tzinfo)).total_seconds()))
    holder = text.get(role_key)
    keeper = next(w for w in workers if holder.endswith(f"-{w.pid}"))
    deployment.kill_tree(keeper)
    killed_before = (deadline - datetime.now(deadline.tzinfo)).total_seconds()

    def timed_out() -> dict | None:
        return next((e for e in stream_events(text, deployment.prefix, game["id"]) if e["type"] == "turn_timed_out"), None)

    fired = wait_until(timed_out, TIMEOUT + 20, "the deadline fires", every=0.1)
    late = (when(fired) - deadline).total_seconds()
    new_holder = text.get(role_key)
    print(
        f"\nthe timekeeper was killed {killed_before:.1f} s before the deadline; it fired {late:.2f} s after it "
        f"(the role went from {holder} to {new_holder})"
    )
    assert new_holder and new_holder != holder
    assert 0 <= late <= LATE_BOUND
    time.sleep(2 * LATE_BOUND)  # whatever the old holder queued, and the new one, has run by now
    acted = [e for e in stream_events(text, deployment.prefix, game["id"]) if e["type"] == "turn_timed_out"]
    assert len(acted) == 1, f"two ticker holders acted on one deadline: {acted}"

    player = Human([ana], game["id"])
    stop, threads = play_all([player], 120)
    wait_until(
        lambda: stream_events(text, deployment.prefix, game["id"])[-1]["type"] == "game_finished",
        120,
        "the game finishes",
        every=0.5,
    )
    stop.set()
    threads[0].join(30)
    assert player.failure is None
    assert not ana.server_errors()
