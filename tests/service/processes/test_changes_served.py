"""Views served without a read stay in step across processes, as production runs them: gunicorn's gevent workers and a
``red7 worker`` on the real Redis, each API process with its watch of game changes (service/storage/changes.py).

A player moves through one connection and looks through new ones, which gunicorn hands to whichever worker takes
them: every view asked for after a move was acknowledged shows that move, whichever process serves it and whatever
it held before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tests.harness.deployment import processes
from tests.harness.support import REAL_REDIS_SKIP, REAL_REDIS_URL, clean_real_redis

pytestmark = [pytest.mark.real_redis, pytest.mark.skipif(bool(REAL_REDIS_SKIP), reason=REAL_REDIS_SKIP or "")]


def _view(base: str, game_id: str, token: str) -> dict:
    with requests.Session() as fresh:  # a new connection: any worker of gunicorn's may take it
        answer = fresh.get(f"{base}/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_every_view_after_an_acknowledged_move_shows_it_whichever_process_serves_it(tmp_path: Path) -> None:
    import redis

    assert REAL_REDIS_URL is not None
    with processes(tmp_path, REAL_REDIS_URL) as started:
        try:
            base = started.api(workers=3)
            started.worker()
            mover = requests.Session()
            ana = mover.post(f"{base}/v1/players", json={"name": "Ana"}, timeout=10).json()
            bo = mover.post(f"{base}/v1/players", json={"name": "Bo"}, timeout=10).json()
            tokens = {ana["id"]: ana["token"], bo["id"]: bo["token"]}
            seats = [{"kind": "human"}, {"kind": "human"}]
            auth = {"Authorization": f"Bearer {ana['token']}"}
            game = mover.post(f"{base}/v1/games", json={"seats": seats, "seed": 21}, headers=auth, timeout=10).json()
            joined = mover.post(
                f"{base}/v1/games/{game['id']}/join",
                json={"code": game["join_code"]},
                headers={"Authorization": f"Bearer {bo['token']}"},
                timeout=10,
            )
            assert joined.status_code == 200, joined.text
            moves = 0
            for _ in range(300):  # bounded: a round's scoring is looked at again until the worker has done it
                if moves >= 60:
                    break
                views = {player: _view(base, game["id"], token) for player, token in tokens.items()}
                # Polls through other connections, before the move: each worker holds the game.  The worker may move
                # it meanwhile (a round's scoring and the next deal), so a poll may show a later version, never an
                # earlier one than a view already shown: what one process showed, every other shows from then on.
                for _ in range(4):
                    for player, token in tokens.items():
                        polled = _view(base, game["id"], token)
                        assert polled["version"] >= views[player]["version"]
                        views[player] = polled
                if len({v["version"] for v in views.values()}) > 1:
                    continue  # the game moved between the two players' polls: look again
                movers = [p for p, v in views.items() if v["legal_steps"]]
                if views[ana["id"]]["status"] == "finished" or not movers:
                    if views[ana["id"]]["status"] == "finished":
                        break
                    continue  # a round's scoring: the worker's job
                player = movers[0]
                steps = views[player]["legal_steps"]
                step = next((s for s in steps if s["can_win"] and s["type"] != "fold"), steps[0])
                choice = {k: step[k] for k in ("type", "card", "seat", "to") if k in step}
                acted = mover.post(
                    f"{base}/v1/games/{game['id']}/actions",
                    json={"steps": [choice]},
                    headers={"Authorization": f"Bearer {tokens[player]}", "If-Match": f'"{views[player]["version"]}"'},
                    timeout=10,
                )
                assert acted.status_code == 200, acted.text
                version = acted.json()["version"]
                for _ in range(4):
                    for token in tokens.values():
                        assert _view(base, game["id"], token)["version"] >= version  # never behind the move
                moves += 1
            assert moves >= 10
            assert "Traceback" not in started.logs()
        finally:
            with redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True) as client:
                clean_real_redis(client, started.prefix)
