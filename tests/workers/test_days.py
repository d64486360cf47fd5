"""Playing by the day: a correspondence game over a simulated two weeks, on a clock the test moves.

The application, the dispatcher, the ticker and the jobs all read the runtime's clock (``build_runtime(clock=...)``),
so an hour passes in a step of the test: the ticker looks at what came due, the jobs run, the players who are at their
desks move.  Ana (Paris) has weekends off and declares Tuesday a vacation, ahead; Bo (UTC) answers within the hour on
Monday, then never again, and has a day of vacation a year.  The game must end as its settings say: Ana never times
out however long her weekend and vacation keep her away, Bo's first missed deadline takes his day of vacation (once)
and every missed deadline after it folds him exactly when it falls due; Ana wins.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from service.domain.game import decode
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, settings_for
from workers import context, jobs
from workers.runner import drain

START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # a Monday
PARIS = ZoneInfo("Europe/Paris")
DAY = timedelta(days=1)
#: Bo answers within the hour on the first day, until 20:00 (UTC), then never again.
SILENT = START + timedelta(hours=11)


def stored(api: Api, game_id: str) -> list[dict]:
    return [{"n": e.number, **decode(e.payload)} for e in api.runtime.store.read(game_id)]


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.fixture
def days(redis_pair, key_prefix):
    """An app whose whole runtime keeps the time of ``now[0]``."""
    now = [START]
    runtime = build_runtime(settings_for(key_prefix, vacation_hours_per_year=24), clients=redis_pair, clock=lambda: now[0])
    return Api(create_app(runtime), runtime), now


def _at_desk(local: datetime, vacation: tuple[datetime, datetime]) -> bool:
    """Ana plays on weekdays from 8 to 20, Paris time, and not on her vacation."""
    return local.weekday() < 5 and 8 <= local.hour < 20 and not vacation[0] <= local < vacation[1]


def _play(api: Api, game_id: str, token: str) -> bool:
    """A step of the player's turn, if it is theirs (one that can win when there is one)."""
    view = api.view(game_id, token)
    if not view["legal_steps"]:
        return False
    winning = [s for s in view["legal_steps"] if s["can_win"] and s["type"] != "fold"] or view["legal_steps"]
    choice = {k: winning[0][k] for k in ("type", "card", "seat", "to") if k in winning[0]}
    assert api.act(game_id, token, [choice], headers={"If-Match": f'"{view["version"]}"'}).status_code == 200
    return True


def _turn(api: Api, game_id: str, token: str) -> None:
    """The player's whole turn, if it is theirs."""
    while _play(api, game_id, token):
        drain(api.runtime)


def test_a_days_per_turn_game_over_two_weeks_ends_as_its_settings_say(days):
    api, now = days
    ana, bo = api.player("Ana"), api.player("Bo")
    vacation = (datetime(2025, 3, 4, 0, 0, tzinfo=PARIS), datetime(2025, 3, 5, 0, 0, tzinfo=PARIS))  # Tuesday, all day
    settings = {
        "time_zone": "Europe/Paris",
        "weekends_off": True,
        "vacation": {"start": vacation[0].isoformat(), "end": vacation[1].isoformat()},
    }
    me = api.call("PATCH", "/v1/players/me", ana["token"], json=settings).get_json()
    assert me["vacations"] == [{"start": "2025-03-03T23:00:00.000Z", "end": "2025-03-04T23:00:00.000Z", "automatic": False}]
    assert me["vacation_hours_left"] == 0  # the test's 24 hours a year
    game = api.game(ana["token"], [HUMAN, HUMAN], days_per_turn=1, seed=7)
    api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})

    hours = 0
    while hours < 14 * 24:
        drain(api.runtime)
        view = api.view(game["id"], ana["token"])
        if view["status"] == "finished":
            break
        if _at_desk(now[0].astimezone(PARIS), vacation):
            _turn(api, game["id"], ana["token"])
        if now[0] < SILENT:
            _turn(api, game["id"], bo["token"])
        now[0] += timedelta(hours=1)
        hours += 1

    events = stored(api, game["id"])
    finished = api.view(game["id"], ana["token"])
    assert finished["status"] == "finished" and finished["winner"] == 0, f"after {hours} hours: {finished['status']}"
    timeouts = [e for e in events if e["type"] == "turn_timed_out"]
    assert timeouts and {e["seat"] for e in timeouts} == {1}  # Ana never timed out; Bo, who never answered, always did
    bo_calendar = api.runtime.calendars.load(bo["id"])
    assert [v.automatic for v in bo_calendar.vacations] == [True]  # his day a year, taken once
    taken = bo_calendar.vacations[0]
    assert taken.end - taken.start == DAY
    starts = {e["n"]: e for e in events if e["type"] in ("turn_started", "round_dealt")}
    for timeout in timeouts:  # each at its deadline: a day of running clock, plus the day of vacation in the first
        began = max((n for n in starts if n < timeout["n"]), key=int)
        started = when(starts[began]["at"])
        paused = DAY if taken.start >= started and taken.start < when(timeout["at"]) else timedelta(0)
        assert when(timeout["at"]) == started + DAY + paused, (timeout, starts[began])
    assert when(timeouts[0]["at"]) == taken.end  # the first missed deadline waited out his vacation
    ends = [e for e in events if e["type"] in ("turn_started", "round_won", "round_dealt")]
    ana_turns = [
        when(next(e["at"] for e in ends if e["n"] > n)) - when(starts[n]["at"])
        for n in starts
        if starts[n].get("seat", starts[n].get("first_seat")) == 0 and n < events[-1]["n"]
    ]
    longest = max(ana_turns)
    print(
        f"\nthe game finished after {hours} simulated hours, {len(timeouts)} of Bo's turns timed out; Ana's longest "
        f"turn took {longest} of wall time (her clock stopped on weekends and on her vacation)"
    )
    assert longest > DAY  # a weekend or her vacation kept her away longer than a day, and her clock waited


