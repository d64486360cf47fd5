"""A tournament's rules on their own (service/domain/tournaments/): commands decided at a given time, events folded,
whole tournaments played on a simulated clock with random results — no Redis, no HTTP."""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter, defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CorruptHistory
from service.common.errors import NotFound, Refused
from service.domain.tournaments import (
    Create,
    Enter,
    FinishGame,
    GameFinished,
    Outcome,
    PlayerEntered,
    RecordTimeout,
    RoundClosed,
    RoundStarted,
    Settings,
    SettleRound,
    StartRound,
    Tournament,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    Withdraw,
    apply,
    decide,
    duplicate_scores,
    envelope,
    event_from_dict,
    event_to_dict,
    fold,
    from_envelope,
    group_standings,
    points,
    repeat_meetings,
    splitmix64,
    standings,
    status,
)
from service.domain.tournaments.settings import format_time, parse_time, rounds_per_meeting

OPEN = "2026-06-01T00:00:00.000Z"
CLOSE = "2026-06-08T00:00:00.000Z"
BEFORE = parse_time(OPEN) - timedelta(days=1)
ENTERING = parse_time(OPEN) + timedelta(days=1)
STARTING = parse_time(CLOSE)
ROTATIONS = ["none", "by_table", "by_round"]
ODD = st.sampled_from(["ai_seat", "bye"])


def swiss_settings(**changes: object) -> Settings:
    base = Settings(format="swiss", table_size=3, rounds=5, entries_open=OPEN, entries_close=CLOSE, min_players=3, max_players=64)
    return replace(base, **changes)  # type: ignore[arg-type]


def robin_settings(size: int, group: int, meetings: int, **changes: object) -> Settings:
    rounds = rounds_per_meeting(group, size) * meetings
    base = swiss_settings(format="round_robin", table_size=size, group_size=group, meetings=meetings, rounds=rounds)
    return replace(base, **{"min_players": size, **changes})  # type: ignore[arg-type]


class Run:
    """A tournament decided and folded event by event, as the application will: every event through its stored form,
    a copy of the fold kept after each (to check the fold of every prefix against)."""

    def __init__(self, settings: Settings, organiser: str = "p_org") -> None:
        self.t = Tournament("t_1")
        self.stored: list[tuple[int, str]] = []
        self.states: list[Tournament] = []
        self.ids = itertools.count(1)
        self.do(Create(organiser, "Spring Swiss", settings), BEFORE)

    def do(self, command: object, now: datetime) -> list[TournamentEvent]:
        events = decide(self.t, command, now)  # type: ignore[arg-type]
        for event in events:
            payload = envelope(event, at=format_time(now), by="test")
            number = self.t.version + 1
            apply(self.t, number, from_envelope(payload)[0], format_time(now))
            self.t.head = payload
            self.stored.append((number, payload))
            self.states.append(copy.deepcopy(self.t))
        return events

    def enter(self, players: int, now: datetime = ENTERING, rng: random.Random | None = None) -> list[str]:
        ids = []
        for n in range(players):
            player = f"p_{len(self.t.entrants) + 1}"
            rating = (rng or random.Random(n)).randint(1000, 2000)
            self.do(Enter(player, f"Player {player}", rating, finished=10, counted=10), now)
            ids.append(player)
        return ids

    def start(self, number: int, now: datetime, seed: int = 7) -> list[TournamentEvent]:
        ids = [f"g_{next(self.ids)}" for _ in range(len(self.t.entrants) + 1)]
        return self.do(StartRound(number, ids, seed), now)


def random_places(rng: random.Random, seats: int) -> tuple[int, ...]:
    """A standing with ties now and then (competition numbering, as the ladders give it)."""
    keys = [rng.randint(0, 5) for _ in range(seats)]
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


def play(run: Run, rng: random.Random, *, withdraw: float = 0.0, check=None) -> None:
    """Play every round on a simulated clock: each game ends with random places, some players withdraw between rounds."""
    now = STARTING
    for number in range(1, run.t.terms.rounds + 1):
        if run.t.finished is not None:
            return
        now += timedelta(hours=1)
        run.start(number, now)
        if run.t.finished is not None:
            return
        if check is not None:
            check(run.t)
        for table in list(run.t.current.running):
            run.do(FinishGame(table.game_id, random_places(rng, len(table.seats))), now)
        for entrant in list(run.t.in_field()):
            if run.t.finished is None and rng.random() < withdraw:
                run.do(Withdraw(entrant.player_id), now)


