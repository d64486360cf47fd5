"""Blocks hold in quick match under concurrency, on the production shape: no blocked pair is ever seated together.

Two gunicorn processes, two ``red7 worker``s (one holds the matchmaker's role) and a redis-server of the test's own.
200 players, half on each API process; each blocks five others at random (1,000 blocks, some pairs both ways); then
all 200 open a ticket for the same live game at once, with mixed table sizes and AI seats after two seconds so that
everyone can be seated whoever blocks them.  Every game made is then checked from Redis: each match's game exists
with exactly its tickets' players, everyone sits in exactly one game, and no two players at any table are kept apart
by a block, in either direction.
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from service.domain.game import load
from service.domain.matchmaking import Kind
from tests.faults.test_quick_match import COUNTS, matches_in
from tests.harness.deployment import Client, Processes, RedisServer, wait_until

PLAYERS = 200
BLOCKS_EACH = 5
AI_FILL_AFTER = 2


def test_two_hundred_players_with_random_blocks_never_sit_with_whom_they_blocked(deployment: Processes, server: RedisServer):
    began = time.monotonic()
    unlimited = {"RED7_RATE_LIMIT_SIGNUP": "", "RED7_RATE_LIMIT_TOKEN": ""}
    bases = [deployment.api(workers=1, name="api-a", **unlimited), deployment.api(workers=1, name="api-b", **unlimited)]
    workers = [deployment.worker(), deployment.worker()]
    lobby = [Client(base) for base in bases]
    with ThreadPoolExecutor(16) as pool:
        players = list(pool.map(lambda n: lobby[n % 2].sign_up(f"P{n}"), range(PLAYERS)))
    ids = [p.player_id or "" for p in players]
    rng = random.Random(36)
    blocks = {(n, other) for n in range(PLAYERS) for other in rng.sample([m for m in range(PLAYERS) if m != n], BLOCKS_EACH)}

    def block(pair: tuple[int, int]) -> None:
        blocker, blocked = pair
        players[blocker].json("PUT", f"/players/me/blocks/{ids[blocked]}")

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(block, sorted(blocks)))
    apart = {frozenset((ids[a], ids[b])) for a, b in blocks}

    kind = Kind(turn_seconds=60)

    def open_ticket(n: int) -> tuple[str, str]:
        body = {"player_counts": COUNTS[n % len(COUNTS)], "turn_seconds": 60, "ai_fill_after": AI_FILL_AFTER}
        return ids[n], players[n].json("POST", "/match-tickets", expect=201, json=body)["id"]

    with ThreadPoolExecutor(32) as pool:
        tickets = dict(pool.map(open_ticket, range(PLAYERS)))
    text = server.client()
    prefix = deployment.prefix

    def everyone_matched() -> bool:
        matched = {t for match in matches_in(text, prefix, kind) for t in match.ticket_ids}
        return matched == set(tickets.values())

    wait_until(everyone_matched, 120, "every ticket is matched", every=0.2)
    matches = matches_in(text, prefix, kind)
    wait_until(lambda: all(text.exists(f"{prefix}game:{{{m.game_id}}}:version") for m in matches), 60, "every game made")
    seats: Counter[str] = Counter()
    with_people = 0
    for match in matches:
        entries = text.xrange(f"{prefix}game:{{{match.game_id}}}:events")
        game = load(match.game_id, [(int(n.split("-")[0]), fields["e"]) for n, fields in entries])
        humans = [seat.player_id or "" for seat in game.seats if seat.kind == "human"]
        assert humans == [seat.player_id for seat in match.players], "the game seats other players than its match"
        kept_apart = [pair for pair in itertools.combinations(humans, 2) if frozenset(pair) in apart]
        assert not kept_apart, f"game {match.game_id} seats a blocked pair: {kept_apart}"
        seats.update(humans)
        with_people += len(humans) > 1
    assert seats == Counter(dict.fromkeys(ids, 1)), "a player is not in exactly one game"
    assert with_people > len(matches) // 2, "blocks kept most players from any table of people"
    assert all(w.poll() is None for w in workers), "a worker exited"
    assert not [a for c in [*lobby, *players] for a in c.server_errors()], deployment.logs()
    print(
        f"\n{PLAYERS} players, {len(blocks)} blocks: {len(matches)} games ({with_people} with two people or more), "
        f"no blocked pair at any table, in {time.monotonic() - began:.1f} s"
    )
