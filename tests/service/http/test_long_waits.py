"""Blocking reads outlast the Redis client's socket timeout, whatever the operator set it to.

redis-py 8 gives every connection a 5 s socket timeout; a single ``XREAD
BLOCK`` longer than that was cut by the client and answered as an
unreachable store.  These tests wait longer than the timeout, on the real
Redis, with the client as ``REDIS_URL`` builds it by default and with the
other settings an operator may choose.
"""

from __future__ import annotations

import threading
import time

import pytest
import redis

from service.http.app import create_app
from service.runtime import build_runtime
from service.storage.events import EventStore
from tests.harness.support import HUMAN, REAL_REDIS_SKIP, REAL_REDIS_URL, Api, clean_real_redis, settings_for

pytestmark = [pytest.mark.real_redis, pytest.mark.skipif(bool(REAL_REDIS_SKIP), reason=REAL_REDIS_SKIP or "")]

#: Client settings as an operator writes them in REDIS_URL ("" = redis-py's defaults).
CLIENT_SETTINGS = ["", "socket_timeout=2", "socket_timeout=0.5", "socket_timeout=30", "health_check_interval=1"]


def url(query: str) -> str:
    assert REAL_REDIS_URL is not None
    return f"{REAL_REDIS_URL}{'&' if '?' in REAL_REDIS_URL else '?'}{query}" if query else REAL_REDIS_URL


@pytest.fixture
def clients(key_prefix):
    made: list[redis.Redis] = []

    def client(query: str) -> redis.Redis:
        made.append(redis.Redis.from_url(url(query), decode_responses=True))
        return made[-1]

    yield client
    clean_real_redis(redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True), key_prefix)
    for made_client in made:
        made_client.close()


def test_one_long_blocking_read_is_cut_at_the_socket_timeout(clients, key_prefix):
    """Why the store reads in slices: a client gives up on one block longer than its socket timeout.

    5 s is redis-py 8's default (older versions had none); it is set here so that the test means the
    same on every version in the supported range.
    """
    client = clients("socket_timeout=5")
    if int(redis.__version__.split(".")[0]) >= 8:
        default = clients("").connection_pool
        assert default.connection_class(**default.connection_kwargs).socket_timeout == 5
    started = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        client.xread({f"{key_prefix}nothing": "0-0"}, block=7000)
    assert 4.5 < time.monotonic() - started < 6.5


def test_a_wait_lasts_as_long_as_asked_with_any_client_setting(clients, key_prefix):
    """Each setting waits 8 s on a quiet stream (in parallel), and returns at once when an event comes."""
    results: dict[str, tuple[bool, float] | BaseException] = {}

    def wait(query: str) -> None:
        store = EventStore(clients(query), key_prefix)
        started = time.monotonic()
        try:
            results[query] = (store.wait(f"quiet-{query}", 0, 8.0), time.monotonic() - started)
        except BaseException as error:  # reported below
            results[query] = error

    threads = [threading.Thread(target=wait, args=(query,)) for query in CLIENT_SETTINGS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    for query in CLIENT_SETTINGS:
        outcome = results[query]
        assert not isinstance(outcome, BaseException), f"{query or 'defaults'}: {outcome!r}"
        found, waited = outcome
        assert not found and 7.9 < waited < 9.5, f"{query or 'defaults'}: waited {waited:.2f} s"


def test_an_event_during_a_long_wait_ends_it_at_once(clients, key_prefix):
    store = EventStore(clients(""), key_prefix)
    store.append("busy", 0, ["first"])
    threading.Timer(6.0, lambda: store.append("busy", 1, ["second"])).start()
    started = time.monotonic()
    assert store.wait("busy", 1, 20.0)
    assert 5.9 < time.monotonic() - started < 7.0


def test_a_long_poll_answers_200_at_its_wait_on_the_default_client(key_prefix):
    """Through the API, on the client REDIS_URL builds: an 8 s long-poll on a game where nobody moves (the events',
    then the view's)."""
    settings = settings_for(key_prefix, redis_url=REAL_REDIS_URL, long_poll_max=60.0)
    runtime = build_runtime(settings)  # the clients as a deployment builds them from REDIS_URL
    api = Api(create_app(runtime), runtime)
    try:
        ana, bo = api.player("Ana"), api.player("Bo")
        game = api.game(ana["token"], [HUMAN, HUMAN])
        api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
        version = api.view(game["id"], ana["token"])["version"]
        started = time.monotonic()
        page = api.call("GET", f"/v1/games/{game['id']}/events?after={version}&wait=8", ana["token"])
        waited = time.monotonic() - started
        assert page.status_code == 200 and page.get_json()["events"] == []
        assert 7.9 < waited < 9.5
        started = time.monotonic()  # and the view's long-poll: 304 at its wait
        view = api.call("GET", f"/v1/games/{game['id']}?wait=8", ana["token"], headers={"If-None-Match": f'"{version}"'})
        waited = time.monotonic() - started
        assert view.status_code == 304 and view.headers["ETag"] == f'"{version}"'
        assert 7.9 < waited < 9.5
    finally:
        clean_real_redis(runtime.redis, key_prefix)


def test_a_players_feed_long_poll_answers_200_at_its_wait_on_the_default_client(key_prefix):
    """A player's own feed, long-polled through the API on the client REDIS_URL builds: 8 s with nothing to tell,
    then a notice that comes during a second wait ends it at once."""
    settings = settings_for(key_prefix, redis_url=REAL_REDIS_URL, long_poll_max=60.0)
    runtime = build_runtime(settings)
    api = Api(create_app(runtime), runtime)
    try:
        ana, bo = api.player("Ana"), api.player("Bo")
        after = api.call("GET", "/v1/players/me/events", ana["token"]).get_json()["next"]
        started = time.monotonic()
        page = api.call("GET", f"/v1/players/me/events?after={after}&wait=8", ana["token"])
        waited = time.monotonic() - started
        assert page.status_code == 200 and page.get_json()["notices"] == []
        assert 7.9 < waited < 9.5
        challenge = {"players": [ana["id"]], "days_per_turn": 3}
        threading.Timer(6.0, lambda: api.call("POST", "/v1/challenges", bo["token"], json=challenge)).start()
        started = time.monotonic()
        page = api.call("GET", f"/v1/players/me/events?after={after}&wait=20", ana["token"])
        assert page.get_json()["notices"][0]["event"] == "challenge_received"
        assert 5.9 < time.monotonic() - started < 7.5
    finally:
        clean_real_redis(runtime.redis, key_prefix)
