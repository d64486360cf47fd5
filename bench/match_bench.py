"""Quick match's matchmaker: games formed per second from 10,000 waiting tickets, and how long compatible players wait.

    python -m bench.match_bench [--tickets 10000] [--rate 100]

Uses the Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/14``, under a key prefix of its own, deleted at
the end), or fakeredis if none answers.  Tickets of mixed preferences (8 kinds of game: both variants, with and
without action rules, live at 60 s a turn or 3 days a turn; player counts any of 2-4; ratings around 1500 and ranges
that widen; a quarter ask for AI seats after 30 s to 2 min) are put in their pools as their players' tickets would
be, then the matchmaker works as a ``red7 worker`` runs it (``MatchService.match_pass``: expire, find the tables,
record them with the version read, make each game with its seats):

1. **backlog**: ``--tickets`` tickets already waiting (opened over the last half hour), then passes until no more
   table can sit down: games formed per second (the wall time of the passes), and the pure ``find_matches`` alone;
   then the same again with ``--blocks`` blocks (1,000) in each pool between its players at random, which every
   pass reads and the pairing honours (no blocked pair ever seated);
2. **arrivals**: as many tickets arriving at ``--rate`` a second (a simulated clock), a pass every 250 ms (or back to
   back when one takes longer: its wall time moves the clock too): how long compatible players wait, from the
   arrival of a table's second ticket to its game being made (its *pair wait*), in live pools and in
   correspondence ones (which wait up to 10 minutes for a fuller table by design), and the games formed per second.
"""

from __future__ import annotations

import argparse
import os
import random
import time
import uuid
from collections.abc import Callable

import fakeredis
import redis

from service.application.blocks import apart_among
from service.application.games import GameService
from service.application.matchmaking import MatchService
from service.domain.blocks import MAX_BLOCKS
from service.domain.matchmaking import (
    Kind,
    RatingRange,
    Ticket,
    TicketOpened,
    TicketsMatched,
    event_from_json,
    event_to_json,
    find_matches,
)
from service.storage.blocks import BlockStore
from service.storage.events import EventStore
from service.storage.matchmaking import PoolStreams, TicketIndex
from service.storage.players import PlayerStore

KINDS = [
    Kind(variant, rules, False, seconds, days)
    for variant in ("basic", "advanced")
    for rules in (False, True)
    for seconds, days in ((60, None), (None, 3))
]
PASS_EVERY = 250  # ms
SEED_BATCH = 500
#: After the last arrival the passes go on this long (simulated ms): every AI seat asked for has filled its table.
DRAIN = 150_000


def clients() -> tuple[redis.Redis, str]:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14")
    try:
        real = redis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=1)
        real.ping()
        return real, url
    except redis.RedisError:
        return fakeredis.FakeRedis(decode_responses=True), "fakeredis (no Redis answered)"


class Clock:
    def __init__(self, at: int) -> None:
        self.at = at

    def __call__(self) -> int:
        return self.at


def mixed_ticket(rng: random.Random, number: int, opened: int) -> tuple[Kind, Ticket]:
    counts = rng.choice(((2,), (3,), (4,), (2, 3), (3, 4), (2, 3, 4), (2, 3, 4)))
    fill = rng.randint(30, 120) * 1000 if rng.random() < 0.25 else None
    rating = round(rng.gauss(1500, 150))
    ticket = Ticket(
        f"mt_{number}",
        f"p_{number}",
        f"P{number}",
        counts,
        rating,
        RatingRange(100, 100, 500),
        opened,
        opened + 3600_000,
        fill,
        "greedy",
    )
    return rng.choice(KINDS), ticket


def seed(service: MatchService, tickets: list[tuple[Kind, Ticket]]) -> None:
    """Append the tickets to their pools as their opens would (a few hundred an append: the bench times the matchmaker)."""
    by_kind: dict[str, list[Ticket]] = {}
    for kind, ticket in tickets:
        by_kind.setdefault(kind.key, []).append(ticket)
    for key, opened in by_kind.items():
        service.ticket_index.add_pool(key)
        for start in range(0, len(opened), SEED_BATCH):
            pool = service.pools.load(key)
            payloads = [event_to_json(TicketOpened(t)) for t in opened[start : start + SEED_BATCH]]
            service.pool_streams.append(key, pool.version, payloads, expected_head=pool.head)


def build(client: redis.Redis, prefix: str, clock: Callable[[], int]) -> MatchService:
    games = GameService(EventStore(client, prefix), PlayerStore(client, prefix))  # no job system: nothing queued
    return MatchService(PoolStreams(client, prefix), TicketIndex(client, prefix), games, clock=clock)


