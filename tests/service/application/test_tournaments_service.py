"""The application's tournaments (service/application/tournaments/), with no HTTP: made once per key, listed and
filtered, entered behind their gates, rounds started with their games (once each, a start cut short finished by
whoever comes next), games folded in as they end, duplicate rounds' games kept from other tables until the round
ends.  On the runtime over fakeredis (slot-checked), with a clock the test moves, and the real job code."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from service.application.commands import Idempotency
from service.application.followups import due
from service.application.tournaments import TournamentService, game_id_for, tournament_of
from service.application.tournaments.base import parse_time
from service.common.errors import Refused
from service.domain import tournaments as rules
from service.runtime import build_runtime
from tests.harness.tournaments import Clock, play_round, terms
from workers import context


@pytest.fixture
def world(redis_pair, settings):
    clock = Clock()
    runtime = build_runtime(settings, clients=redis_pair, clock=clock)
    with context.installed(runtime):
        yield runtime, clock


def service_of(runtime) -> TournamentService:
    assert runtime.tournaments is not None
    return runtime.tournaments


def people(runtime, count: int):
    return [runtime.accounts.sign_up(f"Player {chr(65 + n)}").player for n in range(count)]


def refusal(call, *args, **kwargs) -> Refused:
    with pytest.raises(Refused) as caught:
        call(*args, **kwargs)
    return caught.value


def test_a_create_is_made_once_per_key_and_listed_by_status_and_format(world):
    runtime, clock = world
    service = service_of(runtime)
    org = people(runtime, 1)[0]
    key = Idempotency(f"player:{org.id}", "k1", "fp", 3600)
    made, replayed = service.create(org, "Autumn Swiss", terms(clock), key)
    again, replayed_again = service.create(org, "Autumn Swiss", terms(clock), key)
    assert (again.id, replayed, replayed_again) == (made.id, False, True)
    robin, _ = service.create(org, "Groups", terms(clock, format="round_robin", table_size=2, group_size=4, rounds=3))
    page = service.list_tournaments()
    assert [x["id"] for x in page.tournaments] == [robin.id, made.id]
    assert [x["id"] for x in service.list_tournaments(format="swiss").tournaments] == [made.id]
    assert {x["status"] for x in page.tournaments} == {"entering"}
    assert service.list_tournaments(status="playing").tournaments == []
    first = service.list_tournaments(limit=1)
    assert [x["id"] for x in service.list_tournaments(limit=1, cursor=first.next_cursor).tournaments] == [made.id]
    assert service.tournament_index.of(org.id) == [robin.id, made.id]
    assert refusal(service.list_tournaments, cursor="nonsense").code == "invalid_request"


def test_entry_gates_rating_range_and_record(world):
    runtime, clock = world
    service = service_of(runtime)
    org, ann = people(runtime, 2)
    ranged, _ = service.create(org, "Strong", terms(clock, rating_min=1600))
    assert refusal(service.join, ranged.id, ann).code == "rating_out_of_range"
    gated, _ = service.create(org, "Finishers", terms(clock, min_finished_percent=80))
    assert refusal(service.join, gated.id, ann).code == "record_too_low"  # no finished game yet: no share to show
    open_, _ = service.create(org, "Open", terms(clock))
    after, entered = service.join(open_.id, ann)
    assert entered and ann.id in after.entrants and open_.id in service.tournament_index.of(ann.id)
    assert refusal(service.join, open_.id, ann).code == "already_entered"
    assert service.withdraw(open_.id, ann).entrants[ann.id].withdrawn == "choice"
    assert service.withdraw(open_.id, ann).version == service.load(open_.id).version  # again: nothing more
    assert refusal(service.join, open_.id, ann).code == "tournament_withdrawn"


def test_a_field_entering_at_once_all_get_in(world):
    """Sixteen entrants at a time write the one stream: each loses to the others again and again, and each must
    still get in (a 409 for a race the caller had no part in was CI's failure with a field of 160)."""
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 49)
    t, _ = service.create(org, "Rush", terms(clock))
    with ThreadPoolExecutor(16) as pool:
        outcomes = list(pool.map(lambda player: service.join(t.id, player)[1], field))
    assert outcomes == [True] * len(field)
    after = service.load(t.id)
    assert set(after.entrants) == {player.id for player in field}
    assert after.version == runtime.tournaments.streams.version(t.id) == 1 + len(field)


