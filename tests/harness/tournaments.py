"""Driving tournaments in tests: a clock to move, settings made short, and a driver that plays every game of the
running round to its end with the real job code (``workers.jobs``), humans moving as a greedy AI would."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from service.domain.ai import choose_steps
from service.domain.tournaments import Settings
from service.runtime import Runtime
from workers import jobs

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


class Clock:
    """What time it is for the whole runtime: moved by the test, a millisecond on at each reading."""

    def __init__(self, at: datetime = START) -> None:
        self.at = at

    def __call__(self) -> datetime:
        self.at += timedelta(milliseconds=1)
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


def iso(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def terms(clock: Clock | datetime, **chosen: Any) -> Settings:
    """A tournament's settings with entries open now (the clock's, or the time given) and closing in an hour, as
    chosen otherwise."""
    at = clock if isinstance(clock, datetime) else clock.at
    values: dict[str, Any] = {
        "format": "swiss",
        "table_size": 3,
        "rounds": 2,
        "entries_open": iso(at),
        "entries_close": iso(at + timedelta(hours=1)),
        "min_players": 3,
        "max_players": 64,
    }
    values.update(chosen)
    return Settings(**values)


#: The jobs a game of a tournament needs to move on and end, by name (the others tell players, or compact).
PLAYING = ("ai_turn", "score_round", "tournament_game", "rate")


def play_round(
    runtime: Runtime, tournament_id: str, *, on_job: Callable[[str, str], None] | None = None, most: int = 20_000
) -> None:
    """Play every running game of the tournament's current round to its end: each human to move plays the greedy
    AI's steps, and every job a game needs (:func:`service.application.followups.due`) is run as a worker runs it."""
    service = runtime.tournaments
    assert service is not None
    t = service.load(tournament_id)
    current = t.current
    assert current is not None
    number = current.number
    for _ in range(most):
        t = service.load(tournament_id)
        rnd = t.rounds[number - 1]
        if rnd.closed and not any(_rate_due(runtime, table.game_id) for table in rnd.tables):
            return  # and every rated game of it on its ladder (a game may close the round before its own rate job ran)
        moved = False
        running = {table.game_id for table in rnd.running}
        for table in rnd.tables:
            game = runtime.games.load(table.game_id)
            seat = game.seat_to_move()
            if seat is not None and game.seats[seat].kind == "human" and not game.over:
                player = runtime.players.get(game.seats[seat].player_id or "")
                assert player is not None
                runtime.games.act(game.id, player, choose_steps(game, seat, "greedy", ()))
                moved = True
                continue
            for item in runtime.games.needs(game):
                if item.job not in PLAYING or item.at is not None:
                    continue
                if item.job == "rate" and runtime.ratings.applied(game):
                    continue  # done (the dispatcher asks the ladder too)
                if item.job == "tournament_game" and game.id not in running:
                    continue  # folded already, by another game's job
                result = jobs.JOBS[item.job](item.game_id, item.version, *item.args)
                if on_job is not None:
                    on_job(item.job, str(result))
                moved = True
        assert moved, f"round {number} stands still: nothing to move in {[x.game_id for x in rnd.running]}"
    raise AssertionError(f"round {number} did not end in {most} steps")


def _rate_due(runtime: Runtime, game_id: str) -> bool:
    game = runtime.games.load(game_id)
    return any(item.job == "rate" for item in runtime.games.needs(game)) and not runtime.ratings.applied(game)
