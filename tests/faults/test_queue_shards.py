"""One of two queue shards is killed under play (kill -9), then started again empty: the other shard's games never pause.

The production shape with ``RED7_QUEUE_URL`` naming two queue Redis servers (``service/jobqueue/shards.py``): one stores Redis,
two queue redis-servers, gunicorn and two ``red7 worker`` processes, each serving both shards.  Games on both shards,
some played by people over HTTP, some by AIs alone, each AI turn paced (``RED7_AI_DELAY``) so that every game waits on
its shard's agenda and ticker between two moves.  The first shard (the one the runtime's plain fields name) is killed:

- the second shard's games never pause: the largest gap between two of their moves, across the outage and the
  restart, stays within :data:`MAX_GAP` (their pace is :data:`AI_DELAY`);
- the killed shard comes back empty (its files gone): every one of its games moves on within :data:`PROGRESS_BOUND`
  (its ticker, finding no agenda marker, puts them back from the stores' games in play);
- every acknowledged action is in its stream, no answer is a 500, and no worker exits.
"""

from __future__ import annotations

import itertools
import shutil
import time

from service.jobqueue.shards import shard_of
from tests.faults.players import AGAINST_AIS, Human, assert_every_ack_kept, play_all
from tests.faults.players import event_time as at
from tests.harness.deployment import Client, RedisServer, processes, stored_version, stream_events, wait_until

#: The pace of AI turns (s): between two moves every game waits on its shard's agenda (and its ticker).
AI_DELAY = "0.5"
#: The largest gap (s) allowed between two moves of a game on the shard that stayed up.
MAX_GAP = 2.0
#: Every game of the killed shard moves on within this long (s) of its server being back.
PROGRESS_BOUND = 10.0
#: How long the killed shard stays away (s).
OUTAGE = 6.0
#: How many games of each kind each shard serves at least.
ALL_AI_EACH, HUMAN_EACH = 2, 1


def test_a_queue_shard_killed_stalls_only_its_own_games(tmp_path):
    stores = RedisServer(tmp_path / "stores")
    shards = [RedisServer(tmp_path / f"queue{n}", None, "everysec") for n in range(2)]
    for server in (stores, *shards):
        server.directory.mkdir()
        server.start()
    (tmp_path / "run").mkdir()
    queue_url = ",".join(server.url for server in shards)
    try:
        with processes(tmp_path / "run", stores.url, RED7_QUEUE_URL=queue_url, RED7_AI_DELAY=AI_DELAY) as deployment:
            run(deployment, stores, shards)
    finally:
        for server in (*shards, stores):
            server.stop()


def run(deployment, stores: RedisServer, shards: list[RedisServer]) -> None:
    base = deployment.api()
    workers = [deployment.worker(), deployment.worker()]
    lobby = Client(base)
    ai_seats = [{"kind": "ai", "level": level} for level in ("greedy", "random", "greedy", "random")]
    ai_games: dict[int, list[str]] = {0: [], 1: []}
    watchers: list[Client] = []
    while min(len(ids) for ids in ai_games.values()) < ALL_AI_EACH:
        watchers.append(lobby.sign_up(f"W{len(watchers)}"))  # a player each: each game's AI turns in a share of its own
        game_id = watchers[-1].json("POST", "/games", expect=201, json={"seats": ai_seats})["id"]
        ai_games[shard_of(game_id, 2)].append(game_id)
    people: list[Client] = []
    humans: list[Human] = []
    human_games: dict[int, list[str]] = {0: [], 1: []}
    while min(len(ids) for ids in human_games.values()) < HUMAN_EACH:
        person = lobby.sign_up(f"P{len(people)}")
        game_id = person.json("POST", "/games", expect=201, json=AGAINST_AIS)["id"]
        people.append(person)
        humans.append(Human([person], game_id))
        human_games[shard_of(game_id, 2)].append(game_id)
    stop, threads = play_all(humans, 240)
    text = stores.client()
    on = {n: ai_games[n] + human_games[n] for n in (0, 1)}
    every = on[0] + on[1]
    wait_until(lambda: all(stored_version(text, deployment.prefix, g) > 6 for g in every), 60, "play gets going")

    def events_of(game_id: str) -> list[dict]:
        return stream_events(text, deployment.prefix, game_id)

    def appends(game_id: str) -> list[float]:
        return sorted({at(e) for e in events_of(game_id)})

    def over_by(game_id: str) -> float | None:
        last = events_of(game_id)[-1]
        return at(last) if last["type"] in ("game_finished", "game_aborted") else None

    killed, kept = shards[0], 1
    killed_at = time.time()
    killed.kill()
    time.sleep(OUTAGE)
    shutil.rmtree(killed.directory / "appendonlydir")  # started again empty: a new server at the same address
    killed.start()
    back_at = time.time()

    # The killed shard's games move on within PROGRESS_BOUND of its return.
    resumed = {}
    for game_id in on[0]:
        ended = over_by(game_id)
        if ended is not None and ended < killed_at:
            continue
        first = wait_until(
            lambda g=game_id: [t for t in appends(g) if t >= back_at], 30, f"game {game_id} moves on after its shard's return"
        )[0]
        resumed[game_id] = first - back_at
    print(f"\nthe killed shard's games' first move after its return, s: {', '.join(f'{s:.1f}' for s in resumed.values())}")
    assert resumed, "the killed shard's games were over before it was killed"
    assert all(seconds <= PROGRESS_BOUND for seconds in resumed.values()), resumed
    window_end = max(time.time(), back_at + PROGRESS_BOUND)
    time.sleep(max(0.0, window_end - time.time()))  # the other shard's games watched as long as the killed one's may take

    # The other shard's games never paused: the largest gap between two moves from the kill to the window's end.
    gaps = {}
    for game_id in on[kept]:
        ended = over_by(game_id)
        if ended is not None and ended < killed_at:
            continue
        end = min(window_end, ended) if ended is not None else window_end
        times = [killed_at, *(t for t in appends(game_id) if killed_at < t <= end), end]
        gaps[game_id] = max(b - a for a, b in itertools.pairwise(times))
    print(f"the other shard's games' largest gap between two moves, s: {', '.join(f'{g:.2f}' for g in gaps.values())}")
    assert len(gaps) >= 2, "the other shard's games were over before the kill"
    assert all(gap <= MAX_GAP for gap in gaps.values()), gaps

    stop.set()
    for thread in threads:
        thread.join(30)
    assert not [h.failure for h in humans if h.failure is not None]
    assert all(w.poll() is None for w in workers), "a worker exited when a queue shard was killed"
    assert_every_ack_kept(humans, every, events_of)
    assert not [a for c in [lobby, *watchers, *people] for a in c.server_errors()], deployment.logs()
    print(f"{sum(len(h.acks) for h in humans)} actions acknowledged, every one in its stream; no 500")
