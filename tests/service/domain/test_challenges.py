"""A challenge's rules on their own: commands decided at a given time, events folded — no Redis, no HTTP."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CorruptHistory
from service.common.errors import Refused
from service.domain.challenges import (
    DECLINE_REASONS,
    MAX_CHALLENGED,
    Accept,
    Cancel,
    Challenge,
    ChallengeAccepted,
    ChallengeCancelled,
    ChallengeDeclined,
    ChallengeStarted,
    Create,
    Decline,
    Invitee,
    Terms,
    apply,
    decide,
    envelope,
    event_from_dict,
    event_to_dict,
    fold,
    format_time,
    parse_time,
)
from service.domain.lobby import SeatSpec

MADE = "2026-05-01T12:00:00.000Z"
NOW = parse_time(MADE)
EXPIRES = "2026-05-02T12:00:00.000Z"
HUMAN, GREEDY = SeatSpec("human"), SeatSpec("ai", "greedy")
BO, CY, DI = Invitee("bo", "Bo"), Invitee("cy", "Cy"), Invitee("di", "Di")


def create(*challenged: Invitee, seats: tuple[SeatSpec, ...] | None = None, expires_at: str = EXPIRES) -> Create:
    seats = seats if seats is not None else (HUMAN,) * (len(challenged) + 1)
    return Create("ana", "Ana", challenged, Terms(seats, days_per_turn=3, rated=True), expires_at)


def folded(challenge: Challenge, events, at: str = MADE) -> Challenge:
    for event in events:
        apply(challenge, challenge.version + 1, event, at)
    return challenge


def challenge(*challenged: Invitee, **options) -> Challenge:
    new = Challenge("c_1")
    return folded(new, decide(new, create(*challenged, **options), NOW))


def refused(table: Challenge, command, now=NOW) -> Refused:
    with pytest.raises(Refused) as caught:
        decide(table, command, now)
    return caught.value


def test_a_challenge_is_open_until_every_challenged_player_accepts_and_the_last_acceptance_starts_the_game():
    made = challenge(BO, CY)
    assert (made.status(NOW), made.challenger, made.challenged, made.created_at) == ("open", "ana", (BO, CY), MADE)
    assert made.seating() == [(1, BO), (2, CY)]  # the human seats after the challenger's, in the order named
    first = decide(made, Accept("bo", "g_1"), NOW)
    assert first == [ChallengeAccepted("bo")]  # Cy has not answered: no game yet
    folded(made, first)
    assert (made.status(NOW), made.answer_of("bo"), made.answer_of("cy")) == ("open", "accepted", "pending")
    last = decide(made, Accept("cy", "g_1"), NOW)
    assert last == [ChallengeAccepted("cy"), ChallengeStarted("g_1")]  # the id the caller decided, in the event
    folded(made, last)
    assert (made.status(NOW), made.game_id, made.version) == ("started", "g_1", 4)


def test_accepting_again_decides_nothing_even_once_the_game_started():
    made = folded(challenge(BO), [ChallengeAccepted("bo"), ChallengeStarted("g_1")])
    assert decide(made, Accept("bo", "g_2"), NOW) == []


def test_expiry_is_a_fact_of_time_read_by_every_reader_and_it_refuses_an_acceptance():
    made = challenge(BO)
    expires = parse_time(EXPIRES)
    assert made.status(expires - timedelta(milliseconds=1)) == "open"
    assert made.status(expires) == "expired"  # nothing was written: the same fold, read later
    assert decide(made, Accept("bo", "g_1"), expires - timedelta(seconds=1)) == [ChallengeAccepted("bo"), ChallengeStarted("g_1")]
    late = refused(made, Accept("bo", "g_1"), expires)
    assert (late.code, late.facts) == ("challenge_expired", {"expires_at": EXPIRES})
    assert refused(made, Decline("bo"), expires).code == "challenge_expired"
    assert refused(made, Cancel("ana"), expires + timedelta(days=3)).code == "challenge_expired"


def test_a_decline_ends_it_for_everyone_with_its_reason():
    made = challenge(BO, CY)
    events = decide(made, Decline("cy", "too_slow"), NOW)
    assert events == [ChallengeDeclined("cy", "too_slow")]
    folded(made, events)
    assert (made.status(NOW), made.answer_of("cy"), made.decline_reason) == ("declined", "declined", "too_slow")
    over = refused(made, Accept("bo", "g_1"))
    assert (over.code, over.facts) == ("challenge_not_open", {"challenge_status": "declined"})
    assert refused(made, Decline("bo", "no_such_reason")).code == "invalid_request"


def test_a_player_who_accepted_may_still_decline_before_the_game_starts():
    made = folded(challenge(BO, CY), [ChallengeAccepted("bo")])
    assert decide(made, Decline("bo", "later"), NOW) == [ChallengeDeclined("bo", "later")]


def test_only_the_challenger_cancels_and_cancelling_again_decides_nothing():
    made = challenge(BO)
    assert refused(made, Cancel("bo")).code == "not_the_challenger"
    events = decide(made, Cancel("ana"), NOW)
    assert events == [ChallengeCancelled()]
    folded(made, events)
    assert made.status(NOW) == "cancelled"
    assert decide(made, Cancel("ana"), NOW) == []
    assert refused(made, Accept("bo", "g_1")).code == "challenge_not_open"


def test_only_a_challenged_player_answers():
    made = challenge(BO)
    assert refused(made, Accept("ana", "g_1")).code == "not_challenged"  # the challenger
    assert refused(made, Decline("zed")).code == "not_challenged"
    started = folded(challenge(BO), [ChallengeAccepted("bo"), ChallengeStarted("g_1")])
    assert refused(started, Cancel("ana")).code == "challenge_not_open"


@pytest.mark.parametrize(
    ("command", "code", "facts"),
    [
        (create(BO, CY, DI, Invitee("ed", "Ed")), "too_many_challenged", {"limit": MAX_CHALLENGED}),
        (create(Invitee("ana", "Ana")), "cannot_challenge_yourself", {}),
        (create(BO, Invitee("bo", "Bo")), "player_challenged_twice", {"players": ["Bo"]}),
        (create(BO, seats=(HUMAN, GREEDY)), "challenge_seats_mismatch", {"human_seats": 1, "needed": 2}),
        (create(BO, seats=(HUMAN, HUMAN, HUMAN)), "challenge_seats_mismatch", {"human_seats": 3, "needed": 2}),
        (create(), "invalid_request", None),
        (create(BO, expires_at=MADE), "invalid_request", None),
    ],
)
def test_a_challenge_that_cannot_be_is_refused_with_its_code(command, code, facts):
    refusal = refused(Challenge("c_1"), command)
    assert refusal.code == code
    if facts is not None:
        assert refusal.facts == facts


def test_ai_seats_fill_the_rest_of_the_table():
    made = challenge(BO, seats=(GREEDY, HUMAN, SeatSpec("ai", "expert"), HUMAN))
    assert made.terms.ai_seats == 2 and made.seating() == [(3, BO)]  # the challenger sits at seat 1


def test_a_stored_challenge_folds_back_to_what_was_decided():
    new = Challenge("c_1")
    events = [
        *decide(new, create(BO, CY, seats=(HUMAN, GREEDY, HUMAN, HUMAN)), NOW),
        ChallengeAccepted("cy"),
        ChallengeAccepted("bo"),
        ChallengeStarted("g_9"),
    ]
    stored = [(n, envelope(e, at=MADE, by="player:x")) for n, e in enumerate(events, 1)]
    again = fold("c_1", stored)
    expected = folded(Challenge("c_1"), events)
    expected.head = stored[-1][1]
    assert again == expected
    assert (again.game_id, again.accepted, again.terms.seats[1]) == ("g_9", ("cy", "bo"), GREEDY)
    assert [event_from_dict(event_to_dict(e)) for e in events] == events


@given(
    st.lists(st.sampled_from(["bo", "cy", "di"]), min_size=1, max_size=3, unique=True),
    st.lists(st.tuples(st.sampled_from(["accept", "decline", "cancel"]), st.sampled_from(["ana", "bo", "cy", "di"])), max_size=8),
    st.integers(0, 48),
)
def test_whatever_is_asked_in_whatever_order_only_decided_events_are_folded_and_the_game_starts_once(named, asks, hours):
    """Deciding then folding never makes corrupt history, and a challenge starts only when all accepted."""
    made = challenge(*(Invitee(p, p.title()) for p in named))
    now = NOW + timedelta(hours=hours)
    for n, (what, who) in enumerate(asks):
        command = {"accept": Accept(who, f"g_{n}"), "decline": Decline(who, "later"), "cancel": Cancel(who)}[what]
        try:
            events = decide(made, command, now)
        except Refused:
            continue
        folded(made, events)
    if made.game_id is not None:
        assert set(made.accepted) == set(named) and made.status(now) == "started"
    assert made.status(now) != "open" or hours < 24


def test_a_history_no_decision_could_have_made_is_corrupt():
    made = challenge(BO)
    with pytest.raises(CorruptHistory):
        apply(made.copy(), made.version + 1, ChallengeStarted("g_1"), MADE)  # nobody accepted
    with pytest.raises(CorruptHistory):
        apply(made.copy(), made.version + 1, ChallengeAccepted("zed"), MADE)
    with pytest.raises(CorruptHistory):
        apply(Challenge("c_2"), 1, ChallengeAccepted("bo"), MADE)  # before it was created
    with pytest.raises(CorruptHistory):
        event_from_dict({"type": "challenge_declined", "player_id": "bo", "reason": "bored"})


def test_every_decline_reason_is_said_in_words_and_times_read_back_as_written():
    assert all(text.endswith(".") for text in DECLINE_REASONS.values()) and "generic" in DECLINE_REASONS
    assert format_time(parse_time(MADE)) == MADE
