"""Quick match's rules on their own: tickets decided on a pool in memory, events folded, tables found — no Redis."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CorruptHistory
from service.common.errors import NotFound, Refused
from service.domain.matchmaking import (
    CORRESPONDENCE_PATIENCE_MS,
    LIVE_PATIENCE_MS,
    Cancel,
    Expire,
    Found,
    GamesMade,
    Kind,
    Made,
    Open,
    Pool,
    RatingRange,
    Record,
    Ticket,
    TicketCancelled,
    TicketOpened,
    TicketsExpired,
    TicketsMatched,
    compatible,
    decide,
    event_from_json,
    event_to_json,
    find_matches,
    fold,
    table_problem,
)

LIVE = Kind().key  # advanced, no action rules, casual, 60 s a turn
DAYS = Kind(turn_seconds=None, days_per_turn=3).key
T0 = 1_800_000_000_000  # ms
HOUR = 3_600_000
_ids = itertools.count(1)


def ticket(
    player: str | None = None,
    *,
    counts=(2, 3, 4),
    rating=1500,
    start=100,
    widen=100,
    most=500,
    opened=T0,
    expires=None,
    ai_fill_after=None,
    ai_level="greedy",
) -> Ticket:
    number = next(_ids)
    player = player or f"p{number}"
    return Ticket(
        f"mt{number}",
        player,
        player.capitalize(),
        tuple(counts),
        rating,
        RatingRange(start, widen, most),
        opened,
        expires if expires is not None else opened + HOUR,
        ai_fill_after,
        ai_level,
    )


def pool_of(*tickets: Ticket, kind: str = LIVE) -> Pool:
    pool = Pool(kind)
    for t in tickets:
        apply(pool, decide(pool, Open(t), t.opened))
    return pool


def apply(pool: Pool, events) -> Pool:
    for event in events:
        fold(pool, event)
        pool.version += 1
    return pool


def seated(found: list[Found]) -> list[set[str]]:
    return [set(f.ticket_ids) for f in found]


# --- kinds ------------------------------------------------------------------------------------------


def test_a_kind_names_its_pool_and_is_read_back_from_the_name():
    kind = Kind("basic", True, True, None, 5)
    assert kind.key == "basic-actions-rated-5d" and Kind.parse(kind.key) == kind and not kind.live
    assert Kind().key == "advanced-plain-casual-60s" and Kind.parse(Kind().key).live


@pytest.mark.parametrize(
    "options",
    [
        {"turn_seconds": 61},
        {"turn_seconds": None, "days_per_turn": 4},
        {"turn_seconds": 60, "days_per_turn": 3},
        {"turn_seconds": None},
        {"variant": "huge"},
    ],
)
def test_a_kind_of_game_no_pool_holds_is_refused(options):
    with pytest.raises(Refused) as caught:
        Kind(**options)
    assert caught.value.code == "invalid_request"


@pytest.mark.parametrize(
    "key", ["", "advanced-plain-casual", "advanced-plain-casual-61s", "advanced-odd-casual-60s", "advanced-plain-casual-3x"]
)
def test_a_pool_name_no_kind_has_is_corrupt(key):
    with pytest.raises(CorruptHistory):
        Kind.parse(key)


# --- opening, cancelling, expiring ------------------------------------------------------------------


def test_one_open_ticket_per_player_per_kind_and_the_refusal_names_it():
    first = ticket("ana")
    pool = pool_of(first)
    with pytest.raises(Refused) as caught:
        decide(pool, Open(ticket("ana", opened=T0 + 10)), T0 + 10)
    assert caught.value.code == "match_ticket_already_open" and caught.value.facts == {"ticket_id": first.id}
    assert decide(Pool(DAYS), Open(ticket("ana")), T0)  # another kind: its own pool


def test_opening_the_same_ticket_again_makes_nothing():
    first = ticket("ana")
    assert decide(pool_of(first), Open(first), T0 + 5) == []


def test_a_players_expired_ticket_is_closed_when_they_open_another():
    old = ticket("ana", expires=T0 + 1000)
    new = ticket("ana", opened=T0 + 1000)
    events = decide(pool_of(old), Open(new), T0 + 1000)
    assert events == [TicketsExpired((old.id,), T0 + 1000), TicketOpened(new)]


@pytest.mark.parametrize(
    "change",
    [
        {"counts": ()},
        {"counts": (1, 2)},
        {"counts": (3, 2)},
        {"counts": (2, 2)},
        {"start": 600, "most": 500},
        {"widen": -1},
        {"ai_fill_after": -1},
        {"ai_level": "genius"},
        {"expires": T0},
    ],
)
def test_a_ticket_that_makes_no_sense_is_refused(change):
    options = {k: v for k, v in change.items() if k not in ("start", "widen", "most")}
    made = ticket(**options, **{k: change[k] for k in ("start", "widen", "most") if k in change})
    with pytest.raises(Refused) as caught:
        decide(Pool(LIVE), Open(made), T0)
    assert caught.value.code == "invalid_request"


def test_cancel_closes_the_players_own_open_ticket_only():
    mine = ticket("ana")
    pool = pool_of(mine)
    with pytest.raises(NotFound):
        decide(pool, Cancel(mine.id, "bo"), T0 + 1)
    assert decide(pool, Cancel(mine.id, "ana"), T0 + 1) == [TicketCancelled(mine.id, T0 + 1)]
    apply(pool, decide(pool, Cancel(mine.id, "ana"), T0 + 1))
    assert decide(pool, Cancel(mine.id, "ana"), T0 + 2) == []  # closed already: nothing more to do
    assert pool.tickets == {} and pool.by_player == {}


def test_a_ticket_is_expired_once_its_time_is_up_even_before_anyone_says_so():
    late = ticket("ana", expires=T0 + 5000)
    pool = pool_of(late, ticket("bo", expires=T0 + HOUR))
    assert decide(pool, Expire(), T0 + 4999) == []
    assert decide(pool, Expire(), T0 + 5000) == [TicketsExpired((late.id,), T0 + 5000)]
    assert decide(pool, Cancel(late.id, "ana"), T0 + 6000) == [TicketsExpired((late.id,), T0 + 6000)]
    assert all(late.id not in f.ticket_ids for f in find_matches(pool, T0 + 6000))


def test_recording_a_match_closes_its_tickets_and_remembers_the_match():
    a, b = ticket("ana", counts=(2,)), ticket("bo", counts=(2,))
    pool = pool_of(a, b)
    events = decide(pool, Record((("g_1", Found((a.id, b.id), 2)),)), T0 + 10)
    assert isinstance(events[0], TicketsMatched) and [s.player_id for s in events[0].players] == ["ana", "bo"]
    apply(pool, events)
    assert pool.tickets == {} and list(pool.pending.values()) == events
    with pytest.raises(ValueError):
        decide(pool, Record((("g_2", Found((a.id, b.id), 2)),)), T0 + 20)  # closed: never seated twice


def test_recording_refuses_a_table_that_breaks_a_preference_or_seats_a_ticket_twice():
    a, b, c = ticket("ana", counts=(2,)), ticket("bo", counts=(3,)), ticket("cy", counts=(2,))
    pool = pool_of(a, b, c)
    with pytest.raises(ValueError):
        decide(pool, Record((("g_1", Found((a.id, b.id), 2)),)), T0)  # bo wants three
    with pytest.raises(ValueError):
        decide(pool, Record((("g_1", Found((a.id, c.id), 2)), ("g_2", Found((c.id,), 2, "greedy")))), T0)


def test_a_match_stays_pending_until_its_game_is_noted_made():
    pool = Pool(LIVE)
    for n in range(3):
        a, b = ticket(counts=(2,)), ticket(counts=(2,))
        apply(pool, [TicketOpened(a), TicketOpened(b)])
        apply(pool, decide(pool, Record(((f"g_{n}", Found((a.id, b.id), 2)),)), T0))
    assert list(pool.pending) == ["g_0", "g_1", "g_2"]
    events = decide(pool, Made(("g_1", "g_9", "g_1")), T0)
    assert events == [GamesMade(("g_1",), T0)]
    apply(pool, events)
    assert list(pool.pending) == ["g_0", "g_2"] and decide(pool, Made(("g_1",)), T0) == []
    with pytest.raises(CorruptHistory):
        fold(pool, GamesMade(("g_1",), T0))  # not pending any more


def test_events_are_stored_and_read_back_as_they_were_and_a_pool_snapshots_whole():
    a, b = ticket("ana", ai_fill_after=5000), ticket("bo")
    pool = pool_of(a, b, ticket("cy"))
    matched = decide(pool, Record((("g_1", Found((a.id, b.id), 2)),)), T0)
    for event in [
        TicketOpened(a),
        TicketCancelled(a.id, T0),
        TicketsExpired((a.id, b.id), T0),
        *matched,
        GamesMade(("g_1",), T0),
    ]:
        assert event_from_json(event_to_json(event)) == event
    apply(pool, matched)
    assert Pool.from_dict(pool.to_dict()) == pool


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"ticket_opened","ticket":{"id":"x"}}',
        '{"type":"nope"}',
        "[",
        '{"type":"tickets_matched","game_id":"g","players":[],"seats":2,"ai_level":null,"at":1}',
        '{"type":"tickets_matched","game_id":"g","players":[["t","p","P"]],"seats":2,"ai_level":null,"at":1}',
    ],
)
def test_a_stored_event_no_pool_writes_is_corrupt(text):
    with pytest.raises(CorruptHistory):
        event_from_json(text)


def test_folding_an_event_that_cannot_happen_is_corrupt():
    a = ticket("ana")
    pool = pool_of(a)
    with pytest.raises(CorruptHistory):
        fold(pool, TicketOpened(ticket("ana")))  # a second open ticket of hers
    with pytest.raises(CorruptHistory):
        fold(pool, TicketCancelled("mt_nope", T0))


# --- matching ---------------------------------------------------------------------------------------


def test_two_live_players_who_want_two_are_seated_at_once():
    a, b = ticket(counts=(2,)), ticket(counts=(2,), opened=T0 + 10)
    assert find_matches(pool_of(a, b), T0 + 10) == [Found((a.id, b.id), 2)]


def test_a_short_live_table_waits_half_a_second_for_a_fuller_one_then_sits_down():
    a, b = ticket(), ticket(opened=T0 + 100)
    pool = pool_of(a, b)
    assert find_matches(pool, T0 + LIVE_PATIENCE_MS - 1) == []
    assert find_matches(pool, T0 + LIVE_PATIENCE_MS) == [Found((a.id, b.id), 2)]


def test_the_fullest_table_is_preferred():
    tickets = [ticket(opened=T0 + n) for n in range(4)]
    assert find_matches(pool_of(*tickets), T0 + 4) == [Found(tuple(t.id for t in tickets), 4)]
    three = [ticket(counts=(2, 3), opened=T0 + n) for n in range(3)]
    assert find_matches(pool_of(*three), T0 + 3) == [Found(tuple(t.id for t in three), 3)]


def test_a_correspondence_table_waits_longer_for_a_fuller_one():
    a, b = ticket(), ticket(opened=T0 + 1000)
    pool = pool_of(a, b, kind=DAYS)
    assert find_matches(pool, T0 + 60_000) == []
    assert find_matches(pool, T0 + CORRESPONDENCE_PATIENCE_MS) == [Found((a.id, b.id), 2)]


def test_a_ticket_waiting_an_hour_is_seated_as_soon_as_a_compatible_one_comes():
    a = ticket(opened=T0, expires=T0 + 10 * HOUR)
    b = ticket(opened=T0 + HOUR, expires=T0 + 10 * HOUR)
    assert find_matches(pool_of(a, b, kind=DAYS), T0 + HOUR) == [Found((a.id, b.id), 2)]


def test_the_closest_ratings_sit_together():
    a = ticket(counts=(2,), rating=1500, most=800, start=800)
    far, near = ticket(counts=(2,), rating=1900, start=800, most=800), ticket(counts=(2,), rating=1550, start=800, most=800)
    assert find_matches(pool_of(a, far, near), T0) == [Found((a.id, near.id), 2)]


def test_ratings_must_be_within_each_range_as_it_has_widened():
    a = ticket(counts=(2,), rating=1500, start=100, widen=100, most=500)
    b = ticket(counts=(2,), rating=1750, start=0, widen=200, most=500)
    pool = pool_of(a, b)
    assert find_matches(pool, T0) == []  # 250 apart: a's range is 100, b's 0
    assert find_matches(pool, T0 + 60_000) == []  # a's 200, b's 200
    assert find_matches(pool, T0 + 90_000) == [Found((a.id, b.id), 2)]  # a's 250, b's 300


def test_ai_seats_fill_a_table_once_its_ticket_has_waited_ai_fill_after():
    a = ticket(counts=(3, 4), ai_fill_after=10_000, ai_level="expert")
    pool = pool_of(a)
    assert find_matches(pool, T0 + 9_999) == []
    assert find_matches(pool, T0 + 10_000) == [Found((a.id,), 3, "expert")]


def test_ai_fill_seats_only_humans_who_asked_for_ais_by_now_of_the_same_level():
    a = ticket(counts=(2, 3, 4), ai_fill_after=1000)
    patient = ticket(counts=(2, 3, 4), ai_fill_after=60_000, rating=1510)
    other_level = ticket(counts=(2, 3, 4), ai_fill_after=0, ai_level="random", rating=1490)
    pool = pool_of(a, patient, other_level)
    # Three humans fit together: the human table comes first (no AI seat), at its patience.
    assert find_matches(pool, T0 + LIVE_PATIENCE_MS) == [Found((a.id, patient.id, other_level.id), 3)]
    lonely = ticket(counts=(4,), ai_fill_after=1000)
    fussy = ticket(counts=(4,), ai_fill_after=None)
    fine = ticket(counts=(3, 4), ai_fill_after=500)
    assert find_matches(pool_of(lonely, fussy, fine), T0 + 1000) == [Found((lonely.id, fine.id), 4, "greedy")]


def test_no_match_for_a_ticket_whose_counts_nobody_shares():
    assert find_matches(pool_of(ticket(counts=(2,)), ticket(counts=(3,)), ticket(counts=(4,))), T0 + HOUR - 1) == []


# --- properties -------------------------------------------------------------------------------------

tickets_strategy = st.lists(
    st.builds(
        lambda counts, rating, start, widen, extra, opened, fill, level: ticket(
            counts=tuple(sorted(counts)),
            rating=rating,
            start=start,
            widen=widen,
            most=start + extra,
            opened=T0 + opened,
            expires=T0 + opened + HOUR,
            ai_fill_after=fill,
            ai_level=level,
        ),
        st.sets(st.sampled_from((2, 3, 4)), min_size=1),
        st.integers(1200, 1800),
        st.integers(0, 300),
        st.integers(0, 400),
        st.integers(0, 600),
        st.integers(0, 20 * 60_000),
        st.none() | st.integers(0, 5 * 60_000),
        st.sampled_from(("greedy", "random")),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(tickets_strategy, st.integers(0, 30 * 60_000), st.sampled_from((LIVE, DAYS)))
def test_every_table_found_is_a_good_one_and_no_ticket_sits_twice(tickets, later, kind):
    pool = Pool(kind)
    for t in tickets:
        pool.tickets[t.id] = t
        pool.by_player[t.player_id] = t.id
    now = T0 + later
    found = find_matches(pool, now)
    ids = [ticket_id for f in found for ticket_id in f.ticket_ids]
    assert len(ids) == len(set(ids))
    for table in found:
        members = [pool.tickets[ticket_id] for ticket_id in table.ticket_ids]
        assert table.seats <= 4 and len(members) <= table.seats
        assert table_problem(members, table.seats, table.ai_level, now) is None
    events = decide(pool, Record(tuple((f"g_{n}", f) for n, f in enumerate(found))), now)  # and it records them
    apply(pool, events)
    assert not set(ids) & set(pool.tickets)


@settings(max_examples=300, deadline=None)
@given(tickets_strategy, st.integers(0, 30 * 60_000), st.sampled_from((LIVE, DAYS)))
def test_nobody_who_could_sit_down_is_left_waiting(tickets, later, kind):
    """Two tickets that fit a table of two and have waited past the pool's patience: at least one sits down; a ticket
    whose ai_fill_after has passed always does."""
    pool = Pool(kind)
    for t in tickets:
        pool.tickets[t.id] = t
        pool.by_player[t.player_id] = t.id
    now = T0 + later
    seated_ids = {ticket_id for f in find_matches(pool, now) for ticket_id in f.ticket_ids}
    patience = LIVE_PATIENCE_MS if kind == LIVE else CORRESPONDENCE_PATIENCE_MS
    live = [t for t in tickets if not t.expired(now) and t.opened <= now]
    for a, b in itertools.combinations(live, 2):
        if 2 in a.counts and 2 in b.counts and compatible(a, b, now) and max(a.waited(now), b.waited(now)) >= patience:
            assert a.id in seated_ids or b.id in seated_ids
    for t in live:
        if t.ai_due(now):
            assert t.id in seated_ids


def test_a_ticket_without_a_rating_has_a_new_players_rating():
    from service.domain.matchmaking import DEFAULT_RATING
    from service.domain.ratings import NEW

    assert NEW.shown == DEFAULT_RATING
