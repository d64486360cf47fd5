"""A long-poll of the view: ``GET /v1/games/{id}?wait=N`` with If-None-Match holding the version the client has.

One request where a client waiting for the table to change made two (the events' long-poll, then the view): the new
view as soon as the game moves on, or 304 when the wait is over.
"""

from __future__ import annotations

import threading
import time

import pytest

from engine import Fold
from service.domain.game import Game, apply, decode
from service.http.app import create_app
from service.runtime import build_runtime
from service.storage.players import hash_token
from tests.harness.deployment import wait_until
from tests.harness.support import Api, settings_for
from tests.service.http.test_api_games import DECK, two_humans
from tests.service.http.test_leaks import current_secrets, scan_view


def waited(api, game_id: str, token: str | None, version: int, wait: float):
    """The view long-polled from ``version``, and how long it took."""
    started = time.monotonic()
    response = api.call("GET", f"/v1/games/{game_id}?wait={wait}", token, headers={"If-None-Match": f'"{version}"'})
    return response, time.monotonic() - started


def fold_later(api, game_id: str, token: str, after: float) -> threading.Thread:
    def move() -> None:
        time.sleep(after)
        api.runtime.games.act(game_id, api.runtime.players.by_token(token), [Fold()])

    mover = threading.Thread(target=move)
    mover.start()
    return mover


@pytest.mark.every_store
def test_the_new_view_comes_as_soon_as_the_game_moves_on(api):
    ana, bo, game = two_humans(api, deck=DECK)
    version = game["version"]
    mover = [ana, bo][game["turn"]["seat"]]
    folding = fold_later(api, game["id"], mover["token"], 0.3)
    response, took = waited(api, game["id"], ana["token"], version, 10)
    folding.join()
    view = response.get_json()
    assert response.status_code == 200 and view["version"] > version and response.headers["ETag"] == f'"{view["version"]}"'
    assert 0.25 < took < 4, took
    assert view == api.view(game["id"], ana["token"]), "the view a plain GET gives (the same redaction)"


@pytest.mark.every_store
def test_304_when_nothing_happens_until_the_wait_is_over(api):
    ana, _, game = two_humans(api)
    response, took = waited(api, game["id"], ana["token"], game["version"], 0.5)
    assert response.status_code == 304 and response.get_data() == b"" and "Content-Type" not in response.headers
    assert response.headers["ETag"] == f'"{game["version"]}"' and response.headers["Cache-Control"] == "private"
    assert 0.45 <= took < 3, took


def test_a_view_the_client_does_not_hold_is_answered_at_once(api):
    """No If-None-Match, or one naming an older version: the view now, without waiting."""
    ana, _, game = two_humans(api, deck=DECK)
    started = time.monotonic()
    plain = api.call("GET", f"/v1/games/{game['id']}?wait=10", ana["token"])
    assert plain.status_code == 200 and plain.get_json()["version"] == game["version"]
    older, _ = waited(api, game["id"], ana["token"], game["version"] - 1, 10)
    assert older.status_code == 200 and older.get_json()["version"] == game["version"]
    assert time.monotonic() - started < 2


def test_a_game_that_is_over_is_not_waited_on(api):
    ana, bo, game = two_humans(api, variant="basic", seed=3)
    mover = [ana, bo][game["turn"]["seat"]]
    api.act(game["id"], mover["token"], [{"type": "fold"}])
    final = api.view(game["id"], ana["token"])
    assert final["status"] == "finished"
    response, took = waited(api, game["id"], ana["token"], final["version"], 10)
    assert response.status_code == 304 and took < 2, took


def test_a_spectator_waits_too_and_sees_no_hand(api):
    ana, bo, game = two_humans(api, deck=DECK)
    mover = [ana, bo][game["turn"]["seat"]]
    folding = fold_later(api, game["id"], mover["token"], 0.2)
    response, _ = waited(api, game["id"], None, game["version"], 10)
    folding.join()
    assert response.status_code == 200
    view = response.get_json()
    assert "you" not in view
    folded = Game(game["id"])
    for stored in api.runtime.store.read_all(game["id"]):
        apply(folded, stored.number, decode(stored.payload))
    scan_view(view, current_secrets(folded, 2)[None])


