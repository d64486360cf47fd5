"""A flood of analyses from one token: budgeted, served fairly, and no slower AI turns (issue 34).

The production shape: gunicorn (gevent, two processes), two `red7 worker`s with the defaults as shipped (one analyst
each, the analysis budget of 30 an hour a token), a redis-server with AOF.  Three all-AI tables play throughout; after
15 s of them alone, Fay's one token asks for 200 analyses at once (of six finished 3-player games with the action
rules: a minute of a core each), then Gus for one of his game.  Before, the 200 were all queued, Gus's waited behind
them for hours, and the analyses ran as threads of the workers: the all-AI games' largest gaps between two moves grew
eight times (issue 34).  Now:

- past its budget, Fay's token is answered 429 (``rate_limited``, with ``Retry-After``), and no more is queued;
- Gus's analysis starts within 10 s (Fay's running analysis holds her share; the other worker's analyst takes his);
- the median of the games' largest gaps and every gap's p99 stay within 1.5x of the run without the flood, or within
  30 ms of it: the gaps are read in whole milliseconds from the events on a CI machine whose other tests run beside,
  and a 20 ms median's 1.5x is below what that does to it;
- Gus's analysis (a small game's) ends, computed by a worker's analyst on the CPU the games leave idle.

``python -m bench.analysis_flood_bench`` is the longer run, with its figures.
"""

from __future__ import annotations

import time

from service.jobqueue.analysis_queue import LEASE_MS, AnalysisQueue
from tests.faults.flood import GAP_RATIO, SMALL, START_WITHIN, finished_games, run
from tests.harness.deployment import Client, wait_until

#: A game whose analysis lasts long enough to kill its worker during it: two random AIs, advanced, with the action
#: rules (about 70 decisions, half a minute of a core).
TWO_PLAYERS = {"seats": [{"kind": "ai", "level": "random"}] * 2, "variant": "advanced", "action_rules": True}

FLOOD = 200
#: A difference of gaps too small to tell from the machine's own noise (seconds).
NOISE = 0.03


def test_a_flood_of_analyses_is_budgeted_and_neither_delays_another_players_nor_slows_the_ais(deployment, server):
    base = deployment.api()
    for _ in range(2):
        deployment.wait_listening(deployment.worker())
    assert server.process is not None
    outcome = run(deployment, base, server.client(), server.process.pid, 15, 3, FLOOD, 6, gus_kind=SMALL)
    print("\n" + "\n".join(outcome.report()))

    flood = outcome.flood
    assert flood.answers == {202: outcome.budget, 429: FLOOD - outcome.budget}, flood.answers
    assert all(r["code"] == "rate_limited" and int(r["retry_after"]) > 0 for r in flood.refusals)
    assert flood.started_after is not None and flood.started_after <= START_WITHIN

    without, with_flood = outcome.without.gaps, outcome.with_flood.gaps
    for figure in ("largest_median", "every_p99"):
        before, during = getattr(without, figure), getattr(with_flood, figure)
        assert during <= max(GAP_RATIO * before, before + NOISE), (figure, before, during)

    gus = Client(base)
    done = wait_until(
        lambda: (a := gus.json("GET", f"/games/{outcome.gus_game}/analysis"))["status"] == "done" and a,
        120,
        "Gus's analysis ends once the tables stop",
        every=0.5,
    )
    assert done["result"]["decisions"] and done["progress"]["done"] == len(done["result"]["decisions"])


def test_an_analysis_whose_worker_is_killed_is_taken_over_by_another(deployment, server):
    """The workers as docker-compose.yml runs them: one for the games (``--kind games``) and two analysts (``--kind
    analyses``).  kill -9 of the analyst (its child with it) that runs an analysis: its lease lapses, and the other
    analyst takes the analysis over, from the start, within the lease and a few seconds."""
    base = deployment.api()
    deployment.wait_listening(deployment.worker(kind="games"))
    analysts = [deployment.worker("analyst", kind="analyses"), deployment.worker("analyst", kind="analyses")]
    text = server.client()
    (game_id,) = finished_games(base, text, deployment.prefix, 1, "maker", TWO_PLAYERS)
    fay = Client(base).sign_up("Fay")
    fay.json("POST", f"/games/{game_id}/analysis", expect=202)
    queue = AnalysisQueue(text, deployment.prefix)

    def analyst() -> str | None:
        """The analyst holding the analysis' lease (its name ends its holder's line), if one does."""
        holder = queue.redis.hget(queue.held_key, f"game:{game_id}")
        return str(holder).rsplit(" ", 1)[1] if holder else None

    first = wait_until(analyst, 60, "an analyst takes the analysis")
    running = [w for w in analysts if f"-{w.pid}-" in first]
    assert len(running) == 1, (first, [w.pid for w in analysts])
    deployment.kill_tree(running[0])
    killed = time.monotonic()
    second = wait_until(lambda: (a := analyst()) not in (None, first) and a, LEASE_MS / 1000 + 10, "another takes it")
    print(f"\nthe analysis was taken over {time.monotonic() - killed:.1f} s after its worker was killed (lease {LEASE_MS} ms)")
    assert f"-{next(w for w in analysts if w is not running[0]).pid}-" in second
    # the new holder says "running" once it has started (a moment after it took the lease), as a polling client sees
    status = wait_until(
        lambda: (s := fay.json("GET", f"/games/{game_id}/analysis")["status"]) in ("running", "done") and s, 10, "running", 0.5
    )
    assert status in ("running", "done")
    assert not fay.server_errors()
