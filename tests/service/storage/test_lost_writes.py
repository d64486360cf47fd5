"""Redis lost its last writes: no process serves, or builds on, a game that Redis no longer holds.

A crash between fsyncs or a failover to a lagging replica takes the last
events away, and the numbers they had are given to other events next.  Two
API processes (two runtimes, each with its own cache of games) play a game;
Redis then loses the last turn (the test deletes it as the crash would), and
play goes on through either process.  Every answer must come from what Redis
holds: the lost version is never served again, a move decided on the lost
state is never appended, and each process ends up with the fold of the stream.
"""

from __future__ import annotations

import time

import pytest

from engine import fold
from service.domain.game import decode, engine_event
from service.domain.lobby import LOBBY_TYPES
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import Api
from tests.service.http.test_api_games import two_humans


@pytest.fixture
def pair(api, redis_pair, settings):
    """Two API processes on one Redis: ``api`` and another with a cache of its own."""
    other = build_runtime(settings, clients=redis_pair)
    return api, Api(create_app(other), other)


def lose_last(api: Api, game_id: str, count: int) -> int:
    """Take the last ``count`` events away, as a crash that loses the last writes does; the version left."""
    store, client = api.runtime.store, api.runtime.redis
    kept = list(store.read_all(game_id))[:-count]
    client.delete(store.events_key(game_id))  # a stream that never held them (XDEL would keep its last id)
    for event in kept:
        client.xadd(store.events_key(game_id), {"e": event.payload}, id=f"{event.number}-0")
    client.set(f"{store.prefix}game:{{{game_id}}}:version", kept[-1].number)
    return kept[-1].number


def play(api: Api, game_id: str, token: str, pick: int = 0):
    """Play one legal step of the caller's turn (the ``pick``-th listed that keeps them in), acting on the view's version."""
    view = api.view(game_id, token)
    steps = [s for s in view["legal_steps"] if s["can_win"] and s["type"] != "fold"] or view["legal_steps"]
    step = steps[pick % len(steps)]
    chosen = {k: step[k] for k in ("type", "card", "seat", "to", "draw") if k in step}
    return api.act(game_id, token, [chosen], headers={"If-Match": f'"{view["version"]}"'})


def to_move(api: Api, game_id: str, ana: str, bo: str) -> str:
    return [ana, bo][api.view(game_id, ana)["turn"]["seat"]]


def a_turn_redis_loses(api: Api, seed: int) -> tuple[str, str, str, int, int]:
    """Two humans play two turns through ``api``; Redis then loses the second. (ana, bo, game id, kept, lost)."""
    ana, bo, game = two_humans(api, seed=seed)
    ana, bo = ana["token"], bo["token"]
    play(api, game["id"], to_move(api, game["id"], ana, bo))
    kept = api.view(game["id"], ana)["version"]
    play(api, game["id"], to_move(api, game["id"], ana, bo))
    lost = api.view(game["id"], ana)["version"]
    assert lose_last(api, game["id"], lost - kept) == kept
    return ana, bo, game["id"], kept, lost


def truth(api: Api, game_id: str) -> dict:
    """The game folded from the stream alone, by a process that never saw it."""
    fresh = build_runtime(api.runtime.settings, clients=(api.runtime.redis, api.runtime.raw_redis))
    return fresh.games.load(game_id).to_dict()


def assert_consistent(api: Api, game_id: str) -> None:
    stored = list(api.runtime.store.read_all(game_id))
    assert [e.number for e in stored] == list(range(1, len(stored) + 1))
    fold([engine_event(decode(e.payload)) for e in stored if decode(e.payload)["type"] not in LOBBY_TYPES])


def test_a_process_never_serves_a_version_redis_lost(pair):
    a, _ = pair
    ana, bo, game = two_humans(a, seed=5)
    ana, bo = ana["token"], bo["token"]
    assert play(a, game["id"], to_move(a, game["id"], ana, bo)).status_code == 200
    kept = a.view(game["id"], ana)["version"]
    assert play(a, game["id"], to_move(a, game["id"], ana, bo)).status_code == 200
    assert a.view(game["id"], ana)["version"] > kept  # the process caches the newer game
    assert lose_last(a, game["id"], a.view(game["id"], ana)["version"] - kept) == kept
    view = a.call("GET", f"/v1/games/{game['id']}", ana)
    assert view.headers["ETag"] == f'"{kept}"' and view.get_json()["version"] == kept
    assert a.runtime.games.load(game["id"]).to_dict() == truth(a, game["id"])
    events = a.call("GET", f"/v1/games/{game['id']}/events?after=0&limit=500", ana).get_json()
    assert events["version"] == kept and events["events"][-1]["n"] == kept