def test_two_deadline_jobs_at_once_take_one_vacation_then_time_out_once(days):
    """Two tickers (one whose role lapsed mid-tick) may each queue the deadline's job: at a correspondence deadline with
    vacation left, the two take one vacation between them; at the next, one timeout."""
    api, now = days
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], days_per_turn=1, seed=7)
    api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    view = api.view(game["id"])
    mover = [ana, bo][view["turn"]["seat"]]
    context.install(api.runtime)

    def both_at(at: datetime) -> list[str]:
        now[0] = at
        answers: list[str] = []
        threads = [
            threading.Thread(target=lambda: answers.append(jobs.turn_deadline(game["id"], view["version"]))) for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        return answers

    first = when(view["turn"]["deadline"])
    answers = both_at(first)
    # One took the vacation; the other found it taken (before or while it wrote): not due yet.
    assert sum("on vacation from the deadline" in a for a in answers) == 1, answers
    assert sum(a.startswith("not yet due") for a in answers) == 1, answers
    taken = api.runtime.calendars.load(mover["id"]).vacations
    assert len(taken) == 1 and taken[0].automatic and taken[0].start == first
    assert not any(e["type"] == "turn_timed_out" for e in stored(api, game["id"])), answers  # on vacation: no timeout
    answers = both_at(taken[0].end)
    events = stored(api, game["id"])
    assert sum(e["type"] == "turn_timed_out" for e in events) == 1, answers
    assert len(api.runtime.calendars.load(mover["id"]).vacations) == 1  # the allowance (24 hours) is spent


def test_a_vacation_taken_by_a_twin_while_this_take_was_writing_stops_the_timeout_too(days, monkeypatch):
    """The race the threads above hit now and then, made to happen: this take read the calendar before a twin took the
    vacation; its append conflicts, it decides again and finds the player away at the deadline.  It takes nothing, and
    says the player was away, so its job does not time the turn out beside the twin's vacation."""
    api, now = days
    bo = api.player("Bo")
    calendars = api.runtime.calendars
    at = START + DAY
    stale = calendars.load(bo["id"])
    assert calendars.take(bo["id"], at, "g_1") == "taken"
    loads = iter([stale])
    real_load = calendars.load
    monkeypatch.setattr(calendars, "load", lambda player_id: next(loads, None) or real_load(player_id))
    assert calendars.take(bo["id"], at, "g_1") == "away"
    assert len(real_load(bo["id"]).vacations) == 1
    monkeypatch.undo()
    now[0] = at + DAY * 2  # the day's allowance is spent: a later deadline finds no hours left
    assert calendars.take(bo["id"], at + DAY * 2, "g_1") is None