def in_range_at(ticket: Ticket, gap: int) -> float:
    """When ``ticket``'s range has widened to ``gap`` (ms; infinity: never)."""
    if ticket.range.start >= gap:
        return ticket.opened
    if ticket.range.most < gap or ticket.range.widen == 0:
        return float("inf")
    return ticket.opened + -(-(gap - ticket.range.start) * 60_000 // ticket.range.widen)


def possible_at(tickets: list[Ticket]) -> float:
    """When these tickets could first sit together: all of them there, each within every other's range."""
    at = max(t.opened for t in tickets)
    for a in tickets:
        for b in tickets:
            if a is not b:
                at = max(at, in_range_at(a, abs(a.rating - b.rating)))
    return at


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def block_at_random(service: MatchService, tickets: list[tuple[Kind, Ticket]], per_pool: int, rng: random.Random) -> None:
    """``per_pool`` blocks in each pool, each between two of its players at random (a random one blocks the other)."""
    store = BlockStore(service.block_store.redis, service.block_store.prefix)
    by_kind: dict[str, list[str]] = {}
    for kind, ticket in tickets:
        by_kind.setdefault(kind.key, []).append(ticket.player_id)
    for players in by_kind.values():
        for n in range(per_pool):
            blocker, blocked = rng.sample(players, 2)
            store.add("blocks", blocker, blocked, n, MAX_BLOCKS)


def backlog(client: redis.Redis, count: int, rng: random.Random, blocks: int = 0) -> None:
    now = 1_800_000_000_000
    service = build(client, f"red7-bench-match-{uuid.uuid4().hex[:8]}:", Clock(now))
    tickets = [mixed_ticket(rng, n, now - rng.randint(0, 30 * 60_000)) for n in range(count)]
    seed(service, tickets)
    if blocks:
        block_at_random(service, tickets, blocks, rng)
    pools = [service.pools.load(kind.key) for kind in KINDS]
    started = time.perf_counter()
    applied = [apart_among(service.block_store, pool.by_player) for pool in pools]
    tables = sum(len(find_matches(pool, now, apart=apart)) for pool, apart in zip(pools, applied, strict=True))
    pure = time.perf_counter() - started
    started, games, passes = time.perf_counter(), 0, 0
    while made := service.match_pass():
        games += made
        passes += 1
    wall = time.perf_counter() - started
    waiting = sum(len(service.pools.load(kind.key).tickets) for kind in KINDS)
    with_blocks = f", {blocks:,} blocks in each pool (between its players, at random)" if blocks else ""
    print(f"backlog: {count:,} waiting tickets of mixed preferences in {len(KINDS)} pools{with_blocks}")
    print(f"  find_matches alone (pure, every pool once, its blocks read): {pure * 1000:.0f} ms for {tables:,} tables")
    print(
        f"  matchmaker: {games:,} games formed in {wall:.2f} s over {passes} pass(es): {games / wall:,.0f} games/s "
        f"(recorded in the pools, then each made with its seats); {count - waiting:,} players seated, "
        f"{waiting:,} still waiting (nobody for them yet)"
    )


def arrivals(client: redis.Redis, count: int, rate: float, rng: random.Random) -> None:
    clock = Clock(1_800_000_000_000)
    service = build(client, f"red7-bench-match-{uuid.uuid4().hex[:8]}:", clock)
    due, at = [], float(clock.at)
    for n in range(count):
        at += rng.expovariate(rate) * 1000
        due.append(mixed_ticket(rng, n, round(at)))
    opened = {ticket.id: ticket for _, ticket in due}
    waits: dict[str, list[float]] = {"live": [], "correspondence": [], "ai": []}
    games, wall, passes, next_due = 0, 0.0, 0, 0
    seen: dict[str, int] = {}  # the last event of each pool read
    while next_due < len(due) or clock.at <= due[-1][1].opened + DRAIN:
        arrived = []
        while next_due < len(due) and due[next_due][1].opened <= clock.at:
            arrived.append(due[next_due])
            next_due += 1
        if arrived:
            seed(service, arrived)
        started = time.perf_counter()
        made = service.match_pass()
        took = time.perf_counter() - started
        wall, games, passes = wall + took, games + made, passes + 1
        finished_at = clock.at + round(took * 1000)
        for kind in KINDS:
            for stored in service.pool_streams.read_all(kind.key, after=seen.get(kind.key, 0)):
                seen[kind.key] = stored.number
                match = event_from_json(stored.payload)
                if not isinstance(match, TicketsMatched):
                    continue
                members = [opened[t] for t in match.ticket_ids]
                if match.ai_level is not None:  # from when AIs were asked for (the last of its humans' ai_fill_after)
                    since = max(t.opened + (t.ai_fill_after or 0) for t in members)
                    waits["ai"].append((finished_at - since) / 1000)
                elif len(members) >= 2:
                    waits["live" if kind.live else "correspondence"].append((finished_at - possible_at(members)) / 1000)
        clock.at = max(clock.at + PASS_EVERY, finished_at)
    print(
        f"arrivals: {count:,} tickets at {rate:g} a second (simulated), a pass every {PASS_EVERY} ms; each table's wait "
        "from the moment it was possible (its players there, each in every other's range) to its game"
    )
    labels = {
        "live": "compatible players, live pools (60 s a turn)",
        "correspondence": "compatible players, correspondence pools (a fuller table waited for, 10 min at most)",
        "ai": "AI seats, from the ai_fill_after asked for",
    }
    for name, label in labels.items():
        found = waits[name]
        print(
            f"  {label}: p50 {percentile(found, 0.5):.2f} s, p99 {percentile(found, 0.99):.2f} s, "
            f"max {max(found, default=float('nan')):.2f} s over {len(found):,} tables"
        )
    print(f"  {games:,} games formed in {passes:,} passes (a pass: {wall / passes * 1000:.1f} ms on average)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=100.0, help="arrivals a second, simulated")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--blocks", type=int, default=1000, help="blocks per pool in the second backlog (0: none)")
    args = parser.parse_args()
    client, where = clients()
    print(f"quick match on {where}")
    rng = random.Random(args.seed)
    try:
        backlog(client, args.tickets, rng)
        if args.blocks:
            backlog(client, args.tickets, rng, args.blocks)
        arrivals(client, args.tickets, args.rate, rng)
    finally:
        for key in client.scan_iter(match="red7-bench-match-*", count=1000):
            client.delete(key)
    print("Redis keys of this run deleted")


if __name__ == "__main__":
    main()
