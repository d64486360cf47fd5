"""Issue 39's acceptance Swiss on the production shape: 64 players at tables of three, five rounds, correspondence at a
day a turn, run by two real ``red7 worker`` processes on a real redis-server, on a clock they share with the test.

Every process of the test reads its time as the wall clock plus the offset at ``RED7_CLOCK_OFFSET_KEY`` in the
stores' Redis (service/storage/clock.py); the test moves it on past the entries' close and between rounds.  Nothing
but the workers runs a job: the first round is started by a worker's ticker once the shared clock passes the close
(the wall clock is still an hour short of it), every later round by the job that folds its last game, and the AI
seats, the scoring and the ratings by the workers' jobs.  The test plays the humans (as the greedy AI would, straight
through the application, as a request does) and checks what the in-process acceptance checks
(tests/workers/test_tournament_acceptance.py): every round seats every active player once, nobody meets a player
twice (the pairing can avoid it here), the standings equal a recomputation from the games' own events, and every
rated game reaches its ladder.  About a minute on the shared 2-core machine.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from service.common.config import Settings
from service.common.errors import Refused
from service.domain import tournaments as rules
from service.domain.ai import choose_steps
from service.runtime import Runtime, build_runtime
from service.storage.clock import OffsetClock
from tests.harness.deployment import Processes, wait_until
from tests.harness.tournaments import terms
from tests.workers.test_tournaments import sixty_four_at_tables_of_three_hold

#: Longest a round may take to be played out (it takes a few seconds).
ROUND_SECONDS = 90


def play_humans(runtime: Runtime, tournament_id: str, number: int) -> None:
    """Play every human turn of round ``number``'s games until the round is closed and its rated games are on their
    ladders; everything else is the workers' doing."""
    service = runtime.tournaments
    assert service is not None
    until = time.monotonic() + ROUND_SECONDS
    while time.monotonic() < until:
        rnd = service.load(tournament_id).rounds[number - 1]
        if rnd.closed and all(runtime.ratings.applied(runtime.games.load(t.game_id)) for t in rnd.tables):
            return
        moved = False
        for table in rnd.running:
            if not runtime.games.store.exists(table.game_id):
                continue  # its worker is still making the round's games
            game = runtime.games.load(table.game_id)
            seat = game.seat_to_move()
            if seat is None or game.over or game.seats[seat].kind != "human":
                continue
            player = runtime.players.get(game.seats[seat].player_id or "")
            assert player is not None
            try:
                runtime.games.act(game.id, player, choose_steps(game, seat, "greedy", ()), expected_version=game.version)
                moved = True
            except Refused:
                continue  # a worker's append came first (a version moved on): read again
        if not moved:
            time.sleep(0.02)
    raise AssertionError(f"round {number} was not played out in {ROUND_SECONDS} s")


def test_a_swiss_of_sixty_four_over_five_rounds_run_by_two_workers_on_a_shared_clock(deployment: Processes, server) -> None:
    key = f"{deployment.prefix}clock"
    workers = [deployment.worker(name, RED7_CLOCK_OFFSET_KEY=key) for name in ("left", "right")]
    settings = Settings.from_env({**deployment.env, "RED7_CLOCK_OFFSET_KEY": key})
    runtime = build_runtime(settings)
    clock = runtime.clock
    assert isinstance(clock, OffsetClock), "the setting gives the runtime the shared clock"
    clock.advance(days=30)  # a month on from the wall clock: the workers' time only ever comes from the shared one
    service = runtime.tournaments
    assert service is not None
    for worker in workers:
        deployment.wait_listening(worker)

    count = 64
    organiser, *field = [runtime.accounts.sign_up(f"Player {n}").player for n in range(count + 1)]
    chosen = terms(
        clock(), rounds=5, max_players=count, rated=True, variant="basic", time_control="correspondence", days_per_turn=1
    )
    made, _ = service.create(organiser, "Processes", chosen)
    for player in field:
        service.join(made.id, player)
    time.sleep(1.5)
    assert service.load(made.id).started == 0, "no worker starts a round before the shared clock reaches the close"
    clock.advance(hours=1, minutes=1)
    wait_until(lambda: service.load(made.id).started == 1, 30, "a worker's ticker starts round 1 on the shared clock")

    for number in range(1, 6):
        wait_until(lambda n=number: service.load(made.id).started >= n, 30, f"round {number} started by a worker")
        play_humans(runtime, made.id, number)
        clock.advance(hours=6)  # time passes between rounds for every process (well inside a turn's day)

    final = service.load(made.id)
    assert final.finished == "completed" and final.started == 5
    assert final.terms.time_control == "correspondence" and final.terms.days_per_turn == 1
    opened = rules.settings.parse_time(made.terms.entries_close)
    assert opened > datetime.now(UTC) + timedelta(days=29), "the close is a month past the wall clock"
    first = final.rounds[0].tables[0].game_id
    created = runtime.games.load(first).created_at
    assert rules.settings.parse_time(created) >= opened, "the worker made round 1's games on the shared clock"
    sixty_four_at_tables_of_three_hold(runtime, final, [p.id for p in field])
    assert all(worker.poll() is None for worker in workers), deployment.logs()