def seated_once(t: Tournament) -> None:
    rnd = t.current
    seated = [p for table in rnd.tables for p in table.players] + list(rnd.byes)
    assert sorted(seated) == sorted(e.player_id for e in t.active(rnd.number)), "every active player, once"


# --- whole tournaments, as properties -------------------------------------------------------------------------


tournaments = st.one_of(
    st.builds(
        swiss_settings,
        table_size=st.sampled_from([2, 3, 4]),
        rounds=st.integers(1, 6),
        odd_rule=ODD,
        duplicate=st.booleans(),
        seat_rotation=st.sampled_from(ROTATIONS),
    ).map(lambda s: replace(s, min_players=s.table_size)),
    st.builds(
        robin_settings,
        size=st.just(2),
        group=st.integers(2, 6),
        meetings=st.integers(1, 2),
        odd_rule=ODD,
        duplicate=st.booleans(),
    ),
    st.sampled_from([(3, 3), (3, 9), (4, 4)]).flatmap(
        lambda sg: st.builds(robin_settings, st.just(sg[0]), st.just(sg[1]), st.integers(1, 2), odd_rule=ODD)
    ),
)


@settings(max_examples=60, deadline=None)
@given(tournaments, st.integers(2, 30), st.randoms(use_true_random=False), st.sampled_from([0.0, 0.1]))
def test_every_round_seats_every_active_player_once_and_the_fold_of_every_prefix_is_the_state_reached(s, n, rng, withdraw):
    run = Run(s)
    run.enter(max(n, s.min_players), rng=rng)
    play(run, rng, withdraw=withdraw, check=seated_once)
    for k in range(len(run.stored)):
        assert fold("t_1", run.stored[: k + 1]) == run.states[k]
    if run.t.finished == "completed":
        assert len(run.t.rounds) == s.rounds and all(r.closed for r in run.t.rounds)


@settings(max_examples=60, deadline=None)
@given(tournaments, st.integers(2, 24), st.randoms(use_true_random=False))
def test_standings_equal_a_recomputation_from_the_games(s, n, rng):
    run = Run(s)
    run.enter(max(n, s.min_players), rng=rng)
    play(run, rng, withdraw=0.05)
    t = run.t
    # recomputed from the stored events alone, with the rules of docs/tournaments.md
    seats_of: dict[str, tuple[str | None, ...]] = {}
    earned: Counter[str] = Counter()
    bye = Fraction(s.table_size - 1, 2)
    for _, payload in run.stored:
        event, _ = from_envelope(payload)
        if isinstance(event, RoundStarted):
            seats_of.update({table.game_id: table.seats for table in event.tables})
            for player in event.byes:
                earned[player] += bye
        outcomes = [Outcome(event.game_id, event.places)] if isinstance(event, GameFinished) else []
        outcomes += list(event.settled) if isinstance(event, RoundClosed) else []
        for outcome in outcomes:
            seats = seats_of[outcome.game_id]
            for holder, place in zip(seats, outcome.places, strict=True):
                if holder is not None:
                    earned[holder] += len(seats) - place
    lines = standings(t)
    assert {line.player_id: line.points for line in lines} == {p: Fraction(earned[p]) for p in t.entrants}
    assert points(t) == {p: Fraction(earned[p]) for p in t.entrants}
    if s.format == "swiss":
        for line in lines:
            opponents = [
                o
                for game, seats in seats_of.items()
                if line.player_id in seats and game in _results(t)
                for o in seats
                if o is not None and o != line.player_id
            ]
            assert line.buchholz == sum((Fraction(earned[o]) for o in opponents), Fraction(0))
        keys = [(-(x.duplicate or 0), -x.points, -x.buchholz, -x.firsts) for x in lines]
        assert keys == sorted(keys)
        assert [line.rank for line in lines] == list(range(1, len(lines) + 1))
    else:
        for group in group_standings(t):
            keys = [(-(x.duplicate or 0), -x.points, -x.head_to_head) for x in group]
            assert keys == sorted(keys)
            assert [line.rank for line in group] == list(range(1, len(group) + 1))


