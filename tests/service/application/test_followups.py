"""What an append leaves to do (``due``), and the application's seam to the job system — in memory, no Redis.

Games are built here by folding decided events, as the application does; the
application is run on an in-memory store with a recording job system, so that
what it hands over after each append can be seen.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import fakeredis
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GameFinished, Phase, RoundWon, TurnStarted, Variant, decide_steps, legal_steps
from engine.events import Color, Finish
from service.application.commands import NewGame, SeatRequest
from service.application.followups import (
    QUICK_LEVELS,
    Due,
    NoFollowUps,
    due,
    noted,
    play_on_levels,
    plays_on,
    quick_turn,
)
from service.application.games import GameService
from service.domain.game import Game, apply_event
from service.domain.lobby import Join, SeatSpec, SetUp, decide
from service.storage.events import EventStore
from service.storage.players import PlayerStore

AT = "2026-11-26T12:00:00.000Z"


def table(*seats: SeatSpec, timeout: int | None = None, seed: int = 3) -> Game:
    game = Game("g_1")
    for event in decide(game, SetUp("ana", "Ana", seats, Variant.ADVANCED, False, timeout, "fold", seed, "c")):
        apply_event(game, game.version + 1, event, AT)
    return game


def jobs(items: list[Due]) -> list[str]:
    return sorted(item.job for item in items)


def test_an_ai_to_move_needs_an_ai_turn_and_a_waiting_table_nothing():
    game = table(SeatSpec("ai", "random"), SeatSpec("ai", "greedy"))
    assert [(d.job, d.version) for d in due(game)] == [("ai_turn", game.version)]
    assert due(table(SeatSpec("human"), SeatSpec("human"))) == []


def test_a_human_to_move_is_told_only_when_the_turn_starts_and_has_a_deadline():
    game = table(SeatSpec("human"), SeatSpec("human"), timeout=60)
    for event in decide(game, Join("bo", "Bo", "c")):
        apply_event(game, game.version + 1, event, AT)
    seat = game.seat_to_move()
    started = due(game, [TurnStarted(seat)])
    assert jobs(started) == ["notify", "turn_deadline"]
    assert next(d for d in started if d.job == "notify").args == (game.seats[seat].player_id, "your_turn")
    deadline = next(d for d in started if d.job == "turn_deadline")
    assert deadline.at == datetime.fromisoformat(AT.replace("Z", "+00:00")) + timedelta(seconds=60)
    assert jobs(due(game)) == ["turn_deadline"]  # a look again: no second notice


def test_a_won_round_and_a_finished_game_tell_every_human():
    game = table(SeatSpec("human"), SeatSpec("ai", "greedy"))
    assert ("notify", ("ana", "round_over")) in [(d.job, d.args) for d in due(game, [RoundWon(0, Color.RED)])]
    finished = due(game, [GameFinished(0, Finish.TARGET_REACHED)])
    assert ("notify", ("ana", "game_finished")) in [(d.job, d.args) for d in finished]


def test_job_ids_name_the_job_the_game_and_the_version():
    item = Due("notify", "g_1", 12, ("p_1", "your_turn"))
    assert item.job_id("red7") == "red7-notify-g_1-12-p_1-your_turn"
    assert item.job_id_prefix("red7") == "red7-notify-g_1-"


def test_a_job_plays_on_only_into_a_quick_ai_and_only_without_a_pause():
    quick = table(SeatSpec("ai", "greedy"), SeatSpec("ai", "random"))
    slow = table(SeatSpec("ai", "expert"), SeatSpec("ai", "expert"))
    assert quick_turn(quick) and plays_on(quick, 0.0) and not plays_on(quick, 1.5)
    assert not quick_turn(slow) and not plays_on(slow, 0.0)
    assert not quick_turn(table(SeatSpec("human"), SeatSpec("ai", "greedy")))  # waits for nobody's job yet


def test_a_job_plays_on_into_an_expert_only_if_it_thinks_within_half_the_agendas_look():
    slow = table(SeatSpec("ai", "expert"), SeatSpec("ai", "expert"))
    assert play_on_levels(1.0, 3.0) == QUICK_LEVELS | {"expert"}
    assert play_on_levels(1.5, 3.0) == QUICK_LEVELS | {"expert"}
    assert play_on_levels(1.6, 3.0) == QUICK_LEVELS
    assert plays_on(slow, 0.0, play_on_levels(1.0, 3.0)) and not plays_on(slow, 0.0, play_on_levels(4.0, 3.0))
    assert not plays_on(slow, 1.0, play_on_levels(1.0, 3.0))  # a pause between AI moves: each is queued at its time


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.sampled_from(["random", "greedy", "expert"]), min_size=1, max_size=3))
def test_while_a_game_is_on_exactly_one_move_is_due_and_never_after_it_ends(seed, levels):
    """Folding an all-AI game step by step: every position needs exactly one job that moves it (or none, at the end)."""
    game = table(*[SeatSpec("ai", level) for level in ["greedy", *levels]], seed=seed)
    while True:
        moves = [d for d in due(game) if d.job in ("ai_turn", "score_round", "turn_deadline")]
        if game.state.phase is Phase.FINISHED:
            assert moves == []
            return
        assert len(moves) == 1
        if moves[0].job == "ai_turn":
            seat = game.seat_to_move()
            events, _ = decide_steps(game.state, [legal_steps(game.state)[0].step], seat)
        else:
            from service.application.turns import round_end  # the scoring job's decision (pure)

            events = round_end(game.state)
        for event in events:
            apply_event(game, game.version + 1, event, AT)


class Recording:
    """A job system that remembers what the application handed it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def before_append(self, game_id):
        self.calls.append(("before", game_id))
        return 41

    def after_append(self, game, items, mark, *, playing_on=False, request_id=None):
        self.calls.append(("after", (game.version, [i.job for i in items], mark, playing_on)))

    def reoffer(self, game, items, seen=None):
        self.calls.append(("reoffer", [i.job for i in items]))
        return False

    def turn_finished(self, game, version):
        return []

    def offer_place(self, game, items):
        return False


