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
from datetime import datetime

from tests.deployment import Client, stored_version, stream_events, wait_until
from tests.faults.players import Human, assert_every_ack_kept, play_all, play_out

OUTAGE = 20.0  # longer than RQ's own reconnection backoff would wait out (it doubles to a minute)
PROGRESS_BOUND = 10.0


def at(event: dict) -> float:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()


def test_play_goes_on_after_redis_is_killed_and_restarted(deployment, server):
    base = deployment.api()
    workers = [deployment.worker(), deployment.worker()]
    lobby = Client(base)
    people = [lobby.sign_up(f"P{i}") for i in range(3)]
    watcher = lobby.sign_up("Watcher")
    human_games = [
        p.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"},
                                                             {"kind": "ai", "level": "random"}], "action_rules": True})
        for p in people
    ]
    ai_games = [watcher.json("POST", "/games", expect=201, json={"seats": [{"kind": "ai", "level": "greedy"},
                                                                           {"kind": "ai", "level": "random"}]})
                for _ in range(2)]
    humans = [Human([p], g["id"]) for p, g in zip(people, human_games, strict=True)]
    stop, threads = play_all(humans, 240)
    text = server.client()
    games = [g["id"] for g in human_games + ai_games]
    wait_until(lambda: all(stored_version(text, deployment.prefix, g) > 12 for g in games), 30, "play gets going")
    # A game whose human never moves and whose turn's deadline falls while Redis is away.
    idler = lobby.sign_up("Idler")
    for _ in range(20):
        idle = idler.json("POST", "/games", expect=201,
                          json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}], "turn_timeout": 5})
        path = f"/games/{idle['id']}"
        if wait_until(lambda path=path: idler.json("GET", path)["turn"], 10, "a turn")["seat"] == 0:
            break
    assert idler.json("GET", f"/games/{idle['id']}")["turn"]["seat"] == 0

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

    progress = {g: wait_until(lambda g=g: moved_since_back(g) is not None, 60, f"game {g} moves on") for g in games}
    print("each game moved on again after " + ", ".join(f"{moved_since_back(g):.1f}" for g in games) + " s")
    assert all(moved_since_back(g) <= PROGRESS_BOUND for g in progress)

    timed_out = wait_until(lambda: [e for e in stream_events(text, deployment.prefix, idle["id"])
                                    if e["type"] == "turn_timed_out"], 30, "the idle seat's deadline fires")
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
    print(f"{sum(len(h.acks) for h in humans)} actions acknowledged, every one in its stream; "
          f"{unanswered} requests answered 503 or not at all while Redis was away; no 500")