def test_a_round_start_cut_short_makes_each_game_once(world, monkeypatch):
    """``round_started`` names every game first; a start that dies after the first game leaves the rest to whoever
    comes next (the tick), which makes each missing game once, under the recorded id."""
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 7)
    t, _ = service.create(org, "Cut", terms(clock))
    for player in field[:6]:
        service.join(t.id, player)
    clock.advance(hours=2)
    made: list[str] = []
    real_set_up = runtime.games.set_up

    def set_up_then_die(*args, **kwargs):
        made.append(kwargs["game_id"])
        if len(made) == 2:
            raise RuntimeError("the worker died")
        return real_set_up(*args, **kwargs)

    monkeypatch.setattr(runtime.games, "set_up", set_up_then_die)
    with pytest.raises(RuntimeError):
        service.tick(t.id)
    rnd = service.load(t.id).rounds[0]
    ids = [table.game_id for table in rnd.tables]
    assert ids == [game_id_for(t.id, 1, 0), game_id_for(t.id, 1, 1)]
    assert [runtime.games.store.exists(g) for g in ids] == [True, False]
    monkeypatch.setattr(runtime.games, "set_up", real_set_up)
    calls: list[str] = []
    monkeypatch.setattr(runtime.games, "set_up", lambda *a, **k: calls.append(k["game_id"]) or real_set_up(*a, **k))
    service.tick(t.id)
    service.tick(t.id)
    assert calls == [ids[1]], "only the missing game is made, once"
    for table in rnd.tables:
        game = runtime.games.load(table.game_id)
        assert [s.player_id for s in game.seats] == list(table.seats)
        assert (game.origin, game.status, tournament_of(game.id)) == ("tournament", "active", t.id)
        assert game.version == runtime.games.store.version(game.id)


def test_a_swiss_plays_to_its_end_with_the_real_jobs_and_standings_equal_the_games(world):
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 7)
    t, _ = service.create(org, "Short Swiss", terms(clock, rounds=2, rated=True, variant="basic"))
    for player in field[:6]:
        service.join(t.id, player)
    clock.advance(hours=2)
    assert service.tick(t.id) is None  # round 1 started: nothing waits on time (no deadline)
    ran: list[str] = []
    play_round(runtime, t.id, on_job=lambda job, result: ran.append(job))
    after = service.load(t.id)
    assert after.rounds[0].closed and after.started == 2, "the last game's end closed round 1 and started round 2"
    play_round(runtime, t.id)
    final = service.load(t.id)
    assert final.finished == "completed" and "tournament_game" in ran
    recomputed: dict[str, int] = {p.id: 0 for p in field[:6]}
    for rnd in final.rounds:
        for table in rnd.tables:
            game, _ = runtime.games.load_reading(table.game_id)
            assert game.status == "finished"
            places = service._places(table.game_id)
            assert rnd.results[table.game_id] == places
            for player, place in zip(table.seats, places, strict=True):
                if player is not None:
                    recomputed[player] += rules.points_for(place, len(table.seats))
    assert {line.player_id: line.points for line in service.standings(t.id)[1][0]} == recomputed
    assert service.list_tournaments(status="finished").tournaments[0]["id"] == t.id
    every_game = [runtime.games.load(table.game_id) for rnd in final.rounds for table in rnd.tables]
    assert all(game.rated and runtime.ratings.applied(game) for game in every_game), "rated games reach the ladder"


