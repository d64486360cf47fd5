"""The watch of game changes (service/storage/changes.py): a game's fold counts as unchanged only while no one changed
its keys since it was read, and a view served from it is never behind a write that was acknowledged before it.

Run on fakeredis (which has no ``CLIENT TRACKING``: the watch is off, every load reads) and on the real Redis, where
Redis itself tells the watch what changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
import redis

from engine import legal_steps
from service.application.commands import NewGame, SeatRequest
from service.application.games import GameService
from service.storage.changes import ChangeWatch
from service.storage.events import EventStore
from service.storage.players import PlayerStore
from tests.harness.support import REAL_REDIS_SKIP, REAL_REDIS_URL, clean_real_redis

AT = "2026-11-27T12:00:00.000Z"


@pytest.fixture
def watch(redis_client: redis.Redis, key_prefix: str) -> Iterator[ChangeWatch]:
    watching = ChangeWatch(redis_client, key_prefix, retry_after=0.2)
    yield watching
    watching.close()


@pytest.fixture
def real(key_prefix: str) -> Iterator[redis.Redis]:
    """The real Redis (``RED7_TEST_REDIS_URL``): what tracks changes; the tests' keys deleted after."""
    if REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    assert REAL_REDIS_URL is not None
    client = redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True)
    yield client
    clean_real_redis(client, key_prefix)
    client.close()


@pytest.fixture
def tracked(real: redis.Redis, key_prefix: str) -> Iterator[ChangeWatch]:
    watching = ChangeWatch(real, key_prefix, retry_after=0.2)
    yield watching
    watching.close()


def _read(watch: ChangeWatch, stream: str) -> None:
    """What a load does around its read: a ticket before, settled after."""
    watch.settle(stream, watch.ticket(stream))