def _results(t: Tournament) -> dict[str, tuple[int, ...]]:
    return {game: places for rnd in t.rounds for game, places in rnd.results.items()}


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 4), st.integers(4, 20), st.randoms(use_true_random=False), st.sampled_from(["none", "by_table", "by_round"])
)
def test_duplicate_tables_share_their_deal_and_scores_equal_a_recomputation(size, n, rng, rotation):
    run = Run(swiss_settings(table_size=size, rounds=4, min_players=size, duplicate=True, seat_rotation=rotation))
    run.enter(n, rng=rng)
    play(run, rng)
    t = run.t
    expected: Counter[str] = Counter()
    for rnd in t.rounds:
        sizes = {len(table.seats) for table in rnd.tables}
        assert sorted(deal.size for deal in rnd.deals) == sorted(sizes)
        for deal in rnd.deals:
            assert rnd.seed_for(deal.size) == splitmix64(7 + deal.size)
        for table in rnd.tables:
            for seat, holder in enumerate(table.seats):
                if holder is None:
                    continue
                rivals = [
                    rnd.results[other.game_id][seat]
                    for other in rnd.tables
                    if other is not table and len(other.seats) == len(table.seats)
                ]
                mine = rnd.results[table.game_id][seat]
                won = sum(2 if mine < r else 1 if mine == r else 0 for r in rivals)
                expected[holder] += Fraction(won, 2 * len(rivals)) if rivals else Fraction(1, 2)
        for player in rnd.byes:
            expected[player] += Fraction(1, 2)
    assert duplicate_scores(t) == {p: Fraction(expected[p]) for p in t.entrants}
    lines = standings(t)
    assert [x.duplicate for x in lines] == sorted((x.duplicate for x in lines), reverse=True)


def test_a_64_player_swiss_of_3_seat_tables_seats_everyone_and_repeats_nobody():
    run = Run(swiss_settings(days_per_turn=1, round_days=10, rated=True))
    run.enter(64)
    rng = random.Random(39)

    def no_repeats(t: Tournament) -> None:
        seated_once(t)
        before = defaultdict(set)
        for rnd in t.rounds[:-1]:
            for table in rnd.tables:
                for a, b in itertools.permutations(table.players, 2):
                    before[a].add(b)
        assert repeat_meetings([table.seats for table in t.current.tables], before) == 0
        assert [len(table.players) for table in t.current.tables] == [3] * 20 + [
            2,
            2,
        ]  # 22 tables of 3: two AI seats, one a table

    play(run, rng, check=no_repeats)
    assert run.t.finished == "completed" and len(run.t.rounds) == 5


@pytest.mark.parametrize("size", [2, 4])
def test_a_round_robin_of_4_groups_of_4_with_two_meetings_meets_every_pair_exactly_twice(size):
    run = Run(robin_settings(size, 4, 2, min_players=16, max_players=16))
    run.enter(16)
    play(run, random.Random(4))
    assert run.t.finished == "completed"
    groups = run.t.groups
    assert len(groups) == 4 and all(len(group) == 4 for group in groups)
    met: Counter[frozenset[str]] = Counter()
    for rnd in run.t.rounds:
        for table in rnd.tables:
            met.update(frozenset(pair) for pair in itertools.combinations(table.players, 2))
    within = {frozenset(pair) for group in groups for pair in itertools.combinations(group, 2)}
    assert set(met) == within and set(met.values()) == {2}


# --- refusals and examples ------------------------------------------------------------------------------------


def entered(players: int = 3, **changes: object) -> Run:
    run = Run(swiss_settings(**changes))
    run.enter(players)
    return run


def refused(run: Run, command: object, now: datetime) -> Refused:
    before = copy.deepcopy(run.t)
    with pytest.raises(Refused) as caught:
        decide(run.t, command, now)  # type: ignore[arg-type]
    assert run.t == before  # a refusal changes nothing
    return caught.value


