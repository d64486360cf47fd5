"""Issue 39's acceptance Swiss: 64 players at tables of three, five rounds, correspondence at a day a turn, played on a
simulated clock with the real job code (``workers.jobs``, as a ``red7 worker`` runs it) over fakeredis and the real
Redis.  Every round seats every active player once, nobody meets a player twice (the pairing can avoid it here), the
standings equal a recomputation from the games' own events, and every rated game reaches its ladder.

It takes about 40 s a backend on the shared 2-core machine (marked ``slow``)."""

from __future__ import annotations

import pytest

from tests.workers.test_tournaments import run, sixty_four_at_tables_of_three_hold, world  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow


def test_a_swiss_of_sixty_four_at_tables_of_three_over_five_rounds(world):  # noqa: F811 (the fixture)
    runtime, clock = world
    final, field = run(runtime, clock, 64, rounds=5, rated=True, variant="basic", days_per_turn=1)
    assert final.terms.time_control == "correspondence" and final.terms.days_per_turn == 1
    sixty_four_at_tables_of_three_hold(runtime, final, list(field))
