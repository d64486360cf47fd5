"""Tournaments run to their end on a simulated clock with the real job code (``workers.jobs``): a Swiss of nine at
tables of three over three rounds, and a round robin of four groups of four meeting twice.  Every round seats every
active player once, no pair meets twice where the pairing could avoid it, the standings equal a recomputation from
the games' own events, and the rated games reach the ladders."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from fractions import Fraction

import pytest

from service.domain import tournaments as rules
from service.domain.game import decode
from service.runtime import build_runtime
from tests.harness.tournaments import Clock, iso, play_round, terms
from workers import context


@pytest.fixture
def world(redis_pair, settings):
    clock = Clock()
    runtime = build_runtime(settings, clients=redis_pair, clock=clock)
    with context.installed(runtime):
        yield runtime, clock


def run(runtime, clock, count: int, **chosen):
    """Make a tournament, enter ``count`` players, close entries and play every round; the tournament at its end."""
    service = runtime.tournaments
    organiser, *field = [runtime.accounts.sign_up(f"Player {chr(65 + n)}").player for n in range(count + 1)]
    made, _ = service.create(organiser, "Run", terms(clock, max_players=count, **chosen))
    for player in field:
        service.join(made.id, player)
    clock.advance(hours=2)
    jobs: Counter[str] = Counter()
    for _ in range(made.terms.rounds):
        assert service.tick(made.id) is None
        play_round(runtime, made.id, on_job=lambda job, result: jobs.update([job]))
    final = service.load(made.id)
    assert final.finished == "completed" and final.started == made.terms.rounds
    assert jobs["tournament_game"] >= 1 and jobs["rate"] >= 1
    return final, [p.id for p in field]


def recomputed(runtime, t: rules.Tournament) -> dict[str, Fraction]:
    """Each player's points from the games' own events (the ladders' standing of each), not from the tournament."""
    points: dict[str, Fraction] = dict.fromkeys(t.entrants, Fraction(0))
    for rnd in t.rounds:
        for table in rnd.tables:
            game, stored = runtime.games.load_reading(table.game_id)
            assert game.status == "finished"
            places = rules.current_places(game, [decode(payload) for _, payload in stored])
            for player, place in zip(table.seats, places, strict=True):
                if player is not None:
                    points[player] += rules.points_for(place, len(table.seats))
    return points


def rated_on_the_ladders(runtime, t: rules.Tournament) -> bool:
    games = [runtime.games.load(table.game_id) for rnd in t.rounds for table in rnd.tables]
    return all(game.rated and runtime.ratings.applied(game) for game in games)


def test_a_swiss_of_nine_at_tables_of_three_runs_to_its_end(world):
    runtime, clock = world
    final, field = run(runtime, clock, 9, rounds=3, rated=True, variant="basic")
    for rnd in final.rounds:
        seated = [p for table in rnd.tables for p in table.players] + list(rnd.byes)
        assert sorted(seated) == sorted(field), f"round {rnd.number} seats every active player once"
        assert all(len(table.seats) == 3 for table in rnd.tables)
    seen: dict[str, set[str]] = {p: set() for p in field}
    repeats = 0
    for rnd in final.rounds:
        repeats += rules.repeat_meetings([table.seats for table in rnd.tables], seen)
        for table in rnd.tables:
            for player in table.players:
                seen[player].update(p for p in table.players if p != player)
    assert repeats == 0, "nine players at tables of three meet nobody twice in three rounds (it can be avoided)"
    lines = runtime.tournaments.standings(final.id)[1][0]
    assert {line.player_id: line.points for line in lines} == recomputed(runtime, final)
    assert [line.points for line in lines] == sorted((line.points for line in lines), reverse=True)
    assert rated_on_the_ladders(runtime, final)


def test_a_round_robin_of_four_groups_of_four_meeting_twice(world):
    runtime, clock = world
    final, field = run(
        runtime, clock, 16, format="round_robin", table_size=4, group_size=4, meetings=2, rounds=2, rated=True, min_players=16
    )
    assert len(final.groups) == 4 and sorted(p for group in final.groups for p in group if p) == sorted(field)
    meetings: Counter[frozenset[str]] = Counter()
    for rnd in final.rounds:
        for table in rnd.tables:
            players = table.players
            meetings.update(frozenset((a, b)) for n, a in enumerate(players) for b in players[n + 1 :])
    within = {frozenset((a, b)) for group in final.groups for a in group for b in group if a and b and a != b}
    assert set(meetings) == within and set(meetings.values()) == {2}, "every pair of a group met exactly twice"
    groups = runtime.tournaments.standings(final.id)[1]
    points = recomputed(runtime, final)
    assert [{line.player_id: line.points for line in group} for group in groups] == [
        {p: points[p] for p in group if p} for group in final.groups
    ]
    assert rated_on_the_ladders(runtime, final)


def test_the_ticker_starts_the_first_round_at_entries_close_and_keeps_a_rounds_deadline(world):
    """Nobody reads the tournament: its place on the agenda is what starts round 1 once entries close, and what
    settles a correspondence round at its deadline."""
    from workers.ticker import Ticker

    runtime, clock = world
    service = runtime.tournaments
    agenda = runtime.shard_of("any").dispatcher.agenda
    organiser, *field = [runtime.accounts.sign_up(f"Player {chr(65 + n)}").player for n in range(4)]
    made, _ = service.create(organiser, "Clocked", terms(clock, rounds=1, round_days=2))
    for player in field:
        service.join(made.id, player)
    close_ms = int(rules.settings.parse_time(made.terms.entries_close).timestamp() * 1000)
    assert agenda.when(made.id) == close_ms
    ticker = Ticker(runtime, "test")
    ticker.sweep()
    assert service.load(made.id).started == 0, "not before its time"
    clock.advance(hours=1, minutes=1)
    ticker.sweep()
    started = service.load(made.id)
    assert started.started == 1 and all(runtime.games.store.exists(t.game_id) for t in started.rounds[0].tables)
    deadline = started.rounds[0].deadline
    soon = agenda.when(made.id)
    assert soon is not None and soon <= int(clock.at.timestamp() * 1000) + 5_000, "looked at soon: are its games made?"
    clock.advance(seconds=6)
    ticker.sweep()
    assert deadline is not None and agenda.when(made.id) == int(rules.settings.parse_time(deadline).timestamp() * 1000)
    clock.advance(days=2, minutes=1)
    ticker.sweep()
    final = service.load(made.id)
    assert final.finished == "completed" and final.rounds[0].settled and agenda.when(made.id) is None


def test_tournaments_not_finished_are_back_on_the_agenda_after_the_queue_redis_lost_it(world):
    """The agenda lives on the queue's Redis: wiped, the ticker puts every tournament not finished back on it (from
    the stores' list of tournaments), so entries still close and round 1 still starts with nobody reading it."""
    from workers.ticker import Ticker

    runtime, clock = world
    service = runtime.tournaments
    agenda = runtime.shard_of("any").dispatcher.agenda
    organiser, *field = [runtime.accounts.sign_up(f"Player {chr(65 + n)}").player for n in range(4)]
    waiting, _ = service.create(organiser, "Waiting", terms(clock, rounds=1))
    for player in field:
        service.join(waiting.id, player)
    empty, _ = service.create(organiser, "Empty", terms(clock, rounds=1, entries_close=iso(clock.at + timedelta(seconds=30))))
    clock.advance(minutes=1)
    service.tick(empty.id)
    assert service.load(empty.id).finished == "too_few_players"
    ticker = Ticker(runtime, "test")
    ticker.tick()
    prefix = runtime.settings.key_prefix
    for pattern in (f"{prefix}agenda*", f"{prefix}ticker"):
        for key in runtime.raw_redis.scan_iter(match=pattern):
            runtime.raw_redis.delete(key)
    assert agenda.when(waiting.id) is None
    assert set(service.ids_in_play()) == {waiting.id}, "a finished tournament is not in play"
    seeded = ticker.seeded
    ticker.tick()
    assert ticker.seeded == seeded + 1
    close_ms = int(rules.settings.parse_time(waiting.terms.entries_close).timestamp() * 1000)
    assert agenda.when(waiting.id) == close_ms, "looked at once, and back at its next time"
    assert agenda.when(empty.id) is None
    clock.advance(hours=1, minutes=1)
    ticker.tick()
    assert service.load(waiting.id).started == 1


def sixty_four_at_tables_of_three_hold(runtime, final, field: list[str]) -> None:
    """The 64-player Swiss's acceptance (issue 39), whoever ran it (jobs in-process or ``red7 worker`` processes):
    every round seats every active player once, nobody meets anyone twice, the standings equal a recomputation from
    the games, and the rated games are on the ladders."""
    seen: dict[str, set[str]] = {p: set() for p in field}
    repeats = 0
    for rnd in final.rounds:
        seated = [p for table in rnd.tables for p in table.players] + list(rnd.byes)
        assert sorted(seated) == sorted(field), f"round {rnd.number} seats every active player once"
        assert len(rnd.tables) == 22 and sum(len(t.players) for t in rnd.tables) == 64, "one AI seat fills the field"
        repeats += rules.repeat_meetings([table.seats for table in rnd.tables], seen)
        for table in rnd.tables:
            for player in table.players:
                seen[player].update(p for p in table.players if p != player)
    assert repeats == 0, "64 players at tables of three meet nobody twice in five rounds"
    lines = runtime.tournaments.standings(final.id)[1][0]
    assert {line.player_id: line.points for line in lines} == recomputed(runtime, final)
    assert [line.points for line in lines] == sorted((line.points for line in lines), reverse=True)
    assert rated_on_the_ladders(runtime, final)
