"""Quick match with blocks: the pairing never seats two players a block keeps apart (either way), and leaves nobody
waiting whom the policy would seat with a partner no block keeps from them — properties over random pools and blocks."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.blocks import Apart
from service.domain.matchmaking import (
    CORRESPONDENCE_PATIENCE_MS,
    LIVE_PATIENCE_MS,
    Found,
    Pool,
    Record,
    TicketsMatched,
    compatible,
    decide,
    find_matches,
    table_problem,
)
from tests.service.domain.test_matchmaking import DAYS, LIVE, T0, ticket, tickets_strategy

blocks_strategy = st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=120)


def pool_with(tickets, kind: str) -> Pool:
    pool = Pool(kind)
    for t in tickets:
        pool.tickets[t.id] = t
        pool.by_player[t.player_id] = t.id
    return pool


def apart_of(tickets, pairs) -> Apart:
    """Blocks between the tickets' players: each pair (blocker, blocked) by index, those past the list ignored."""
    blocks: dict[str, set[str]] = {}
    for a, b in pairs:
        if a < len(tickets) and b < len(tickets):
            blocks.setdefault(tickets[a].player_id, set()).add(tickets[b].player_id)
    return Apart(blocks)


@settings(max_examples=400, deadline=None)
@given(tickets_strategy, blocks_strategy, st.integers(0, 30 * 60_000), st.sampled_from((LIVE, DAYS)))
def test_no_blocked_pair_is_ever_seated_together(tickets, pairs, later, kind):
    pool, apart, now = pool_with(tickets, kind), apart_of(tickets, pairs), T0 + later
    found = find_matches(pool, now, apart=apart)
    for table in found:
        players = [pool.tickets[ticket_id].player_id for ticket_id in table.ticket_ids]
        assert not any(apart(a, b) for a, b in itertools.combinations(players, 2))
        members = [pool.tickets[ticket_id] for ticket_id in table.ticket_ids]
        assert table_problem(members, table.seats, table.ai_level, now, apart) is None
    events = decide(pool, Record(tuple((f"g_{n}", f) for n, f in enumerate(found)), apart), now)
    assert len([e for e in events if isinstance(e, TicketsMatched)]) == len(found)


@settings(max_examples=400, deadline=None)
@given(tickets_strategy, blocks_strategy, st.integers(0, 30 * 60_000), st.sampled_from((LIVE, DAYS)))
def test_nobody_with_an_unblocked_partner_is_left_waiting(tickets, pairs, later, kind):
    """As without blocks (tests/service/domain/test_matchmaking.py): two tickets that fit a table of two, no block
    between them, waited past the pool's patience: at least one sits down; a ticket whose AIs are due always does."""
    pool, apart, now = pool_with(tickets, kind), apart_of(tickets, pairs), T0 + later
    seated = {ticket_id for f in find_matches(pool, now, apart=apart) for ticket_id in f.ticket_ids}
    patience = LIVE_PATIENCE_MS if kind == LIVE else CORRESPONDENCE_PATIENCE_MS
    live = [t for t in tickets if not t.expired(now) and t.opened <= now]
    for a, b in itertools.combinations(live, 2):
        if (
            2 in a.counts
            and 2 in b.counts
            and compatible(a, b, now)
            and not apart(a.player_id, b.player_id)
            and max(a.waited(now), b.waited(now)) >= patience
        ):
            assert a.id in seated or b.id in seated
    for t in live:
        if t.ai_due(now):
            assert t.id in seated


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 60), blocks_strategy)
def test_a_pool_of_pairs_is_matched_as_far_as_the_blocks_allow(size, pairs):
    """Tickets that all fit each other at two: what is left waiting is kept apart pair by pair (a maximal matching)."""
    tickets = [ticket(counts=(2,)) for _ in range(size)]
    pool, apart = pool_with(tickets, LIVE), apart_of(tickets, pairs)
    seated = {ticket_id for f in find_matches(pool, T0, apart=apart) for ticket_id in f.ticket_ids}
    left = [t for t in tickets if t.id not in seated]
    assert all(apart(a.player_id, b.player_id) for a, b in itertools.combinations(left, 2))


def test_the_pools_decision_refuses_a_table_of_a_blocked_pair():
    a, b = ticket(counts=(2,)), ticket(counts=(2,))
    pool = pool_with([a, b], LIVE)
    apart = Apart({b.player_id: {a.player_id}})
    assert find_matches(pool, T0) and not find_matches(pool, T0, apart=apart)
    with pytest.raises(ValueError, match="block"):
        decide(pool, Record((("g_1", Found((a.id, b.id), 2)),), apart), T0)


def test_apart_is_symmetric_and_ignores_a_self_block():
    apart = Apart({"p1": {"p2", "p1"}})
    assert apart("p1", "p2") and apart("p2", "p1")
    assert not apart("p1", "p1") and not apart("p1", "p3")
    assert apart.any_among(["p3", "p2", "p1"]) and not apart.any_among(["p1", "p3"])
    assert not Apart() and apart
