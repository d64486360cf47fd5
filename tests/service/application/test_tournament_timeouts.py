"""A tournament's vanished players and its cap on vacation (issue 39), on the runtime over fakeredis and the real
Redis, a clock the test moves, and the real job code: two timed-out turns withdraw a player, an AI plays their seat
on and the round closes; a round honours ``vacation_days_per_round`` days of vacation and no more, and once they are
used the turn times out rather than take more."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service.application.commands import NewGame, SeatRequest
from service.application.followups import due
from service.domain import tournaments as rules
from service.domain.ai import choose_steps
from service.domain.deadlines import DAY
from service.domain.lobby import TurnTimedOut
from service.runtime import build_runtime
from tests.harness.tournaments import Clock, play_round, terms
from workers import context, jobs


@pytest.fixture
def world(redis_pair, settings):
    clock = Clock()
    runtime = build_runtime(settings, clients=redis_pair, clock=clock)
    with context.installed(runtime):
        yield runtime, clock


def started(runtime, clock, count: int, **chosen):
    """A tournament of ``count`` players, entries closed and round 1 started; it and its field."""
    service = runtime.tournaments
    organiser, *field = [runtime.accounts.sign_up(f"Player {chr(65 + n)}").player for n in range(count + 1)]
    made, _ = service.create(organiser, "Vanishing", terms(clock, max_players=count, **chosen))
    for player in field:
        service.join(made.id, player)
    clock.advance(hours=2)
    service.tick(made.id)
    return service.load(made.id), field


def step(runtime, game_id: str) -> None:
    """Move the game on once: a human to move plays as the greedy AI would, else every job due now runs."""
    game = runtime.games.load(game_id)
    seat = game.seat_to_move()
    if seat is not None and game.seats[seat].kind == "human":
        player = runtime.players.get(game.seats[seat].player_id or "")
        runtime.games.act(game_id, player, choose_steps(game, seat, "greedy", ()))
        return
    for item in runtime.games.needs(game):
        if item.job in ("ai_turn", "score_round") and item.at is None:
            jobs.JOBS[item.job](item.game_id, item.version, *item.args)


def time_out(runtime, clock, game_id: str) -> str:
    """Let the turn of the human to move run out, and run what the timeout asks for, as the workers would."""
    game = runtime.games.load(game_id)
    deadline = runtime.calendars.deadline(game)
    assert deadline is not None
    clock.at = max(clock.at, deadline + timedelta(seconds=1))
    item = next(x for x in runtime.games.needs(game) if x.job == "turn_deadline")
    outcome = jobs.turn_deadline(item.game_id, item.version, *item.args)
    after = runtime.games.load(game_id)
    assert "tournament_game" in [x.job for x in due(after, [TurnTimedOut(0, after.timeout_action)])]
    jobs.tournament_game(game_id, after.version)
    return outcome


def test_two_timed_out_turns_withdraw_a_player_and_an_ai_plays_their_seat(world):
    runtime, clock = world
    service = runtime.tournaments
    t, _ = started(runtime, clock, 3, rounds=2, time_control="live", turn_timeout=60, days_per_turn=None)
    table = t.rounds[0].tables[0]
    staller = table.seats[0]
    timeouts = 0
    for _ in range(5000):
        game = runtime.games.load(table.game_id)
        seat = game.seat_to_move()
        if seat is not None and game.seats[seat].player_id == staller and game.seats[seat].kind == "human":
            assert time_out(runtime, clock, table.game_id).startswith(f"seat {seat} timed out")
            timeouts += 1
            if service.load(t.id).entrants[staller].withdrawn is not None:
                break
            continue
        step(runtime, table.game_id)
    after = service.load(t.id)
    assert timeouts == 2 and after.entrants[staller].withdrawn == "timeouts"
    assert len(after.timeouts[staller]) == 2
    game = runtime.games.load(table.game_id)
    assert game.seats[0].kind == "ai", "their seat is played on by an AI"
    jobs.tournament_game(table.game_id, game.version)  # told again: counted once
    assert service.load(t.id).version == after.version
    play_round(runtime, t.id)
    final = service.load(t.id)
    assert final.rounds[0].closed and final.started == 2, "the round closed and the next started"
    assert all(staller not in x.players for x in final.rounds[1].tables), "paired no more"
    play_round(runtime, t.id)
    assert service.load(t.id).finished == "completed"
    assert staller in {line.player_id for line in service.standings(t.id)[1][0]}, "their points stay"


def test_a_timeout_missed_by_its_job_is_counted_when_the_game_ends(world):
    runtime, clock = world
    service = runtime.tournaments
    t, _ = started(runtime, clock, 3, rounds=1, time_control="live", turn_timeout=60, days_per_turn=None, timeouts_to_withdraw=5)
    table = t.rounds[0].tables[0]
    game = runtime.games.load(table.game_id)
    mover = game.seats[game.seat_to_move()].player_id
    clock.at = runtime.calendars.deadline(game) + timedelta(seconds=1)
    item = next(x for x in runtime.games.needs(game) if x.job == "turn_deadline")
    jobs.turn_deadline(item.game_id, item.version, *item.args)  # its tournament_game job lost with its worker
    assert service.load(t.id).timeouts == {}
    play_round(runtime, t.id)
    final = service.load(t.id)
    assert final.finished == "completed" and len(final.timeouts[mover]) == 1


@pytest.mark.parametrize("cap_days", [0, 1])
def test_a_round_honours_its_vacation_days_and_no_more(world, cap_days):
    runtime, clock = world
    t, _ = started(runtime, clock, 3, rounds=1, days_per_turn=1, vacation_days_per_round=cap_days)
    table = t.rounds[0].tables[0]
    game = runtime.games.load(table.game_id)
    seat = game.seat_to_move()
    mover = game.seats[seat].player_id
    turn_start = runtime.calendars.turn(game).started
    runtime.calendars.declare(mover, clock.at + timedelta(hours=1), clock.at + timedelta(days=5))
    game = runtime.games.load(table.game_id)
    deadline = runtime.calendars.deadline(game)
    assert deadline is not None
    assert abs((deadline - turn_start).total_seconds() - (1 + cap_days) * DAY) < 5, "a day a turn, and the cap's days"
    assert not runtime.calendars.may_take(game, deadline), "the cap is used: no vacation is taken at the deadline"
    outcome = time_out(runtime, clock, table.game_id)
    assert outcome.startswith(f"seat {seat} timed out")
    assert len(runtime.tournaments.load(t.id).timeouts[mover]) == 1


def test_a_game_of_no_tournament_honours_the_whole_vacation(world):
    runtime, clock = world
    ann, bob = (runtime.accounts.sign_up(name).player for name in ("Ann", "Bob"))
    request = NewGame(seats=[SeatRequest("human"), SeatRequest("human")], days_per_turn=1)
    game = runtime.games.set_up(ann, request, [(1, bob)])
    game = runtime.games.load(game.id)
    mover = game.seats[game.seat_to_move()].player_id
    start = runtime.calendars.turn(game).started
    runtime.calendars.declare(mover, clock.at + timedelta(hours=1), clock.at + timedelta(days=5))
    deadline = runtime.calendars.deadline(runtime.games.load(game.id))
    assert deadline is not None and (deadline - start).total_seconds() > 5 * DAY
    assert rules.Settings.__dataclass_fields__["timeouts_to_withdraw"].default == 2


@pytest.mark.parametrize("cap_days", [0, 1])
def test_a_tournament_table_shows_only_the_vacation_its_round_honours(world, cap_days):
    """A seat's ``vacation_until`` (what a table's vacation badge shows) is the vacation the round's cap honours: the
    cap's end when the vacation runs past it, nothing once it is used or when the cap is 0; a game outside
    tournaments shows the whole vacation."""
    from service.http.views import game_json

    runtime, clock = world
    t, _ = started(runtime, clock, 3, rounds=1, days_per_turn=1, vacation_days_per_round=cap_days)
    table = t.rounds[0].tables[0]
    game = runtime.games.load(table.game_id)
    seat = game.seat_to_move()
    mover = game.seats[seat].player_id
    since = rules.settings.parse_time(game.created_at)
    start, end = clock.at + timedelta(hours=1), clock.at + timedelta(days=5)
    runtime.calendars.declare(mover, start, end)
    clock.advance(hours=2)

    def shown() -> str | None:
        now = runtime.games.load(table.game_id)
        return game_json(now, None, None, runtime.games.clock_of(now))["seats"][seat]["vacation_until"]

    assert runtime.calendars.load(mover).away_until(clock.at) == end, "the player is away for five days"
    if cap_days == 0:
        assert shown() is None, "a round that honours no vacation shows none"
        return
    assert start >= since, "the vacation starts after the round: the cap counts from its start"
    cap_end = start + timedelta(days=cap_days)
    assert shown() == rules.settings.format_time(cap_end), "the cap's end, not the vacation's"
    clock.at = cap_end + timedelta(minutes=1)
    assert shown() is None, "the cap is used: no more vacation shown, though the player is still away"
    assert runtime.calendars.load(mover).away_until(clock.at) == end


def test_a_game_of_no_tournament_shows_the_whole_vacation(world):
    from service.http.views import game_json

    runtime, clock = world
    ann, bob = (runtime.accounts.sign_up(name).player for name in ("Ann", "Bob"))
    request = NewGame(seats=[SeatRequest("human"), SeatRequest("human")], days_per_turn=1)
    game = runtime.games.load(runtime.games.set_up(ann, request, [(1, bob)]).id)
    end = clock.at + timedelta(days=5)
    runtime.calendars.declare(ann.id, clock.at + timedelta(hours=1), end)
    clock.advance(hours=2)
    seats = game_json(game, None, None, runtime.games.clock_of(game))["seats"]
    assert seats[0]["vacation_until"] == rules.settings.format_time(end) and seats[1]["vacation_until"] is None