def service(followups=None) -> GameService:
    server = fakeredis.FakeServer()
    text = fakeredis.FakeRedis(server=server, decode_responses=True)
    return GameService(EventStore(text, "t:"), PlayerStore(text, "t:"), followups=followups)


def test_an_append_the_agenda_times_is_noted_before_it_and_handed_over_once_with_its_mark():
    recording = Recording()
    games = service(recording)
    ana = games.players.create("Ana", AT)[0]
    game = games.create(ana, NewGame([SeatRequest("ai", "greedy"), SeatRequest("ai", "greedy")], seed=5)).game
    assert recording.calls == [("before", game.id), ("after", (game.version, ["ai_turn"], 41, False))]


def test_a_clocked_turn_is_noted_before_its_append():
    recording = Recording()
    games = service(recording)
    ana, bo = (games.players.create(name, AT)[0] for name in ("Ana", "Bo"))
    game = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("human")], seed=5, turn_timeout=600)).game
    recording.calls.clear()
    game = games.join(game.id, bo, game.join_code).game
    assert recording.calls[0] == ("before", game.id)
    assert "turn_deadline" in recording.calls[1][1][1] and recording.calls[1][1][2] == 41


def test_a_game_waiting_on_its_players_alone_is_not_noted_and_its_notices_are_still_handed_over():
    recording = Recording()
    games = service(recording)
    ana, bo = (games.players.create(name, AT)[0] for name in ("Ana", "Bo"))
    game = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("human")], seed=5)).game
    game = games.join(game.id, bo, game.join_code).game
    assert game.status == "active"
    assert [kind for kind, _ in recording.calls] == ["after", "after"]  # no mark: nothing to time before or after
    assert recording.calls[-1][1] == (game.version, ["notify"], None, False)  # "your turn" all the same


def test_an_append_that_ends_what_the_agenda_timed_is_noted_so_it_drops_the_look():
    """An AI's turn played, the game waits on a person without a clock: noted for the look the AI's turn had."""
    recording = Recording()
    games = service(recording)
    ana = games.players.create("Ana", AT)[0]
    for seed in range(40):
        game = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("ai", "greedy")], seed=seed)).game
        if game.seat_to_move() == 1:
            break
    recording.calls.clear()
    after = games.advance(game.id, game.version, lambda g: decide_steps(g.state, [legal_steps(g.state)[0].step], 1)[0], by="ai:1")
    assert after is not None and recording.calls[0] == ("before", game.id)
    assert recording.calls[1][1][2] == 41


def test_noted_is_what_the_agenda_times_before_or_after():
    waiting = table(SeatSpec("human"), SeatSpec("human"))
    ai = table(SeatSpec("ai", "random"), SeatSpec("ai", "greedy"))
    assert not noted(waiting, []) and not noted(waiting, [Due("notify", "g_1", 3, ("ana", "your_turn"))])
    assert noted(waiting, due(ai)) and noted(ai, [])
    assert noted(waiting, [Due("notify", "g_1", 3, ("ana", "turn_reminder"), at=datetime(2026, 11, 26))])


def test_a_job_that_plays_on_says_so_to_the_job_system():
    recording = Recording()
    games = service(recording)
    ana = games.players.create("Ana", AT)[0]
    game = games.create(ana, NewGame([SeatRequest("ai", "greedy"), SeatRequest("ai", "greedy")], seed=5)).game
    seat = game.seat_to_move()
    after = games.advance(
        game.id,
        game.version,
        lambda g: decide_steps(g.state, [legal_steps(g.state)[0].step], seat)[0],
        by=f"ai:{seat}",
        playing_on=True,
    )
    assert after is not None and recording.calls[-1][1][3] is True
    assert games.advance(game.id, game.version, lambda g: [], by="ai:0") is None  # moved on: a twin appends nothing


