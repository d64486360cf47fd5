"""Caps on open waits: a token, and an address, hold only so many long-polls and streams open at once.

A token at its cap is not refused: its new wait takes the slot of its oldest, which ends.  (Closed clients, on
real sockets and both servers: tests/faults/test_closed_waits.py.)
"""

from __future__ import annotations

import threading
import time

import pytest

from service.http.app import create_app
from service.http.problems import ApiError
from service.http.waits import OpenWaits
from service.runtime import build_runtime
from service.storage.players import hash_token
from tests.harness.deployment import wait_until
from tests.harness.support import HUMAN, Api, settings_for


@pytest.fixture
def capped(redis_pair, key_prefix):
    settings = settings_for(key_prefix, max_waits_per_token=1, max_waits_per_address=2, long_poll_max=0.2)
    runtime = build_runtime(settings, clients=redis_pair)
    return Api(create_app(runtime), runtime)


def open_stream(api: Api, game_id: str, token: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.client.get(f"/v1/games/{game_id}/stream", headers=headers, buffered=False)


def test_a_token_at_its_cap_gets_the_slot_of_its_oldest_wait_which_ends(capped):
    """A client that lost its connections must never be locked out: its new wait replaces its oldest (429 before)."""
    api = capped
    ana = api.player("Ana")["token"]
    game = api.game(ana, [HUMAN, HUMAN])
    stream = open_stream(api, game["id"], ana)
    assert stream.status_code == 200
    auth = {"Authorization": f"Bearer {ana}"}
    poll = api.client.get(f"/v1/games/{game['id']}/events?after={game['version']}&wait=0.2", headers=auth)
    assert poll.status_code == 200, poll.get_json()  # it takes the stream's slot
    body = b"".join(stream.response).decode()  # (one thread: the stream is read after the poll, which has ended)
    assert body.endswith("event: replaced\ndata: {}\n\n"), body  # the stream ends, saying why
    stream.close()
    again = open_stream(api, game["id"], ana)
    assert again.status_code == 200
    again.close()


def test_a_replaced_long_poll_answers_at_once_with_what_there_is(redis_pair, key_prefix):
    settings = settings_for(key_prefix, max_waits_per_token=1, long_poll_max=30.0)
    runtime = build_runtime(settings, clients=redis_pair)
    app = create_app(runtime)
    api = Api(app, runtime)
    ana = api.player("Ana")["token"]
    game = api.game(ana, [HUMAN, HUMAN])
    auth = {"Authorization": f"Bearer {ana}"}
    answered: dict[str, object] = {}

    def poll() -> None:
        started = time.monotonic()
        page = app.test_client().get(f"/v1/games/{game['id']}/events?after={game['version']}&wait=20", headers=auth)
        answered.update(status=page.status_code, page=page.get_json(), after=time.monotonic() - started)

    waiting = threading.Thread(target=poll)
    waiting.start()
    wait_until(lambda: app.extensions["red7_waits"].open_for(hash_token(ana)) == 1, 5, "the long-poll waits")
    stream = open_stream(api, game["id"], ana)  # takes the long-poll's slot
    waiting.join(5)
    assert answered["status"] == 200 and answered["page"]["events"] == [] and answered["after"] < 3, answered
    assert stream.status_code == 200
    stream.close()


def test_a_replaced_wait_gives_its_slot_back_once():
    waits = OpenWaits(per_token=2, per_address=3)
    oldest, other = waits.take("t", "10.0.0.1"), waits.take("t", "10.0.0.2")
    newest = waits.take("t", "10.0.0.3")
    assert oldest.replaced and not other.replaced and not newest.replaced
    assert waits.open_for("t") == 2 and waits.open_for(address="10.0.0.1") == 0
    waits.give_back(oldest)  # it ends later, as a replaced wait does: its slot was given already
    assert waits.open_for("t") == 2 and waits.open_for() == 2
    for _ in range(3):
        waits.take(None, "10.0.0.9")
    with pytest.raises(ApiError) as refused:  # an address at its cap is refused, and replaces nothing
        waits.take("t", "10.0.0.9")
    assert refused.value.code == "too_many_waits" and not other.replaced
    waits.give_back(other)
    waits.give_back(newest)
    assert waits.open_for("t") == 0 and waits.open_for() == 3


def test_an_address_holds_only_so_many_waits(capped):
    api = capped
    game = api.game(api.player("Ana")["token"], [HUMAN, HUMAN])
    streams = [open_stream(api, game["id"]) for _ in range(2)]
    assert [s.status_code for s in streams] == [200, 200]
    assert open_stream(api, game["id"]).status_code == 429
    for stream in reversed(streams):  # in one thread (the test client's), streams end in the order they began
        stream.close()
    assert api.call("GET", f"/v1/games/{game['id']}/events?after={game['version']}&wait=0.1").status_code == 200