def test_a_process_does_not_fold_new_events_onto_a_lost_history(pair):
    a, b = pair
    ana, bo, game_id, _, lost = a_turn_redis_loses(a, seed=6)
    game = {"id": game_id}
    # The other process plays on from what Redis holds, past the version the first one remembers.
    while b.view(game["id"], ana)["version"] <= lost + 2 and b.view(game["id"], ana)["status"] == "active":
        response = play(b, game["id"], to_move(b, game["id"], ana, bo), pick=1)
        assert response.status_code in (200, 409), response.get_json()
    served = a.call("GET", f"/v1/games/{game['id']}", ana)
    assert served.status_code == 200
    assert a.runtime.games.load(game["id"]).to_dict() == truth(a, game["id"])
    assert served.get_json() == b.view(game["id"], ana)
    assert_consistent(a, game["id"])


def test_a_move_decided_on_a_lost_state_is_never_appended(pair):
    """The stream is back at the very version the process remembers, but with other events there."""
    a, b = pair
    ana, bo, game = two_humans(a, seed=7)
    ana, bo = ana["token"], bo["token"]
    play(a, game["id"], to_move(a, game["id"], ana, bo))
    kept = a.view(game["id"], ana)["version"]
    mover = to_move(a, game["id"], ana, bo)
    play(a, game["id"], mover, pick=0)
    remembered = a.runtime.games.load(game["id"])
    lose_last(a, game["id"], remembered.version - kept)
    while b.runtime.store.version(game["id"]) < remembered.version:
        play(b, game["id"], to_move(b, game["id"], ana, bo), pick=1)
    assert b.runtime.store.version(game["id"]) == remembered.version
    assert b.runtime.games.load(game["id"]).head != remembered.head  # the same number, another event
    head = b.runtime.games.load(game["id"]).head
    # The first process acts from its memory of that version; the append must see it is not Redis's.
    response = play(a, game["id"], to_move(b, game["id"], ana, bo))
    assert response.status_code in (200, 409, 422), response.get_json()
    stored = list(a.runtime.store.read_all(game["id"]))
    assert stored[remembered.version - 1].payload == head  # what Redis held is still there, not overwritten
    assert a.runtime.games.load(game["id"]).to_dict() == truth(a, game["id"])
    assert_consistent(a, game["id"])


def test_an_append_that_names_another_head_is_refused(api):
    from service.storage.events import VersionConflict

    store = api.runtime.store
    store.append("s1", 0, ["one", "two"])
    with pytest.raises(VersionConflict) as refused:
        store.append("s1", 2, ["three"], expected_head="not two")
    assert refused.value.diverged and refused.value.current == 2
    assert store.append("s1", 2, ["three"], expected_head="two").version == 3


def test_a_snapshot_of_a_lost_history_is_dropped(api, settings, redis_pair):
    api.runtime.games.snapshot_every = 1  # a snapshot after every append
    ana, bo, game = two_humans(api, seed=8)
    ana, bo = ana["token"], bo["token"]
    play(api, game["id"], to_move(api, game["id"], ana, bo))
    kept = api.view(game["id"], ana)["version"]
    play(api, game["id"], to_move(api, game["id"], ana, bo))
    lose_last(api, game["id"], api.view(game["id"], ana)["version"] - kept)
    cold = build_runtime(settings, clients=redis_pair)  # a process that starts from the snapshot
    assert cold.store.snapshot(game["id"])[0] > kept
    assert cold.games.load(game["id"]).version == kept
    assert cold.store.snapshot(game["id"]) is None
    assert cold.games.load(game["id"]).to_dict() == truth(api, game["id"])


def test_a_feed_whose_cursor_is_past_what_redis_kept_says_so_at_once(pair):
    a, _ = pair
    ana, _, game_id, kept, seen = a_turn_redis_loses(a, seed=9)
    game = {"id": game_id}
    started = time.monotonic()
    page = a.call("GET", f"/v1/games/{game['id']}/events?after={seen}&wait=5", ana).get_json()
    assert time.monotonic() - started < 1.0, "no wait for events past what Redis holds"
    assert page["version"] == kept < seen and page["events"] == []
    stream = a.call("GET", f"/v1/games/{game['id']}/stream", ana, headers={"Last-Event-ID": str(seen)})
    first = stream.get_data(as_text=True).split("\n\n")[1]
    assert first == f'id: {kept}\nevent: reset\ndata: {{"version":{kept}}}'


def test_a_snapshot_that_cannot_be_written_fails_no_action(api, monkeypatch):
    """A snapshot is a shortcut for cold readers: Redis refusing it after the append must not turn a stored move into a 503."""
    import redis

    api.runtime.games.snapshot_every = 1

    def refuse(*args, **kwargs):
        raise redis.ConnectionError("the snapshot write was cut")

    monkeypatch.setattr(api.runtime.store, "save_snapshot", refuse)
    ana, bo, game = two_humans(api, seed=10)
    ana, bo = ana["token"], bo["token"]
    assert play(api, game["id"], to_move(api, game["id"], ana, bo)).status_code == 200