def _eventually(check: Callable[[], bool], seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_watch_is_on_where_redis_tracks_and_off_elsewhere(backend: str, watch: ChangeWatch) -> None:
    ticket = watch.ticket("g")
    if backend == "fakeredis":
        assert ticket is None and not watch.watching  # fakeredis has no CLIENT TRACKING: every load reads
        watch.settle("g", ticket)
        assert not watch.unchanged("g")
        return
    assert ticket is not None and watch.watching
    watch.settle("g", ticket)
    assert watch.unchanged("g")


@pytest.mark.real_redis
@pytest.mark.parametrize("part", ["version", "events", "idem", "packed", "snapshot"])
def test_any_change_to_a_games_keys_is_seen_before_the_next_answer(
    tracked: ChangeWatch, real: redis.Redis, key_prefix: str, part: str
) -> None:
    """Every key of the game counts (an append, compaction, a snapshot, an expiry); another game's keys do not."""
    _read(tracked, "g1")
    _read(tracked, "g2")
    real.set(f"{key_prefix}game:{{g1}}:{part}", 1)
    assert not tracked.unchanged("g1")  # no wait: the change came in the same turn of Redis's loop as the reply
    assert tracked.unchanged("g2")
    real.set(f"{key_prefix}players:{{g2}}", 1)  # not a game's key
    assert tracked.unchanged("g2")


@pytest.mark.real_redis
def test_a_change_racing_a_read_leaves_the_game_to_be_read_again(
    tracked: ChangeWatch, real: redis.Redis, key_prefix: str
) -> None:
    ticket = tracked.ticket("g1")
    real.set(f"{key_prefix}game:{{g1}}:version", 7)  # after the read began, before it settled
    tracked.settle("g1", ticket)
    assert not tracked.unchanged("g1")
    _read(tracked, "g1")  # the next read, with nothing racing it
    assert tracked.unchanged("g1")


@pytest.mark.real_redis
def test_a_read_that_failed_holds_nothing(tracked: ChangeWatch) -> None:
    tracked.settle("g1", tracked.ticket("g1"), current=False)
    assert not tracked.unchanged("g1")


@pytest.mark.real_redis
def test_a_lost_connection_forgets_everything_and_comes_back(tracked: ChangeWatch, real: redis.Redis, key_prefix: str) -> None:
    _read(tracked, "g1")
    ticket = tracked.ticket("g2")  # a read in flight when the connection goes
    own = [c for c in real.client_list() if c.get("redir") not in (None, "-1") and c["redir"] == c["id"]]
    port = tracked._connection._sock.getsockname()[1]  # which of the tracking connections is ours
    (mine,) = [c for c in own if c["addr"].endswith(f":{port}")]
    real.client_kill_filter(_id=mine["id"])
    assert _eventually(lambda: not tracked.unchanged("g1") and not tracked.watching)
    tracked.settle("g2", ticket)  # began on the connection that was lost: it cannot count
    assert not tracked.unchanged("g2")
    time.sleep(0.25)  # retry_after
    _read(tracked, "g1")
    assert tracked.watching and tracked.unchanged("g1")
    real.set(f"{key_prefix}game:{{g1}}:version", 2)  # the new connection tracks again
    assert not tracked.unchanged("g1")


@pytest.mark.real_redis
def test_a_flush_changes_every_game(tracked: ChangeWatch) -> None:
    """``FLUSHDB`` sends a change without keys (not sent for real: the real Redis is shared with other tests)."""
    _read(tracked, "g1")
    in_flight = tracked.ticket("g2")
    tracked._take([b"message", b"__redis__:invalidate", None])  # what Redis sends on a flush
    tracked.settle("g2", in_flight)
    assert not tracked.unchanged("g1") and not tracked.unchanged("g2")


@pytest.mark.real_redis
def test_a_forked_child_makes_its_own_connection(tracked: ChangeWatch, monkeypatch: pytest.MonkeyPatch) -> None:
    _read(tracked, "g1")
    parents = tracked._connection
    monkeypatch.setattr("service.storage.changes.os.getpid", lambda: -1)
    assert not tracked.unchanged("g1")  # nothing the parent held counts in the child
    assert tracked._connection is not parents
    parents.disconnect()


def test_a_cluster_client_is_not_watched() -> None:
    class ClusterLike:  # what RedisCluster looks like to the watch: no one connection pool
        pass

    watch = ChangeWatch(ClusterLike(), "p:")  # type: ignore[arg-type]
    assert watch.ticket("g") is None and not watch.watching


# --- the games a process serves ------------------------------------------------------------------------------------


def _services(redis_client: redis.Redis, key_prefix: str) -> tuple[GameService, GameService]:
    """Two processes' services on one Redis: one that moves, one that serves views (with the watch)."""
    mover = GameService(EventStore(redis_client, key_prefix), PlayerStore(redis_client, key_prefix))
    viewer = GameService(
        EventStore(redis_client, key_prefix),
        PlayerStore(redis_client, key_prefix),
        changes=ChangeWatch(redis_client, key_prefix),
    )
    return mover, viewer


def test_a_view_is_never_behind_a_move_another_process_made(
    backend: str, redis_client: redis.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mover, viewer = _services(redis_client, key_prefix)
    ana, bo = mover.players.create("Ana", AT)[0], mover.players.create("Bo", AT)[0]
    game = mover.create(ana, NewGame([SeatRequest("human"), SeatRequest("human")], seed=5)).game
    assert game is not None
    mover.join(game.id, bo, game.join_code, None)
    reads: list[int] = []
    real = viewer.store.read
    monkeypatch.setattr(viewer.store, "read", lambda *a, **k: reads.append(1) or real(*a, **k))
    moves = 0
    while (now := mover.load(game.id)).status == "active" and moves < 40:
        seen = viewer.load(game.id)
        assert (seen.version, seen.head) == (now.version, now.head)
        before = len(reads)
        for _ in range(3):  # polls of a game nobody moved
            assert viewer.load(game.id).version == now.version
        if backend == "real":
            assert len(reads) == before  # served from the fold, no read
        else:
            assert len(reads) == before + 3  # no watch on fakeredis: every load reads
        seat = now.seat_to_move()
        if seat is None:
            break  # the round is over: its scoring is a job's (none here)
        options = [o for o in legal_steps(now.state) if o.can_win and not o.eliminates] or legal_steps(now.state)
        moved = mover.act(game.id, ana if now.seats[seat].player_id == ana.id else bo, [options[0].step])
        assert moved.game is not None
        after = viewer.load(game.id)  # at once: the move was acknowledged before this view was asked for
        assert (after.version, after.head) == (moved.game.version, moved.game.head)
        moves += 1
    assert moves >= 5
    assert viewer.loader.changes is not None
    viewer.loader.changes.close()


@pytest.mark.real_redis
def test_a_backlog_too_long_to_read_in_one_answer_starts_the_watch_again(
    tracked: ChangeWatch, real: redis.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that served nothing while others moved many games: its next answer reads none of the backlog."""
    monkeypatch.setattr("service.storage.changes.MOST_TAKEN", 5)
    _read(tracked, "g1")
    for n in range(20):
        real.set(f"{key_prefix}game:{{other{n}}}:version", n)  # one message each (separate turns of Redis's loop)
    before = tracked._connection
    assert not tracked.unchanged("g1")  # forgotten with the backlog
    _read(tracked, "g1")  # the next load makes a new connection at once
    assert tracked.watching and tracked._connection is not before
    assert tracked.unchanged("g1")
    real.set(f"{key_prefix}game:{{g1}}:version", 1)
    assert not tracked.unchanged("g1")


def test_only_the_processes_that_serve_views_watch(monkeypatch: pytest.MonkeyPatch, key_prefix: str) -> None:
    """A ``red7 worker`` serves no views: a watch there would only make Redis keep a backlog of changes for it."""
    from workers import context

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6399/0")  # nothing is asked of it: the runtime only wires
    monkeypatch.setenv("RED7_KEY_PREFIX", key_prefix)
    monkeypatch.setattr(context, "_runtime", None)
    assert context.runtime().games.loader.changes is None
    from service.common.config import Settings
    from service.runtime import build_runtime

    served = build_runtime(Settings.from_env())
    assert served.games.loader.changes is not None  # the API's processes (gunicorn, red7 serve) do


# --- a connection that dies without a word, refusals that pass, and connects that hang ----------------------------


class _Relay:
    """A TCP relay to the real Redis that can go silent without closing (a host lost, a NAT that forgot the flow)."""

    def __init__(self, host: str, port: int) -> None:
        import socket
        import threading

        self.target = (host, port)
        self.silent = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                near, _ = self.server.accept()
            except OSError:
                return
            far = socket.create_connection(self.target)
            self.sockets += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source, sink) -> None:  # type: ignore[no-untyped-def]
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            while self.silent.is_set():  # held, never delivered: the peer hears nothing, and nothing closes
                time.sleep(0.05)
            try:
                sink.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self.silent.clear()
        self.server.close()
        for sock in self.sockets:
            sock.close()


@pytest.mark.real_redis
def test_a_connection_that_dies_without_a_close_stops_being_trusted_and_is_made_again(
    real: redis.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("service.storage.changes.PING_EVERY", 0.1)
    monkeypatch.setattr("service.storage.changes.TRUSTED_FOR", 0.5)
    monkeypatch.setattr("service.storage.changes.DEAD_AFTER", 0.5)
    where = real.connection_pool.connection_kwargs
    relay = _Relay(where.get("host", "127.0.0.1"), where.get("port", 6379))
    through = redis.Redis(host="127.0.0.1", port=relay.port, db=where.get("db", 0), decode_responses=True)
    watch = ChangeWatch(through, key_prefix, retry_after=0.1)
    try:
        _read(watch, "g1")
        assert _eventually(lambda: watch.unchanged("g1"))
        relay.silent.set()
        real.set(f"{key_prefix}game:{{g1}}:version", 5)  # the change never reaches the watch
        started = time.monotonic()
        assert _eventually(lambda: not watch.unchanged("g1"), seconds=3)
        assert time.monotonic() - started < 1.5  # no longer trusted within TRUSTED_FOR and a ping or two
        assert _eventually(lambda: (watch.unchanged("g1"), not watch.watching)[1], seconds=3)  # taken for dead
        relay.silent.clear()
    finally:
        watch.close()
        relay.close()
        through.close()


class _FakeConnection:
    """A connection whose setup answers as told: ``refusal`` on CLIENT TRACKING, or a connect that waits."""

    refusal: str | None = None
    hold: Any = None

    def __init__(self, **_: Any) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def connect(self) -> None:
        if _FakeConnection.hold is not None:
            _FakeConnection.hold.wait(5)

    def send_command(self, *args: Any) -> None:
        self.sent.append(args)

    def read_response(self, **_: Any) -> Any:
        if self.sent[-1][:2] == ("CLIENT", "TRACKING") and _FakeConnection.refusal:
            raise redis.ResponseError(_FakeConnection.refusal)
        return 7 if self.sent[-1][:2] == ("CLIENT", "ID") else b"OK"

    def can_read(self, timeout: float = 0) -> bool:
        return False

    def disconnect(self) -> None:
        pass


def _fake_client() -> Any:
    class Pool:
        connection_class = _FakeConnection
        connection_kwargs: ClassVar[dict[str, Any]] = {"host": "127.0.0.1", "port": 1}

    class Client:
        connection_pool = Pool()

    return Client()


@pytest.mark.parametrize(
    ("refusal", "for_good"),
    [
        ("ERR unknown command 'CLIENT TRACKING'", True),
        ("NOPERM this user has no permissions to run the 'client|tracking' command", True),
        ("BUSY Redis is busy running a script", False),
        ("LOADING Redis is loading the dataset in memory", False),
    ],
)
def test_only_a_redis_that_cannot_track_is_given_up_on(refusal: str, for_good: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_FakeConnection, "refusal", refusal)
    watch = ChangeWatch(_fake_client(), "p:", retry_after=0.05)
    assert watch.ticket("g") is None and not watch.watching
    monkeypatch.setattr(_FakeConnection, "refusal", None)  # it would track now
    time.sleep(0.06)
    assert (watch.ticket("g") is None) is for_good


def test_loads_go_on_reading_while_the_watch_connects(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connect that hangs (a Redis half up) holds up no load: they read meanwhile, the watch's lock is free."""
    import threading

    gate = threading.Event()
    monkeypatch.setattr(_FakeConnection, "hold", gate)
    watch = ChangeWatch(_fake_client(), "p:")
    connecting = threading.Thread(target=watch.ticket, args=("g",))
    connecting.start()
    try:
        assert _eventually(lambda: watch._connecting, seconds=2)
        started = time.monotonic()
        assert watch.ticket("g") is None and not watch.unchanged("g")  # at once: not watching yet
        assert time.monotonic() - started < 0.5
    finally:
        gate.set()
        connecting.join(5)
    assert watch.watching
