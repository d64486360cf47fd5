"""Redis is killed (kill -9) and restarted while games are played, some by people and some by AIs alone.

Clients see 503s while Redis is away and ask again, as a frontend does.  The
workers must wait for Redis and carry on (not exit), every game must move on
within 10 s of Redis being back and reach its end without anyone repairing
it, a deadline that passed during the outage must fire within seconds of
Redis returning, every acknowledged action must be in its stream
(``appendfsync always``), and no answer may be a 500.
"""

from __future__ import annotations

import time

from service.jobqueue.liveness import IDLE
from tests.faults.players import Human, assert_every_ack_kept, idle_game, play_all, play_out, tables_against_ais
from tests.faults.players import event_time as at
from tests.harness.deployment import Client, stored_version, stream_events, wait_until

OUTAGE = 20.0  # longer than RQ's own reconnection backoff would wait out (it doubles to a minute)
PROGRESS_BOUND = 10.0


def test_play_goes_on_after_redis_is_killed_and_restarted(deployment, server):
    base = deployment.api()
    workers = [deployment.worker(), deployment.worker()]
    lobby = Client(base)
    people, human_games = tables_against_ais(lobby, 3)
    humans = [Human([p], g) for p, g in zip(people, human_games, strict=True)]
    stop, threads = play_all(humans, 240)
    text = server.client()
    wait_until(lambda: all(stored_version(text, deployment.prefix, g) > 12 for g in human_games), 30, "play gets going")
    # A game whose human never moves and whose turn's deadline falls while Redis is away.
    idler, idle, _ = idle_game(lobby, 5)
    # Games of AIs alone, made last: they play at the workers' pace (a game in two or three seconds), so one made at the
    # start could be over by now, and "every game moves on" would ask nothing of it.
    watcher = lobby.sign_up("Watcher")
    ai_seats = [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
    ai_games = [watcher.json("POST", "/games", expect=201, json={"seats": ai_seats})["id"] for _ in range(2)]
    games = human_games + ai_games
    in_play = [g for g in ai_games if stream_events(text, deployment.prefix, g)[-1]["type"] != "game_finished"]

    server.kill()
    down = time.time()
    time.sleep(OUTAGE)
    server.start()
    back = time.time()
    text = server.client()
    print(f"\nRedis was away {back - down:.1f} s")

    def moved_since_back(game_id: str) -> float | None:
        events = stream_events(text, deployment.prefix, game_id)
        if events[-1]["type"] == "game_finished" and at(events[-1]) < back:
            return 0.0  # it had finished before Redis went away
        later = [at(e) for e in events if at(e) >= back]
        return min(later) - back if later else None

    assert in_play == ai_games, "every game of AIs alone was in play when Redis went away"
    progress = {g: wait_until(lambda g=g: moved_since_back(g) is not None, 60, f"game {g} moves on") for g in games}
    print("each game moved on again after " + ", ".join(f"{moved_since_back(g):.1f}" for g in games) + " s")
    assert all(moved_since_back(g) <= PROGRESS_BOUND for g in progress)

    timed_out = wait_until(
        lambda: [e for e in stream_events(text, deployment.prefix, idle) if e["type"] == "turn_timed_out"],
        30,
        "the idle seat's deadline fires",
    )
    print(f"the deadline that passed while Redis was away fired {at(timed_out[0]) - back:.1f} s after it was back")
    assert 0 <= at(timed_out[0]) - back <= 3.0

    def finished(game_id: str) -> bool:
        return stream_events(text, deployment.prefix, game_id)[-1]["type"] == "game_finished"

    play_out(humans, lambda: all(finished(g) for g in games), stop, threads)

    assert all(w.poll() is None for w in workers), "a worker exited when Redis went away"
    assert_every_ack_kept(humans, games, lambda game_id: stream_events(text, deployment.prefix, game_id))
    clients = [lobby, watcher, idler, *people]
    assert not [a for c in clients for a in c.server_errors()], deployment.logs()
    unanswered = sum(c.statuses().count(503) + c.statuses().count(0) for c in clients)
    print(
        f"{sum(len(h.acks) for h in humans)} actions acknowledged, every one in its stream; "
        f"{unanswered} requests answered 503 or not at all while Redis was away; no 500"
    )


#: Seconds an expert thinks in the tests below: long enough for every job runner of a worker to be caught mid-turn.
LONG_TURN = "4.0"
#: Longer than redis-py 8 retries a command for (ten tries, backing off up to a second each): every runner loses Redis
#: mid-job, and tries again while it is away.
RUNNERS_OUTAGE = 10.0
#: Job runners a `red7 worker` has for the games by default (RED7_WORKER_THREADS): the main thread and seven more.
GAME_RUNNERS = 8


def busy_runners(text, prefix: str) -> dict[str, str]:
    """Seen from outside the worker: each job runner whose pulse says it runs a job, by worker name."""
    said = {key.removeprefix(f"{prefix}alive:"): text.get(key) for key in text.scan_iter(match=f"{prefix}alive:*")}
    return {name: job for name, job in said.items() if job not in (None, IDLE)}


def expert_tables(base: str, count: int) -> list[str]:
    """``count`` all-expert games, each of a player of its own (one AI turn on its way per player)."""
    lobby, seats = Client(base), [{"kind": "ai", "level": "expert"}] * 2
    return [lobby.sign_up(f"Host{n}").json("POST", "/games", expect=201, json={"seats": seats})["id"] for n in range(count)]


def test_every_job_thread_outlives_a_redis_restart_under_long_ai_turns(deployment, server):
    """Each of a worker's job threads was mid-turn when Redis went; each must run a turn again once it is back.

    A job thread that built its RQ worker outside its loop's ``try`` died of the connection error that
    building it raised while Redis was away (6 of 7 in one process), and the process ran one or two turns at
    a time ever after.
    """
    base = deployment.api()
    worker = deployment.worker(RED7_EXPERT_SECONDS=LONG_TURN)
    expert_tables(base, GAME_RUNNERS)
    text = server.client()
    before = wait_until(
        lambda: len(busy := busy_runners(text, deployment.prefix)) == GAME_RUNNERS and busy,
        60,
        "every job runner thinks over a turn",
    )
    server.kill()
    time.sleep(RUNNERS_OUTAGE)
    server.start()
    text = server.client()
    after = wait_until(
        lambda: len(busy := busy_runners(text, deployment.prefix)) == GAME_RUNNERS and busy,
        60,
        f"all {GAME_RUNNERS} job runners run a turn at once again",
    )
    print(f"\n{len(before)} runners busy before Redis was killed, {len(after)} at once after it came back")
    assert worker.poll() is None


def test_a_worker_started_before_its_redis_waits_for_it_and_then_serves(deployment, server):
    """`red7 worker` started while its Redis is down waits for it (it exited 1), then runs every job runner."""
    server.stop()
    worker = deployment.worker(RED7_EXPERT_SECONDS=LONG_TURN)
    # It says so once it has started and found no Redis: within seconds, later on a loaded host (CI once saw only its
    # first line after 4 s); exiting instead is the failure.
    wait_until(
        lambda: worker.poll() is not None or "Redis is unreachable" in deployment.log_of(worker),
        60,
        "the worker says its Redis is unreachable",
        every=0.2,
    )
    assert worker.poll() is None, f"red7 worker exited with {worker.returncode}: {deployment.log_of(worker)}"
    time.sleep(2.0)  # and waits on, rather than exiting a moment later
    assert worker.poll() is None, f"red7 worker exited with {worker.returncode}: {deployment.log_of(worker)}"
    server.start()
    base = deployment.api()
    expert_tables(base, GAME_RUNNERS)
    text = server.client()
    wait_until(
        lambda: len(busy_runners(text, deployment.prefix)) == GAME_RUNNERS,
        60,
        f"all {GAME_RUNNERS} job runners run a turn at once",
    )
    assert worker.poll() is None