def test_create_refuses_settings_that_make_no_tournament():
    t = Tournament("t_1")
    for bad in [
        swiss_settings(min_players=1),
        swiss_settings(min_players=10, max_players=5),
        swiss_settings(entries_open=CLOSE, entries_close=OPEN),
        swiss_settings(time_control="live"),  # no turn_timeout
        swiss_settings(late_entry_rounds=5),
        robin_settings(3, 5, 1),
        replace(robin_settings(2, 4, 2), rounds=5),
    ]:
        with pytest.raises(Refused) as caught:
            decide(t, Create("p_1", "Cup", bad), BEFORE)
        assert caught.value.code == "invalid_tournament_settings"
    with pytest.raises(Refused):
        decide(t, Create("p_1", "Cup", swiss_settings()), STARTING)  # entries closed already
    with pytest.raises(NotFound):
        decide(t, Enter("p_1", "Ann", 1500), ENTERING)
    run = Run(swiss_settings())
    assert refused(run, Create("p_1", "Cup", swiss_settings()), BEFORE).code == "tournament_exists"


def test_entering_is_refused_outside_the_window_twice_when_full_or_outside_the_gates():
    run = Run(swiss_settings(max_players=3, rating_min=1000, rating_max=1900, min_finished_percent=80))
    for player in ("p_1", "p_2"):
        run.do(Enter(player, player, 1500, 10, 10), ENTERING)
    assert refused(run, Enter("p_x", "X", 1500, 9, 10), BEFORE).code == "entries_not_open"
    assert refused(run, Enter("p_x", "X", 1500, 9, 10), STARTING).code == "entries_closed"
    assert refused(run, Enter("p_1", "Again", 1500, 9, 10), ENTERING).code == "already_entered"
    assert refused(run, Enter("p_x", "X", 2100, 9, 10), ENTERING).code == "rating_out_of_range"
    assert refused(run, Enter("p_x", "X", 1500, 7, 10), ENTERING).code == "record_too_low"
    assert refused(run, Enter("p_x", "X", 1500, 0, 0), ENTERING).code == "record_too_low"  # no record yet
    run.do(Enter("p_x", "X", 1500, 8, 10), ENTERING)
    assert refused(run, Enter("p_y", "Y", 1500, 10, 10), ENTERING).code == "tournament_full"
    run.do(Withdraw("p_x"), ENTERING)
    assert run.do(Withdraw("p_x"), ENTERING) == []  # withdrawn already
    assert refused(run, Enter("p_x", "X", 1500, 10, 10), ENTERING).code == "tournament_withdrawn"
    run.do(Enter("p_y", "Y", 1500, 10, 10), ENTERING)  # the withdrawal made room
    assert refused(run, Withdraw("p_nobody"), ENTERING).code == "not_entered"
    assert refused(run, Enter("p_z", "", 1500, 10, 10), ENTERING).code == "invalid_request"  # no name: no event of ours


def test_late_entry_is_open_in_swiss_until_the_stated_round_starts():
    run = entered(4, late_entry_rounds=1)
    run.start(1, STARTING)
    late = STARTING + timedelta(hours=1)
    assert run.do(Enter("p_late", "Late", 1500), late) == [PlayerEntered("p_late", "Late", 1500, 2)]
    for table in run.t.current.running:
        run.do(FinishGame(table.game_id, (1, 2, 3)), late)
    run.start(2, late)
    assert "p_late" in [p for table in run.t.current.tables for p in table.players]
    assert refused(run, Enter("p_later", "Later", 1500), late).code == "entries_closed"


def test_rounds_start_in_order_once_and_only_after_the_last_one_closed():
    run = entered(5)
    assert refused(run, StartRound(1, ["g_1", "g_2"]), ENTERING).code == "entries_still_open"
    assert refused(run, StartRound(2, ["g_1", "g_2"]), STARTING).code == "round_out_of_order"
    assert refused(run, StartRound(1, ["g_1"]), STARTING).code == "invalid_request"  # two tables need two ids
    assert refused(run, StartRound(1, ["g_1", "g_1"]), STARTING).code == "invalid_request"
    assert refused(run, StartRound(1, ["g_1", ""]), STARTING).code == "invalid_request"
    first = run.do(StartRound(1, ["g_1", "g_2"]), STARTING)
    assert [table.game_id for table in first[0].tables] == ["g_1", "g_2"]
    assert run.do(StartRound(1, ["g_9", "g_8"]), STARTING) == []  # started already: the same games, once
    assert refused(run, StartRound(2, ["g_3", "g_4"]), STARTING).code == "round_not_closed"
    assert status(run.t, STARTING) == "playing"