@pytest.mark.every_store
def test_each_player_waiting_is_shown_their_own_hand_alone(api):
    ana, bo, game = two_humans(api, deck=DECK)
    player_to_move = [ana, bo][game["turn"]["seat"]]
    answers: dict[str, dict] = {}

    def wait_as(who: dict) -> None:
        response, _ = waited(api, game["id"], who["token"], game["version"], 10)
        assert response.status_code == 200
        answers[who["token"]] = response.get_json()

    waiting = [threading.Thread(target=wait_as, args=(who,)) for who in (ana, bo)]
    for thread in waiting:
        thread.start()
    time.sleep(0.3)
    api.act(game["id"], player_to_move["token"], [{"type": "fold"}])
    for thread in waiting:
        thread.join(10)
    folded = Game(game["id"])
    for stored in api.runtime.store.read_all(game["id"]):
        apply(folded, stored.number, decode(stored.payload))
    secrets = current_secrets(folded, 2)
    for seat, who in enumerate((ana, bo)):
        view = answers[who["token"]]
        assert view["you"]["seat"] == seat
        scan_view(view, secrets[seat])


def test_the_wait_is_validated(api):
    ana, _, game = two_humans(api)
    for query in ("wait=61", "wait=-1", "wait=x", "wait="):
        response = api.call("GET", f"/v1/games/{game['id']}?{query}", ana["token"], headers={"If-None-Match": '"1"'})
        assert response.status_code == 422, (query, response.status_code)
        assert response.get_json()["errors"][0]["location"] == "query"


def test_the_wait_is_read_beside_other_query_parameters(api):
    """The query is parsed only when there is one: ``wait`` after ``lang`` still waits (and is still validated), and a
    query without ``wait`` answers at once."""
    ana, _, game = two_humans(api)
    held = {"If-None-Match": f'"{game["version"]}"'}
    started = time.monotonic()
    response = api.call("GET", f"/v1/games/{game['id']}?lang=pl&wait=0.5", ana["token"], headers=held)
    assert response.status_code == 304 and 0.45 <= time.monotonic() - started < 3
    bad = api.call("GET", f"/v1/games/{game['id']}?lang=pl&wait=61", ana["token"], headers=held)
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["location"] == "query"
    started = time.monotonic()
    polish = api.call("GET", f"/v1/games/{game['id']}?lang=pl", ana["token"], headers=held)
    assert polish.status_code == 304 and time.monotonic() - started < 0.4


def test_the_wait_is_documented_as_the_route_reads_it(api):
    document = api.call("GET", "/v1/openapi.json").get_json()
    parameters = {p["name"]: p for p in document["paths"]["/v1/games/{game_id}"]["get"]["parameters"] if "name" in p}
    wait = parameters["wait"]
    assert wait["in"] == "query" and wait["schema"]["minimum"] == 0 and wait["schema"]["maximum"] == 60
    assert "If-None-Match" in wait["description"] and "If-None-Match" in parameters


def test_a_waiting_view_holds_one_of_its_tokens_open_waits(api):
    """It holds a connection as the events' long-poll does, under the same caps (tests/service/http/test_open_waits.py)."""
    ana, _, game = two_humans(api)
    waits = api.client.application.extensions["red7_waits"]
    digest = hash_token(ana["token"])
    seen: list[int] = []

    def count() -> None:
        time.sleep(0.3)
        seen.append(waits.open_for(digest))

    counter = threading.Thread(target=count)
    counter.start()
    response, _ = waited(api, game["id"], ana["token"], game["version"], 1)
    counter.join()
    assert response.status_code == 304
    assert seen == [1] and waits.open_for(digest) == 0


def test_a_waiting_view_replaced_by_the_tokens_newer_wait_answers_at_once(redis_pair, key_prefix):
    """A token at its cap (here one wait): its newer wait takes the slot, and the view waiting answers what there is."""
    runtime = build_runtime(settings_for(key_prefix, max_waits_per_token=1, long_poll_max=30.0), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    ana, _, game = two_humans(api)
    answers: list[tuple[int, float]] = []

    def wait_long() -> None:
        response, took = waited(api, game["id"], ana["token"], game["version"], 20)
        answers.append((response.status_code, took))

    first = threading.Thread(target=wait_long)
    first.start()
    waits = api.client.application.extensions["red7_waits"]
    wait_until(lambda: waits.open_for(hash_token(ana["token"])) == 1, 5, "the first wait")
    second, _ = waited(api, game["id"], ana["token"], game["version"], 0.5)
    first.join(10)
    assert second.status_code == 304
    assert answers and answers[0][0] == 304 and answers[0][1] < 5, answers
