"""A tournament on the production shape (redis-server with AOF, gunicorn, ``red7 worker``s), broken for real.

- The worker that starts a round is killed (kill -9 of its tree) while it makes the round's games: the round's
  record names every game first, another worker's ticker looks at the tournament a few seconds on and makes those
  still missing, and every game of the round exists once, with the seats the record gives it.
- The stores' Redis is killed and restarted while a round is played: every event of the tournament acknowledged
  before is still there, and the tournament plays on to its end (AOF ``appendfsync always``).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from tests.faults.players import Human, assert_every_ack_kept, play_all, play_out
from tests.harness.deployment import Client, Processes, stream_events, wait_until

#: The tests' field signs up from one address in seconds.
SIGN_UPS = "100000 per minute"


def iso(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def tournament_events(text: redis.Redis, prefix: str, tournament_id: str) -> list[dict[str, Any]]:
    """The tournament's stored events, read straight from Redis."""
    entries = text.xrange(f"{prefix}tournament:{{{tournament_id}}}:events")
    return [json.loads(fields["e"]) for _, fields in entries]


def game_made(text: redis.Redis, prefix: str, game_id: str) -> bool:
    return bool(text.exists(f"{prefix}game:{{{game_id}}}:version"))


def field_of(lobby: Client, count: int) -> list[Client]:
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda n: lobby.sign_up(f"Entrant {n}"), range(count)))


def enter(tournament_id: str, players: list[Client]) -> None:
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda p: p.json("POST", f"/tournaments/{tournament_id}/entries"), players))


def organise(lobby: Client, close_in: float, **terms: Any) -> dict[str, Any]:
    organiser = lobby.sign_up("Organiser")
    body = {"name": "Faults", "entries_close": iso(datetime.now(UTC) + timedelta(seconds=close_in)), **terms}
    return organiser.json("POST", "/tournaments", expect=201, json=body)


def test_a_worker_killed_while_it_makes_a_rounds_games_leaves_each_made_once(deployment: Processes, server) -> None:
    base = deployment.api(RED7_RATE_LIMIT_SIGNUP=SIGN_UPS)
    doomed = deployment.worker("doomed")
    text = server.client()
    deployment.wait_listening(doomed)
    lobby = Client(base)
    count = 160  # 80 games at tables of 2: long enough to make that a kill lands half-way
    players = field_of(lobby, count)
    made = organise(lobby, 30, table_size=2, rounds=1, min_players=2, max_players=count, time_control="correspondence")
    enter(made["id"], players)

    def started() -> dict[str, Any] | None:
        return next((e for e in tournament_events(text, deployment.prefix, made["id"]) if e["type"] == "round_started"), None)

    begun = wait_until(started, 90, "the doomed worker's ticker starts round 1 at entries' close", every=0.002)
    tables = begun["tables"]
    ids = [table["game_id"] for table in tables]
    wait_until(lambda: any(game_made(text, deployment.prefix, g) for g in ids), 30, "its first game is made", every=0.002)
    deployment.kill_tree(doomed)
    killed = time.monotonic()
    before = sum(game_made(text, deployment.prefix, game_id) for game_id in ids)
    print(f"\nround 1 of {len(ids)} games: {before} made when its worker was killed")
    assert len(ids) == count // 2
    assert 0 < before < len(ids), "the worker was killed half-way through making the round's games"

    rescuer = deployment.worker("rescuer")
    wait_until(lambda: all(game_made(text, deployment.prefix, g) for g in ids), 120, "another worker makes the rest", every=0.2)
    print(f"every game of the round made {time.monotonic() - killed:.1f} s after the kill, nobody reading the tournament")
    stray = [
        key
        for key in text.scan_iter(match=f"{deployment.prefix}game:{{{made['id']}_r*}}:version")
        if key.split("{")[1].split("}")[0] not in ids
    ]
    assert stray == [], "no game beyond those the round names"
    for table in tables:
        events = stream_events(text, deployment.prefix, table["game_id"])
        created = [e for e in events if e["type"] == "game_created"]
        assert len(created) == 1, f"{table['game_id']} made once"
        assert [e["n"] for e in events] == list(range(1, len(events) + 1))
        seated = {created[0]["created_by"], *(e["player_id"] for e in events if e["type"] == "seat_taken")}
        assert seated == {p for p in table["seats"] if p}, f"{table['game_id']} seats its players"
    assert len([e for e in tournament_events(text, deployment.prefix, made["id"]) if e["type"] == "round_started"]) == 1
    assert rescuer.poll() is None
    assert not lobby.server_errors() and not [a for p in players for a in p.server_errors()]


def your_games(players: list[Client], tournament_id: str, number: int) -> list[Human]:
    """Each player at their game of round ``number``, played over HTTP as a frontend does (through Redis outages)."""
    humans = []
    for player in players:
        shown = wait_until(
            lambda p=player: p.call("GET", f"/tournaments/{tournament_id}/rounds/{number}") or None,
            30,
            f"round {number} answers",
        )
        game_id = shown.json().get("your_game")
        if game_id:
            humans.append(Human([player], game_id))
    return humans


def test_the_stores_redis_restarted_mid_round_loses_nothing_and_the_tournament_plays_on(deployment: Processes, server) -> None:
    base = deployment.api(RED7_RATE_LIMIT_SIGNUP=SIGN_UPS)
    workers = [deployment.worker(), deployment.worker()]
    lobby = Client(base)
    players = field_of(lobby, 6)
    made = organise(
        lobby, 6, table_size=3, rounds=2, min_players=3, max_players=6, time_control="live", turn_timeout=300, variant="basic"
    )
    enter(made["id"], players)
    text = server.client()
    tournament_id = made["id"]

    def happened(kind: str, number: int | None = None) -> bool:
        events = tournament_events(text, deployment.prefix, tournament_id)
        return any(e["type"] == kind and (number is None or e.get("number") == number) for e in events)

    wait_until(lambda: happened("round_started", 1), 60, "round 1 starts at entries' close", every=0.2)
    first = your_games(players, tournament_id, 1)
    assert len(first) == 6
    stop, threads = play_all(first, 400)
    wait_until(lambda: sum(len(h.acks) for h in first) >= 6, 60, "play gets going", every=0.2)
    before = tournament_events(text, deployment.prefix, tournament_id)
    server.kill()
    time.sleep(5)
    server.start()
    text = server.client()
    after = tournament_events(text, deployment.prefix, tournament_id)
    assert after[: len(before)] == before, "every event of the tournament acknowledged before the kill is there"
    games = sorted({h.game_id for h in first})
    play_out(first, lambda: happened("round_closed", 1), stop, threads)
    wait_until(lambda: happened("round_started", 2), 60, "round 2 starts when round 1 closes", every=0.2)
    second = your_games(players, tournament_id, 2)
    stop, threads = play_all(second, 400)
    play_out(second, lambda: happened("tournament_finished"), stop, threads)
    games += sorted({h.game_id for h in second})
    assert_every_ack_kept(first + second, games, lambda game_id: stream_events(text, deployment.prefix, game_id))
    finished = [e for e in tournament_events(text, deployment.prefix, tournament_id) if e["type"] == "tournament_finished"]
    assert [e["reason"] for e in finished] == ["completed"]
    standings = lobby.json("GET", f"/tournaments/{tournament_id}/standings")
    print(f"\nthe tournament finished after the stores' Redis restart; standings: {json.dumps(standings)[:200]}")
    assert all(w.poll() is None for w in workers), "a worker exited when Redis went away"
    assert not [a for c in [lobby, *players] for a in c.server_errors()], deployment.logs()