def test_the_last_game_closes_the_round_and_the_last_round_finishes_the_tournament():
    run = entered(3, rounds=1)
    (started,) = run.start(1, STARTING)
    (table,) = started.tables
    assert refused(run, FinishGame(table.game_id, (1, 1, 1, 4)), STARTING).code == "invalid_places"
    assert refused(run, FinishGame(table.game_id, (1, 3, 3)), STARTING).code == "invalid_places"
    with pytest.raises(NotFound):
        decide(run.t, FinishGame("g_other", (1, 2, 3)), STARTING)
    events = run.do(FinishGame(table.game_id, (2, 1, 3)), STARTING)
    assert events == [GameFinished(table.game_id, (2, 1, 3)), RoundClosed(1, ()), TournamentFinished("completed")]
    assert run.do(FinishGame(table.game_id, (2, 1, 3)), STARTING) == []
    assert refused(run, Enter("p_9", "Nine", 1500), STARTING).code == "tournament_over"
    assert [line.player_id for line in standings(run.t)] == [table.seats[1], table.seats[0], table.seats[2]]


def test_too_few_players_at_the_first_round_finishes_the_tournament():
    run = entered(2, min_players=3)
    assert run.start(1, STARTING) == [TournamentFinished("too_few_players")]


def test_two_timeouts_withdraw_a_player_whose_table_plays_on_and_the_round_closes():
    run = entered(6, rounds=2)
    run.start(1, STARTING)
    table = run.t.current.tables[0]
    player = table.players[0]
    assert run.do(RecordTimeout(player, table.game_id, 3), STARTING)[0].type == "tournament_timeout"
    assert run.do(RecordTimeout(player, table.game_id, 3), STARTING) == []  # the same turn counts once
    events = run.do(RecordTimeout(player, table.game_id, 5), STARTING)
    assert [e.type for e in events] == ["tournament_timeout", "tournament_withdrawn"]
    assert run.t.entrants[player].withdrawn == "timeouts"
    for each in run.t.current.running:  # the withdrawn player's game ends (an AI played on), places as they fell
        run.do(FinishGame(each.game_id, (1, 2, 3)), STARTING)
    assert run.t.current.closed
    run.start(2, STARTING + timedelta(hours=1))
    assert player not in [p for t in run.t.current.tables for p in t.players]
    assert len([t for t in run.t.current.tables]) == 2  # 5 players, tables of 3: one AI seat


def test_a_correspondence_round_is_settled_at_its_deadline_by_the_current_standing():
    run = entered(6, rounds=1, round_days=7)
    (started,) = run.start(1, STARTING)
    assert started.deadline == format_time(STARTING + timedelta(days=7))
    first, second = started.tables
    run.do(FinishGame(first.game_id, (1, 2, 3)), STARTING)
    early = STARTING + timedelta(days=6)
    assert refused(run, SettleRound(1, (Outcome(second.game_id, (1, 2, 2)),)), early).code == "round_deadline_not_reached"
    late = STARTING + timedelta(days=7)
    assert refused(run, SettleRound(1, ()), late).code == "settlement_incomplete"
    assert refused(run, SettleRound(1, (Outcome(first.game_id, (1, 2, 3)),)), late).code == "settlement_incomplete"
    events = run.do(SettleRound(1, (Outcome(second.game_id, (1, 2, 2)),)), late)
    assert events == [RoundClosed(1, (Outcome(second.game_id, (1, 2, 2)),)), TournamentFinished("completed")]
    assert run.t.rounds[0].settled == (second.game_id,)
    assert run.do(FinishGame(second.game_id, (3, 2, 1)), late) == []  # its later end changes nothing
    assert points(run.t)[second.seats[0]] == 2


def test_a_live_round_has_no_deadline_to_settle_at():
    run = entered(3, time_control="live", turn_timeout=60, days_per_turn=None)
    run.start(1, STARTING)
    assert refused(run, SettleRound(1, ()), STARTING + timedelta(days=30)).code == "round_has_no_deadline"


def test_byes_score_the_mean_of_a_tables_points():
    run = entered(5, table_size=2, odd_rule="bye", min_players=2, rounds=1)
    (started,) = run.start(1, STARTING)
    assert len(started.byes) == 1
    assert points(run.t)[started.byes[0]] == Fraction(1, 2)


