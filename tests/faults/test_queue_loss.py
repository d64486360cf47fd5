"""The queue's Redis loses its data under play: wiped (FLUSHALL), then killed and started again empty.

The stores and the queue run apart (as in production), the queue on ``appendfsync everysec``, which may lose the
last second of writes.  Everything the queue holds that a game needs to move on — the agenda (deadlines, paced AI
turns, the looks after every move), the jobs queued, the players' shares — is gone with it.  Nobody reads the
all-AI games nor the idle ones: only the ticker, finding the agenda's marker gone, can put them back on their way,
from the games in play that the stores keep (``service/storage/inplay.py``).  Every game must move on within 10 s,
a deadline due meanwhile must fire on time, every acknowledged action must be in its stream, and no answer may be a
500.
"""

from __future__ import annotations

import shutil
import time

from tests.faults.players import Human, assert_every_ack_kept, idle_game, play_all, tables_against_ais
from tests.faults.players import event_time as at
from tests.harness.deployment import Client, RedisServer, processes, stored_version, stream_events, wait_until

#: Every game must move on within this long (s) of the queue's Redis losing its data.
PROGRESS_BOUND = 10.0
#: A pace on AI turns (s): between two of them, a game's next turn is on the agenda alone (and lost with it).
AI_DELAY = "1.0"
#: The idle seats' turn limit (s): each idle game's deadline falls a few seconds after the loss.
IDLE_TURN = 8


def test_every_game_moves_on_after_the_queue_redis_loses_its_data(tmp_path):
    stores = RedisServer(tmp_path / "stores")
    queue = RedisServer(tmp_path / "queue", appendfsync="everysec")
    for server in (stores, queue):
        server.directory.mkdir()
        server.start()
    (tmp_path / "run").mkdir()
    try:
        with processes(tmp_path / "run", stores.url, RED7_QUEUE_URL=queue.url, RED7_AI_DELAY=AI_DELAY) as deployment:
            run(deployment, stores, queue)
    finally:
        queue.stop()
        stores.stop()


def run(deployment, stores: RedisServer, queue: RedisServer) -> None:
    base = deployment.api()
    workers = [deployment.worker(), deployment.worker()]
    lobby = Client(base)
    people, human_games = tables_against_ais(lobby, 2)
    watcher = lobby.sign_up("Watcher")
    ai_seats = [{"kind": "ai", "level": level} for level in ("greedy", "random", "greedy", "random")]
    ai_games = [watcher.json("POST", "/games", expect=201, json={"seats": ai_seats})["id"] for _ in range(2)]
    humans = [Human([p], g) for p, g in zip(people, human_games, strict=True)]
    stop, threads = play_all(humans, 240)
    text = stores.client()
    games = human_games + ai_games
    wait_until(lambda: all(stored_version(text, deployment.prefix, g) > 6 for g in games), 60, "play gets going")
    clients = [lobby, watcher, *people]
    idle_ids: list[str] = []

    def events_of(game_id: str) -> list[dict]:
        return stream_events(text, deployment.prefix, game_id)

    def check_every_game_moves_on(lost_at: float, idle: str, idle_turn: float, how: str) -> None:
        def moves_since(game_id: str) -> list[float]:
            """When each append since the loss was made (s after it): its events share their time."""
            return sorted({at(e) - lost_at for e in events_of(game_id) if at(e) >= lost_at})

        def over_before(game_id: str) -> bool:
            last = events_of(game_id)[-1]
            return last["type"] in ("game_finished", "game_aborted") and at(last) < lost_at

        for game_id in human_games + ai_games:
            if over_before(game_id):
                continue
            wait_until(lambda g=game_id: len(moves_since(g)) >= 2, 30, f"game {game_id} moves on after {how}")
        moved = {g: moves_since(g)[:2] for g in human_games + ai_games if not over_before(g)}
        print(f"\n{how}: each game's first two appends after, s: " + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in moved.values()))
        assert all(times[1] <= PROGRESS_BOUND for times in moved.values()), moved
        timed_out = wait_until(
            lambda: [e for e in events_of(idle) if e["type"] == "turn_timed_out"], 30, f"the idle turn times out ({how})"
        )
        late = at(timed_out[0]) - (idle_turn + IDLE_TURN)
        print(f"{how}: the idle seat's deadline fired {late:.1f} s after it fell due, {at(timed_out[0]) - lost_at:.1f} s after")
        assert -1.0 <= late <= 3.0
        assert at(timed_out[0]) - lost_at <= PROGRESS_BOUND

    # 1. The queue's data wiped while it runs.
    _, idle, idle_turn = idle_game(lobby, IDLE_TURN)
    idle_ids.append(idle)
    time.sleep(max(0.0, idle_turn + IDLE_TURN - 5 - time.time()))  # its deadline falls ~5 s after the loss
    queue.client().flushall()
    check_every_game_moves_on(time.time(), idle, idle_turn, "FLUSHALL")

    # 2. The queue's Redis killed and started again empty (its files gone: a new server at the same address).
    _, idle, idle_turn = idle_game(lobby, IDLE_TURN)
    idle_ids.append(idle)
    time.sleep(max(0.0, idle_turn + IDLE_TURN - 5 - time.time()))
    queue.kill()
    shutil.rmtree(queue.directory / "appendonlydir")
    queue.start()
    check_every_game_moves_on(time.time(), idle, idle_turn, "a restart empty")

    stop.set()
    for thread in threads:
        thread.join(30)
    assert not [h.failure for h in humans if h.failure is not None]
    assert all(w.poll() is None for w in workers), "a worker exited when the queue's Redis lost its data"
    assert_every_ack_kept(humans, games + idle_ids, events_of)
    assert not [a for c in clients for a in c.server_errors()], deployment.logs()
    print(f"{sum(len(h.acks) for h in humans)} actions acknowledged, every one in its stream; no 500")
