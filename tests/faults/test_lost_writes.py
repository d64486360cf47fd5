"""Redis loses its last second of writes (its AOF cut back, as a host crash under ``appendfsync everysec`` does).

Two API processes (gunicorn, one worker each) serve two-human games, each
player's requests going to either process in turn, so both cache every game.
Redis is killed, its AOF cut back to where it stood a second and a half
earlier, and started again: both processes now remember games newer than
Redis.  Play goes on.  No answer may be a 500; every game must reach its end
and fold from its stream; both processes must serve what the stream holds;
and every action acknowledged before the cut must still be there.
"""

from __future__ import annotations

import os
import time

from tests.faults.players import Human, play_all, play_out
from tests.harness.deployment import Client, stored_version, stream_events, wait_until

LOST_SECONDS = 1.5
PROGRESS_BOUND = 10.0


def test_play_goes_on_from_what_redis_kept_after_it_lost_its_last_writes(deployment, server):
    first, second = deployment.api(workers=1, name="api-a"), deployment.api(workers=1, name="api-b")
    workers = [deployment.worker(), deployment.worker()]
    humans: list[Human] = []
    for number in range(3):
        ana = Client(first).sign_up(f"Ana{number}")
        bo = Client(first).sign_up(f"Bo{number}")
        game = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "human"}]})
        bo.json("POST", f"/games/{game['id']}/join", json={"code": game["join_code"]})
        for player in (ana, bo):
            humans.append(Human([player, Client(second, player.token, player.player_id)], game["id"]))
    games = sorted({h.game_id for h in humans})
    text = server.client()
    stop, threads = play_all(humans, 240)
    wait_until(lambda: all(stored_version(text, deployment.prefix, g) > 20 for g in games), 30, "play gets going")

    aof = server.aof_tail_file()
    cut_at, cut_time = aof.stat().st_size, time.time()
    time.sleep(LOST_SECONDS)
    versions_before_loss = {g: stored_version(text, deployment.prefix, g) for g in games}
    server.kill()
    os.truncate(aof, cut_at)
    server.start()
    back = time.time()
    text = server.client()
    kept_versions = {g: stored_version(text, deployment.prefix, g) for g in games}
    lost = {g: versions_before_loss[g] - kept_versions[g] for g in games}
    print(f"\nRedis lost the last {LOST_SECONDS} s: {sum(lost.values())} events of {len(games)} games")
    assert sum(lost.values()) > 0, "the cut should have lost writes"

    def finished(game_id: str) -> bool:
        return stream_events(text, deployment.prefix, game_id)[-1]["type"] == "game_finished"

    def moved_on() -> bool:
        return all(stored_version(text, deployment.prefix, g) > kept_versions[g] or finished(g) for g in games)

    wait_until(moved_on, PROGRESS_BOUND, "every game moves on from what Redis kept")
    moved = time.time() - back

    play_out(humans, lambda: all(finished(g) for g in games), stop, threads)

    for game_id in games:
        events = stream_events(text, deployment.prefix, game_id)
        assert [e["n"] for e in events] == list(range(1, len(events) + 1))
        player = next(h for h in humans if h.game_id == game_id).clients
        views = [c.json("GET", f"/games/{game_id}") for c in player]
        assert views[0] == views[1], "the two API processes serve different games"
        assert views[0]["version"] == len(events)
    # Every view served once Redis was back shows a version as the stream holds it (never one Redis lost).
    served = 0
    for human in humans:
        stored = {e["n"]: e for e in stream_events(text, deployment.prefix, human.game_id)}
        for client in human.clients:
            for answer in client.answers:
                if answer.at > back and answer.status == 200 and answer.path == f"/games/{human.game_id}":
                    served += 1
                    assert answer.body["updated_at"] == stored[answer.body["version"]]["at"], "a lost version was served"
    assert served > 0
    assert "Redis no longer holds the history" in deployment.logs(), "the API processes should have noticed the loss"
    kept = [ack for h in humans for ack in h.acks if ack.at < cut_time]
    for human in humans:
        stored = {e["n"]: e for e in stream_events(text, deployment.prefix, human.game_id)}
        for ack in human.acks:
            if ack.at < cut_time:
                assert all(stored[n]["by"] == f"player:{ack.player_id}" for n in range(ack.before + 1, ack.version + 1))
    assert all(w.poll() is None for w in workers)
    errors = [a for h in humans for c in h.clients for a in c.server_errors()]
    assert not errors, (errors[:5], deployment.logs())
    conflicts = sum(c.statuses().count(409) for h in humans for c in h.clients)
    print(
        f"every game moved on within {moved:.1f} s of Redis being back; "
        f"{len(kept)} actions acknowledged before the cut, every one kept; {served} views served after the restart, "
        f"each of a version as Redis holds it; {conflicts} answers were 409; no 500"
    )
