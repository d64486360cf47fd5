"""The embedded server's workers (``red7 serve --embedded``): they play games through, and stop when told."""

from __future__ import annotations

import logging
import threading
import time
from functools import partial

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.deployment import wait_until
from tests.harness.support import Api, ai, settings_for
from workers import context
from workers.runner import start_embedded


def test_the_embedded_workers_play_a_game_through_at_once_and_stop_when_told(api, jobs_installed):
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


def test_two_embedded_servers_in_one_process_each_run_their_own_jobs(api, redis_pair, key_prefix, caplog, jobs_installed):
    """Each embedded server's runners install its runtime for the whole process whenever they are built again (every
    few idle seconds), so a job that asked the process could run against the other server's stores and find no game
    there (seen in CI: a browser test's server beside its module's).  A runner's jobs find its own runtime."""
    other_runtime = build_runtime(settings_for(f"{key_prefix}other:"), clients=redis_pair)
    other = Api(create_app(other_runtime), other_runtime)
    stops = [start_embedded(api.runtime, idle=1), start_embedded(other.runtime, idle=1)]
    try:
        for server, installed in ((api, other.runtime), (other, api.runtime)):
            context.install(installed)  # as the other server's runner did last: the process's runtime is not this one
            token = server.player()["token"]
            game_id = server.game(token, [ai("random"), ai("random")], variant="basic")["id"]
            finished = partial(lambda s, g, t: s.view(g, t)["status"] == "finished", server, game_id, token)
            wait_until(finished, 30, "each server's AIs play its own game through")
        # At once, not on a retry that came after the runner happened to install its own runtime again.
        assert not [r for r in caplog.records if r.name.startswith("rq.") and r.levelno >= logging.ERROR], caplog.text
    finally:
        for stop in stops:
            stop.set()