@pytest.mark.parametrize(("rotation", "turn"), [("none", 0), ("by_round", 1)])
def test_seats_turn_as_the_organiser_chose(rotation, turn):
    run = entered(3, seat_rotation=rotation, rounds=2)
    (first,) = run.start(1, STARTING)
    seats = first.tables[0].seats  # round 1 is turned by 0 either way: the rank order
    run.do(FinishGame(first.tables[0].game_id, (1, 2, 3)), STARTING)  # so the rank order stays as it was
    (second,) = run.start(2, STARTING)
    assert second.tables[0].seats == seats[turn:] + seats[:turn]


def test_by_table_turns_each_table_by_its_number():
    run = entered(9, seat_rotation="by_table", table_size=3)
    (started,) = run.start(1, STARTING)
    ranked = sorted(run.t.entrants.values(), key=lambda e: (-e.rating, e.order))
    ids = [e.player_id for e in ranked]
    assert [table.seats for table in started.tables] == [
        tuple(ids[0:3]),
        (ids[4], ids[5], ids[3]),
        (ids[8], ids[6], ids[7]),
    ]


def test_stored_events_read_back_checked():
    run = entered(3)
    run.start(1, STARTING)
    for _, payload in run.stored:
        event, _ = from_envelope(payload)
        assert event_from_dict(event_to_dict(event)) == event
    game = run.t.current.tables[0].game_id
    for bad in [
        {"type": "tournament_game_finished", "game_id": game, "places": [1, 3, 3]},
        {"type": "tournament_game_finished", "game_id": game, "places": [1]},
        {"type": "tournament_entered", "player_id": "", "name": "A", "rating": 1, "from_round": 1},
        {
            "type": "round_started",
            "number": 2,
            "tables": [{"game_id": "g", "seats": ["a", "a"]}],
            "byes": [],
            "deals": [],
            "deadline": None,
        },
        {
            "type": "tournament_created",
            "organiser": "p",
            "name": "N",
            "settings": {**event_to_dict(TournamentCreated("p", "N", swiss_settings()))["settings"], "min_players": 99},
        },
        {"type": "tournament_finished", "reason": "bored"},
    ]:
        with pytest.raises(CorruptHistory):
            event_from_dict(bad)


def test_a_history_no_decision_could_write_is_corrupt():
    run = entered(3)
    event = PlayerEntered("p_1", "Twice", 1500, 1)
    with pytest.raises(CorruptHistory):
        apply(copy.deepcopy(run.t), run.t.version + 1, event, OPEN)
    with pytest.raises(CorruptHistory):
        apply(Tournament("t_2"), 1, event, OPEN)
    with pytest.raises(CorruptHistory):
        apply(copy.deepcopy(run.t), run.t.version + 2, PlayerEntered("p_new", "New", 1500, 1), OPEN)
    with pytest.raises(CorruptHistory):
        apply(copy.deepcopy(run.t), run.t.version + 1, GameFinished("g_1", (1, 2, 3)), OPEN)
    with pytest.raises(CorruptHistory):
        apply(copy.deepcopy(run.t), run.t.version + 1, TournamentCreated("p_1", "Cup", swiss_settings()), OPEN)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(6, 16), st.randoms(use_true_random=False))
def test_a_duplicate_swiss_pairs_each_round_by_the_duplicate_score(size, n, rng):
    """A duplicate Swiss ranks by the duplicate score first, so it pairs by it too: a leader on it opens the next
    round's first table (pairing by plain points seated the leaders of the standings apart)."""
    run = Run(swiss_settings(table_size=size, rounds=4, min_players=size, duplicate=True))
    run.enter(n, rng=rng)
    checked: list[int] = []

    def a_leader_at_the_first_table(t: Tournament) -> None:
        if t.current.number == 1:
            return
        scores = duplicate_scores(t)
        best = max(scores[e.player_id] for e in t.active(t.current.number))
        assert any(scores[p] == best for p in t.current.tables[0].players), (t.current.number, scores)
        checked.append(t.current.number)

    play(run, rng, check=a_leader_at_the_first_table)
    assert checked, "the tournament paired a second round"