def test_the_application_runs_without_a_job_system():
    games = service()
    assert isinstance(games.followups, NoFollowUps)
    ana = games.players.create("Ana", AT)[0]
    game = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("ai", "random")], seed=1)).game
    assert games.load(game.id).version == game.version


# --- abort and rematch: who is told, and what is left to do ---------------------------------------------------------


def two_humans(*, timeout: int | None = 60) -> Game:
    game = table(SeatSpec("human"), SeatSpec("human"), SeatSpec("ai", "greedy"), timeout=timeout)
    for event in decide(game, Join("bo", "Bo", "c")):
        apply_event(game, game.version + 1, event, AT)
    return game


def fold_in(game: Game, *events) -> Game:
    for event in events:
        apply_event(game, game.version + 1, event, AT)
    return game


def notices(items: list[Due]) -> list[tuple[str, str]]:
    return sorted(d.args for d in items if d.job == "notify")


def test_an_aborted_game_needs_nothing_more_and_its_other_players_are_told():
    from service.domain.lobby import GameAborted

    game = two_humans()
    assert "turn_deadline" in jobs(due(game)) or "ai_turn" in jobs(due(game))
    fold_in(game, GameAborted(1))
    assert jobs(due(game)) == ["compact"]  # no turn, no deadline, no AI: nothing is played any more; compacted in time
    assert notices(due(game, [GameAborted(1)])) == [("ana", "game_aborted")]


def test_a_rematch_offer_is_told_to_the_players_yet_to_answer_and_a_decline_to_the_others():
    from service.domain.lobby import RematchDeclined, RematchOffered, RematchStarted

    game = two_humans(timeout=None)
    fold_in(game, GameFinished(0, Finish.TARGET_REACHED))
    fold_in(game, RematchOffered(1))
    assert notices(due(game, [RematchOffered(1)])) == [("ana", "rematch_offered")]
    declined = fold_in(game.copy(), RematchDeclined(0))
    assert notices(due(declined, [RematchDeclined(0)])) == [("bo", "rematch_declined")]
    fold_in(game, RematchOffered(0, "g_next"))
    assert notices(due(game, [RematchOffered(0, "g_next")])) == []  # agreed: the rematch's own notices follow
    assert [(d.job, d.version) for d in due(game)] == [("start_rematch", game.version), ("compact", game.version)]
    assert jobs(due(fold_in(game, RematchStarted("g_next")))) == ["compact"]


def test_a_rematch_tells_each_of_its_players_that_it_started():
    from service.domain.lobby import GameCreated

    game = Game("g_next")
    command = SetUp(
        "bo",
        "Bo",
        (SeatSpec("human"), SeatSpec("human")),
        Variant.ADVANCED,
        False,
        None,
        "fold",
        3,
        "c",
        origin="rematch",
        rematch_of="g_1",
        seated=((1, "ana", "Ana"),),
    )
    events = decide(game, command)
    fold_in(game, *events)
    assert isinstance(events[0], GameCreated)
    assert ("ana", "rematch_started") in notices(due(game, events)) and ("bo", "rematch_started") in notices(due(game, events))


def test_a_match_found_is_a_notice_pushed_as_well():
    from service.application.followups import PUSHED, match_found

    notice = match_found("g_1", 3, "p_1")
    assert notice == Due("notify", "g_1", 3, ("p_1", "match_found")) and "match_found" in PUSHED


def test_reads_of_a_quiet_game_re_offer_each_version_once_a_while_per_process(monkeypatch):
    """A quiet game polled many times a second is re-offered once per ``recover_after`` seconds and version in a
    process (what the last re-offer queued is on its way); a new version, or the time gone by, re-offers again, and a
    re-offer that failed is tried by the next read."""
    recording = Recording()
    games = service(recording)
    ana = games.players.create("Ana", AT)[0]
    game = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("ai", "greedy")], seed=5)).game
    quiet = game.copy()
    quiet.updated_at = "2020-01-01T00:00:00.000Z"
    now = [1000.0]
    monkeypatch.setattr("service.application.games.time.monotonic", lambda: now[0])

    def reoffers() -> int:
        return sum(1 for kind, _ in recording.calls if kind == "reoffer")

    for _ in range(5):
        games.ensure_progress(quiet)
    assert reoffers() == 1
    now[0] += games.recover_after - 0.1
    games.ensure_progress(quiet)
    assert reoffers() == 1
    now[0] += 0.2  # recover_after since the last re-offer
    games.ensure_progress(quiet)
    assert reoffers() == 2
    later = quiet.copy()
    later.version += 1
    games.ensure_progress(later)  # another version: re-offered at once
    assert reoffers() == 3

    class Down(Recording):
        def reoffer(self, game, items, seen=None):
            raise RuntimeError("the queue's Redis is down")

    games.followups = Down()
    other = quiet.copy()
    other.id = "another"
    games.ensure_progress(other)  # logged, not remembered
    games.followups = recording
    games.ensure_progress(other)
    assert reoffers() == 4
