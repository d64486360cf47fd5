"""The embedded server's workers (``red7 serve --embedded``): they play games through, and stop when told."""

from __future__ import annotations

import threading
import time

from tests.deployment import wait_until
from tests.support import ai
from workers import context
from workers.runner import start_embedded


def test_the_embedded_workers_play_a_game_through_at_once_and_stop_when_told(api):
    before = set(threading.enumerate())
    stop = start_embedded(api.runtime, idle=1)
    started = [t for t in threading.enumerate() if t not in before]
    try:
        token = api.player()["token"]
        began = time.monotonic()
        game = api.game(token, [ai("random"), ai("random")], variant="basic")
        wait_until(lambda: api.view(game["id"], token)["status"] == "finished", 30, "the embedded workers finish the game")
        assert time.monotonic() - began < 10
    finally:
        stop.set()
    assert {t.name for t in started} >= {"red7-worker", "red7-webhooks", "red7-pulse", "red7-ticker", "red7-matchmaker"}
    wait_until(lambda: not any(t.is_alive() for t in started), 5, "every embedded thread ends once stopped")
    context._runtime = None
