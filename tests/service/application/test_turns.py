"""What the game's jobs decide (``service/application/turns.py``), on the application alone: an AI's turn decided and
appended once for its version, a round's end scored and dealt once, a turn that ran out timed out once; a job queued
for a version the game left appends nothing.  On fakeredis and the real Redis (the ``runtime`` fixture's backends)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine import Fold, GameState, Phase
from service.application.commands import NewGame, SeatRequest
from service.application.turns import AI_TURNS_PER_JOB, IllegalAIStep, round_end
from service.domain.game import Game, decode
from service.runtime import Runtime

HUMAN = SeatRequest("human")


def stored(runtime: Runtime, game_id: str) -> list[dict[str, Any]]:
    return [decode(e.payload) for e in runtime.store.read(game_id)]


def two_humans(runtime: Runtime, **options: Any) -> Game:
    ana, bo = runtime.accounts.sign_up("Ana").player, runtime.accounts.sign_up("Bo").player
    made = runtime.games.create(ana, NewGame(seats=[HUMAN, HUMAN], **options)).game
    assert made is not None
    joined = runtime.games.join(made.id, bo, code=made.join_code).game
    assert joined is not None and joined.status == "active"
    return joined


def later(seconds: float) -> Callable[[], datetime]:
    return lambda: datetime.now(UTC) + timedelta(seconds=seconds)


def test_an_ai_turn_is_decided_and_appended_once_for_its_version(runtime: Runtime) -> None:
    ana = runtime.accounts.sign_up("Ana").player
    game = runtime.games.create(ana, NewGame(seats=[SeatRequest("ai", "greedy"), HUMAN], seed=1)).game
    assert game is not None and game.seat_to_move() == 0, "with this seed the AI moves first"
    assert runtime.turns.ai_turn(game.id, game.version) == 1, "then the human is to move"
    after = stored(runtime, game.id)[game.version :]
    assert after and all(e["by"] == "ai:0" for e in after)
    assert runtime.games.load(game.id).seat_to_move() in (1, None)
    length = len(stored(runtime, game.id))
    assert runtime.turns.ai_turn(game.id, game.version) == 0, "the same job again: the game moved on"
    assert len(stored(runtime, game.id)) == length


def test_quick_ais_in_a_row_are_played_up_to_the_bound(runtime: Runtime) -> None:
    ana = runtime.accounts.sign_up("Ana").player
    seats = [SeatRequest("ai", "greedy"), SeatRequest("ai", "random"), SeatRequest("ai", "greedy"), SeatRequest("ai")]
    game = runtime.games.create(ana, NewGame(seats=seats, seed=3)).game
    assert game is not None
    assert runtime.turns.ai_turn(game.id, game.version) == AI_TURNS_PER_JOB
    authors = {e["by"] for e in stored(runtime, game.id)[game.version :]}
    assert len(authors) == AI_TURNS_PER_JOB


def test_an_ai_job_for_a_humans_turn_appends_nothing(runtime: Runtime) -> None:
    game = two_humans(runtime, seed=2)
    assert runtime.turns.ai_turn(game.id, game.version) == 0
    assert len(stored(runtime, game.id)) == game.version


def test_an_illegal_step_of_an_ai_is_refused_for_good(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    ana = runtime.accounts.sign_up("Ana").player
    game = runtime.games.create(ana, NewGame(seats=[SeatRequest("ai", "greedy"), HUMAN], seed=1)).game
    assert game is not None
    monkeypatch.setattr("service.application.turns.choose_steps", lambda *args, **kwargs: [Fold(), Fold()])
    with pytest.raises(IllegalAIStep, match="the greedy AI chose an illegal step"):
        runtime.turns.ai_turn(game.id, game.version)
    assert len(stored(runtime, game.id)) == game.version


def test_a_won_round_is_scored_and_the_next_dealt_once(runtime: Runtime) -> None:
    game = two_humans(runtime, seed=21)
    seat = game.seat_to_move()
    assert seat is not None
    mover = runtime.accounts.get(game.seats[seat].player_id or "")
    assert mover is not None
    won = runtime.games.act(game.id, mover, [Fold()]).game
    assert won is not None and won.state.phase is Phase.ROUND_WON
    assert runtime.turns.score_round(game.id, won.version)
    assert [e["type"] for e in stored(runtime, game.id)][-2:] == ["round_scored", "round_dealt"]
    length = len(stored(runtime, game.id))
    assert not runtime.turns.score_round(game.id, won.version), "a twin of the job: done already"
    assert len(stored(runtime, game.id)) == length
    assert runtime.games.load(game.id).state.round == 2


def test_the_round_end_decides_nothing_before_a_round_is_won() -> None:
    assert round_end(GameState()) == []


def test_a_turn_that_ran_out_times_out_once(runtime: Runtime) -> None:
    game = two_humans(runtime, turn_timeout=30, seed=2)
    slept: list[float] = []
    done = runtime.turns.time_out(game.id, game.version, clock=later(31), sleep=slept.append)
    assert done.outcome == "timed_out" and done.seat == game.seat_to_move() and done.action == "fold"
    assert slept == []
    events = stored(runtime, game.id)[game.version :]
    assert [e["type"] for e in events][:2] == ["turn_timed_out", "player_eliminated"]
    assert all(e["by"] == "system:deadline" for e in events)
    again = runtime.turns.time_out(game.id, game.version, clock=later(31), sleep=slept.append)
    assert again.outcome == "played", "the same job again: the game moved on"
    assert len(stored(runtime, game.id)) == game.version + len(events)


def test_a_deadline_far_ahead_appends_nothing_and_one_near_is_waited_for(runtime: Runtime) -> None:
    game = two_humans(runtime, turn_timeout=30, seed=2)
    slept: list[float] = []
    early = runtime.turns.time_out(game.id, game.version, clock=later(0), sleep=slept.append)
    assert early.outcome == "not_yet_due" and 20 < early.remaining <= 30
    assert slept == [] and len(stored(runtime, game.id)) == game.version
    near = runtime.turns.time_out(game.id, game.version, clock=later(29), sleep=slept.append)
    assert near.outcome == "timed_out" and len(slept) == 1 and 0 < slept[0] <= 1.0


def test_a_game_without_a_turn_limit_has_no_deadline(runtime: Runtime) -> None:
    game = two_humans(runtime, seed=2)
    assert runtime.turns.time_out(game.id, game.version, clock=later(3600), sleep=lambda _: None).outcome == "no_deadline"
