"""A worker killed (kill -9 of its process tree) in the middle of a ladder's update: every game applied exactly once.

Rated all-AI games finish one after another on `red7 worker`s; the test holds Redis's writes (``CLIENT PAUSE
WRITE``) until it finds a ``rate`` job running on the worker it means to kill — the job has read the ladder and
is waiting to write it — and kills that worker there.  Another worker takes the job over (the agenda watches a
finished rated game's ``rate`` job until its ladder has the game), and at the end each ladder holds every
finished rated game once: its version counts one write per game, and it is byte for byte the fold of the game
streams (what ``red7 ratings rebuild`` compares).
"""

from __future__ import annotations

import random
import time

import redis
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from engine import Variant
from service.application.commands import NewGame, SeatRequest
from service.common.config import Settings
from service.runtime import build_runtime
from tests.harness.deployment import wait_until

GAMES = 40
PAUSE_MS = 600
#: One creator's many all-AI games move at once (the share of AI turns per player is for people's fairness).
UNCAPPED = {"RED7_AI_TURNS_PER_PLAYER": "0"}


def test_a_worker_killed_mid_update_leaves_every_game_applied_exactly_once(deployment, server):
    victim = deployment.worker("victim", **UNCAPPED)
    queue_name = deployment.env["RED7_QUEUE_NAME"]
    runtime = build_runtime(
        Settings(
            redis_url=server.url,
            key_prefix=deployment.prefix,
            queue_name=queue_name,
            ai_turns_per_player=0,
            max_games_in_play=0,
            max_ai_seats_in_play=0,
        )
    )
    raw = redis.Redis(host="127.0.0.1", port=server.port)
    registry = StartedJobRegistry(queue_name, connection=raw)
    creator = runtime.accounts.sign_up("Ana").player
    rng = random.Random(21)
    games = []
    for _ in range(GAMES):
        seats = [SeatRequest("ai", "greedy"), SeatRequest("ai", "random")]
        seats += [SeatRequest("ai", rng.choice(["random", "greedy"])) for _ in range(rng.randint(0, 2))]
        variant = rng.choice([Variant.BASIC, Variant.ADVANCED])
        game = runtime.games.create(creator, NewGame(seats, variant=variant, rated=True)).game
        assert game is not None
        games.append(game.id)
    victim_pid = str(victim.pid).encode()

    def rating_on_the_victim() -> Job | None:
        for job_id in registry.get_job_ids():
            if "-rate-" not in str(job_id):
                continue
            try:
                job = Job.fetch(job_id, connection=raw, serializer=JSONSerializer)
            except NoSuchJobError:
                continue
            if job.worker_name and raw.hget(f"rq:worker:{job.worker_name}", "pid") == victim_pid:
                return job
        return None

    def rating_near() -> bool:
        """A rate job queued or running: only then are writes held, so the games get on at full speed meanwhile (held
        all along, 40 games on a loaded machine did not finish within the wait)."""
        waiting = raw.lrange(f"rq:queue:{queue_name}", 0, -1) + registry.get_job_ids()
        return any(b"-rate-" in (j if isinstance(j, bytes) else j.encode()) for j in waiting)

    def caught() -> Job | None:
        """Writes held a moment: a rate job of the victim's whose game its ladder does not have yet is stuck before
        its write (reads go on: the job has read the ladder, or is reading it)."""
        if not rating_near():
            time.sleep(0.01)
            return None
        raw.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
        try:
            time.sleep(0.05)
            job = rating_on_the_victim()
            if job is None or runtime.ratings.applied(runtime.games.load(job.args[0])):
                return None
            deployment.kill_tree(victim)  # while its write waits
            return job
        finally:
            raw.execute_command("CLIENT", "UNPAUSE")
            time.sleep(0.02)

    job = wait_until(caught, 180, "a rate job on the victim, caught before its write", every=0.0)
    assert victim.poll() is not None, "killed"
    game_of_job = job.args[0]
    deployment.worker("rescuer", **UNCAPPED)

    def applied(game_id: str) -> bool:
        game = runtime.games.load(game_id)
        return game.status == "finished" and runtime.ratings.applied(game)

    wait_until(lambda: all(applied(g) for g in games), 120, "every game finished and applied", every=0.5)
    assert applied(game_of_job), "the killed job's game was applied by the other worker"
    report = runtime.ratings.rebuild()
    assert report.games == GAMES and report.identical, report
    store = runtime.ratings.store
    exported = {ladder: store.export(ladder) for ladder in ("basic", "advanced")}
    assert sum(len(e["games"]) for e in exported.values()) == GAMES
    assert sum(store.version(ladder) for ladder in ("basic", "advanced")) == GAMES, "one write per game: none twice"
    print(f"\nworker killed mid-update of {game_of_job}; {GAMES} games applied once each; ladders identical to the rebuild")
