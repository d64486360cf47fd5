"""Conflicting writes are detected, never merged; retried writes are applied once."""

from __future__ import annotations

import json
import threading

import pytest

from service.domain.game import decode
from tests.service.http.test_api_games import DECK, two_humans

#: Atomic appends under real concurrency: on a real server too, not only the in-memory one.
pytestmark = pytest.mark.every_store


def race(api, game_id, token, bodies, headers_for):
    """Send every body at once, one thread (and one test client) each; return the responses."""
    barrier = threading.Barrier(len(bodies))
    responses = [None] * len(bodies)

    def send(i: int) -> None:
        client = api.client.application.test_client()
        barrier.wait()
        responses[i] = client.post(
            f"/v1/games/{game_id}/actions",
            json=bodies[i],
            headers={"Authorization": f"Bearer {token}", **headers_for(i)},
        )

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return responses


def stored_types(api, game_id):
    return [decode(e.payload)["type"] for e in api.runtime.store.read(game_id)]


def test_twenty_conflicting_actions_for_one_turn_exactly_one_is_accepted(api):
    ana, _, game = two_humans(api, deck=DECK)
    version = game["version"]
    hand = ["R6", "O5", "V5", "G4", "B3", "Y2", "I1"]
    bodies = [{"steps": [{"type": "play", "card": hand[i % 7]}, {"type": "end_turn"}]} for i in range(20)]
    responses = race(api, game["id"], ana["token"], bodies, lambda i: {"If-Match": f'"{version}"'})
    statuses = sorted(r.status_code for r in responses)
    assert statuses.count(200) == 1 and statuses.count(409) == 19, statuses
    assert all(r.get_json()["code"] == "version_conflict" for r in responses if r.status_code == 409)
    types = stored_types(api, game["id"])
    assert types.count("card_played") == 1
    winner = next(r for r in responses if r.status_code == 200).get_json()
    assert winner["version"] == len(types)


def test_twenty_retries_of_one_idempotent_request_append_once_and_agree(api):
    ana, _, game = two_humans(api, deck=DECK)
    body = {"steps": [{"type": "discard", "card": "G4"}]}
    responses = race(api, game["id"], ana["token"], [body] * 20, lambda i: {"Idempotency-Key": "same-turn"})
    assert [r.status_code for r in responses] == [200] * 20
    assert len({json.dumps(r.get_json(), sort_keys=True) for r in responses}) == 1
    assert stored_types(api, game["id"]).count("card_discarded") == 1


def test_a_move_that_lost_the_race_to_another_process_leaves_no_trace_in_what_is_served(api, runtime):
    """Two web processes: the phone (another process) folds while the laptop, whose fold is behind, discards.

    The laptop's discard is decided on its stale fold, rendered, then loses the
    append; what the laptop serves afterwards must be the stored game only.
    """
    from engine import Fold
    from service.http.views import game_json
    from service.runtime import build_runtime

    three = {"kind": "human"}
    for seed in range(100):
        ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
        game = api.game(ana["token"], [three, three, three], seed=seed)
        for other in (bo, cy):
            api.call("POST", f"/v1/games/{game['id']}/join", other["token"], json={"code": game["join_code"]})
        view = api.view(game["id"], ana["token"])
        discards = [s for s in view["legal_steps"] if s["type"] == "discard"]
        if view["turn"]["seat"] == 0 and discards:
            break
    else:
        raise AssertionError("no deal where seat 0 starts with a discard")

    phone = build_runtime(runtime.settings, clients=(runtime.redis, runtime.raw_redis))
    phone.games.act(game["id"], phone.players.by_token(ana["token"]), [Fold()])  # the laptop's caches know nothing of it

    refused = api.act(game["id"], ana["token"], [{"type": "discard", "card": discards[0]["card"], "draw": False}])
    assert refused.status_code == 422 and refused.get_json()["code"] == "not_your_turn"
    served = api.call("GET", f"/v1/games/{game['id']}", ana["token"])
    truth = game_json(runtime.games.load(game["id"]), ana["id"])
    assert served.get_json() == truth
    assert served.get_json()["seats"][0]["in_round"] is False and served.headers["ETag"] == f'"{truth["version"]}"'
