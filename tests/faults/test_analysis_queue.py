"""A decision analysis running on a worker delays no game (issue 23).

One `red7 worker` only.  Ana asks for the analysis of a finished 3-player game of random AIs (advanced, with the
action rules: a hundred decisions and more, tens of seconds of a core); while it runs, Bo's all-AI game plays on.
Had the analyses shared the games' queue and its runners, Bo's AI turns would wait behind it.
"""

from __future__ import annotations

import itertools
from datetime import datetime

from tests.deployment import Client, stream_events, wait_until

AI_GAP_BOUND = 1.5  # seconds between two moves of an all-AI game (greedy and random decide in milliseconds)


def test_an_analysis_on_the_worker_delays_no_ai_turn(deployment, server):
    base = deployment.api()
    deployment.worker()
    ana, bo = Client(base).sign_up("Ana"), Client(base).sign_up("Bo")
    text = server.client()

    def finished(game_id: str) -> bool:
        events = stream_events(text, deployment.prefix, game_id)
        return bool(events) and events[-1]["type"] == "game_finished"

    seats = [{"kind": "ai", "level": "random"}] * 3
    analysed = ana.json("POST", "/games", expect=201, json={"seats": seats, "action_rules": True, "seed": 4})
    wait_until(lambda: finished(analysed["id"]), 60, "the game to analyse finishes", every=0.2)

    asked = ana.json("POST", f"/games/{analysed['id']}/analysis", expect=202)
    assert asked["status"] == "queued"
    path = f"/games/{analysed['id']}/analysis"
    wait_until(lambda: ana.json("GET", path)["status"] == "running", 30, "the analysis starts", every=0.1)

    watched = bo.json(
        "POST", "/games", expect=201, json={"seats": [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]}
    )
    wait_until(lambda: finished(watched["id"]), 60, "the all-AI game finishes", every=0.2)
    during = ana.json("GET", path)
    assert during["status"] == "running", "the analysis was over before the game: the test proves nothing"

    moves = [
        datetime.fromisoformat(e["at"].replace("Z", "+00:00")).timestamp()
        for e in stream_events(text, deployment.prefix, watched["id"])
    ]
    gap = max(b - a for a, b in itertools.pairwise(moves))
    done = wait_until(lambda: (a := ana.json("GET", path))["status"] == "done" and a, 300, "the analysis ends", every=0.5)
    decisions = len(done["result"]["decisions"])
    print(
        f"\nwhile the worker analysed {decisions} decisions (at {during['progress']['done']} of "
        f"{during['progress']['total']} when it ended), the all-AI game's longest wait between two moves was {gap:.2f} s"
    )
    assert gap <= AI_GAP_BOUND
    assert done["progress"]["done"] == decisions
    assert not ana.server_errors() and not bo.server_errors()