def test_a_finished_tournament_game_is_due_to_its_tournament(world):
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 4)
    t, _ = service.create(org, "Due", terms(clock, rounds=1))
    for player in field:
        service.join(t.id, player)
    clock.advance(hours=2)
    service.tick(t.id)
    game_id = service.load(t.id).rounds[0].tables[0].game_id
    assert "tournament_game" not in [x.job for x in due(runtime.games.load(game_id))]
    play_round(runtime, t.id)
    assert "tournament_game" in [x.job for x in due(runtime.games.load(game_id))]
    assert service.game_finished(game_id).startswith(f"tournament {t.id}")  # again: nothing more
    assert service.load(t.id).finished == "completed"


def test_a_duplicate_round_deals_alike_and_hides_its_games_until_it_ends(world):
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 7)
    outsider = people(runtime, 1)[0]
    t, _ = service.create(org, "Dup", terms(clock, rounds=1, duplicate=True))
    for player in field[:6]:
        service.join(t.id, player)
    clock.advance(hours=2)
    service.tick(t.id)
    rnd = service.load(t.id).rounds[0]
    games = [runtime.games.load(table.game_id) for table in rnd.tables]
    seed = rnd.seed_for(3)
    assert seed is not None and {g.seed for g in games} == {seed & (2**53 - 1)} and {g.dealing for g in games} == {"seeded"}
    first = rnd.tables[0]
    seated = first.players[0]
    service.check_readable(first.game_id, seated)  # a player at the table reads it
    for viewer in (outsider.id, rnd.tables[1].players[0], None):
        assert refusal(service.check_readable, first.game_id, viewer).code == "tournament_round_running"
    shown = service.round_view(t.id, 1, seated)
    assert shown["deals"] == [] and shown["your_game"] == first.game_id
    play_round(runtime, t.id)
    service.check_readable(first.game_id, outsider.id)  # the round is over: open to all
    assert service.round_view(t.id, 1, None)["deals"] == [{"size": 3, "seed": seed}]


def test_a_withdrawn_players_seat_is_played_by_an_ai_and_the_round_closes(world):
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 4)
    t, _ = service.create(org, "Leave", terms(clock, rounds=1))
    for player in field:
        service.join(t.id, player)
    clock.advance(hours=2)
    service.tick(t.id)
    table = service.load(t.id).rounds[0].tables[0]
    leaver = next(p for p in field if p.id == table.seats[1])
    service.withdraw(t.id, leaver)
    game = runtime.games.load(table.game_id)
    assert game.seats[1].kind == "ai" and game.seats[1].resigned
    play_round(runtime, t.id)
    assert service.load(t.id).finished == "completed"


def test_a_correspondence_round_is_settled_at_its_deadline(world):
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 4)
    t, _ = service.create(org, "Slow", terms(clock, rounds=1, round_days=3, days_per_turn=1))
    for player in field:
        service.join(t.id, player)
    clock.advance(hours=2)
    deadline = service.tick(t.id)
    rnd = service.load(t.id).rounds[0]
    assert rnd.deadline is not None and deadline is not None
    assert deadline == parse_time(rnd.deadline) and timedelta(days=3, seconds=-1) <= deadline - clock.at <= timedelta(days=3)
    clock.advance(days=3, hours=1)
    assert service.tick(t.id) is None
    final = service.load(t.id)
    assert final.finished == "completed" and final.rounds[0].settled


def test_a_deleted_account_is_withdrawn_and_its_seat_played_by_an_ai(world):
    runtime, clock = world
    service = service_of(runtime)
    org, *field = people(runtime, 4)
    t, _ = service.create(org, "Gone", terms(clock, rounds=1))
    for player in field:
        service.join(t.id, player)
    clock.advance(hours=2)
    service.tick(t.id)
    table = service.load(t.id).rounds[0].tables[0]
    leaver = next(p for p in field if p.id == table.seats[2])
    runtime.accounts.delete(leaver)
    assert service.load(t.id).entrants[leaver.id].withdrawn == "choice"
    assert runtime.games.load(table.game_id).seats[2].kind == "ai"
    assert service.tournament_index.of(leaver.id) == []
    play_round(runtime, t.id)
    assert service.load(t.id).finished == "completed"
