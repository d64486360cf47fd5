"""The event store's contract, on fakeredis, on the real Redis and on a Redis Cluster alike."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.storage.events import (
    Appended,
    EventStore,
    Idempotency,
    IdempotencyMismatch,
    NotReplicated,
    Replayed,
    VersionConflict,
)
from service.storage.nodes import on_one_connection

pytestmark = pytest.mark.on_cluster


@pytest.fixture
def store(redis_client, key_prefix) -> EventStore:
    return EventStore(redis_client, key_prefix)


def test_a_new_stream_is_empty_at_version_zero(store):
    assert store.version("g1") == 0
    assert not store.exists("g1")
    assert store.read("g1") == []


def test_append_numbers_events_from_one_and_returns_the_new_version(store):
    assert store.append("g1", 0, ["a", "b"]) == Appended(2)
    assert store.append("g1", 2, ["c"]) == Appended(3)
    assert [(e.number, e.payload) for e in store.read("g1")] == [(1, "a"), (2, "b"), (3, "c")]
    assert store.version("g1") == 3


def test_a_stale_version_is_a_conflict_and_appends_nothing(store):
    store.append("g1", 0, ["a"])
    with pytest.raises(VersionConflict) as conflict:
        store.append("g1", 0, ["b", "c"])
    assert conflict.value.current == 1
    assert [e.payload for e in store.read("g1")] == ["a"]


def test_streams_are_independent(store):
    store.append("g1", 0, ["a"])
    store.append("g2", 0, ["x", "y"])
    assert store.version("g1") == 1 and store.version("g2") == 2


def test_keys_are_hash_tagged_by_stream(store):
    assert store.events_key("abc").endswith("game:{abc}:events")


def test_reading_pages_after_a_number(store):
    store.append("g1", 0, [str(i) for i in range(1, 1201)])
    assert [e.number for e in store.read("g1", after=10, limit=3)] == [11, 12, 13]
    everything = list(store.read_all("g1", after=5))
    assert len(everything) == 1195 and everything[0].number == 6 and everything[-1].number == 1200


def test_an_idempotent_retry_gets_what_the_first_made_and_appends_once(store):
    idem = Idempotency("player1", "key-1", "fp-1")
    assert store.append("g1", 0, ["a", "b"], idempotency=idem) == Appended(2)
    assert store.append("g1", 0, ["a", "b"], idempotency=idem) == Replayed(2)
    assert store.idempotent_response("g1", idem) == Replayed(2)
    assert store.version("g1") == 2


def test_a_games_idempotency_records_are_small_fields_of_one_hash_that_lives_a_ttl_after_the_last(store):
    for n in range(3):
        store.append("g1", n, [f"e{n}"], idempotency=Idempotency("player1", f"key-{n}", "f" * 64, ttl=100))
    records = store.redis.hgetall(store._key("g1", "idem"))
    assert len(records) == 3, "a hash field per request, not a key each"
    assert all(len(field) + len(value) < 80 for field, value in records.items()), "the version and a fingerprint"
    assert 90 < store.redis.ttl(store._key("g1", "idem")) <= 100
    try:
        encoding = store.redis.object("encoding", store._key("g1", "idem"))
    except redis.ResponseError:  # fakeredis has no OBJECT; the real Redis and the cluster tell
        return
    assert encoding in (b"listpack", b"ziplist", "listpack", "ziplist"), "Redis's compact encoding of a small hash"


def test_a_reused_idempotency_key_with_another_request_is_refused(store):
    store.append("g1", 0, ["a"], idempotency=Idempotency("p", "k", "fp-1"))
    with pytest.raises(IdempotencyMismatch):
        store.append("g1", 1, ["b"], idempotency=Idempotency("p", "k", "fp-2"))
    with pytest.raises(IdempotencyMismatch):
        store.idempotent_response("g1", Idempotency("p", "k", "fp-2"))
    assert store.version("g1") == 1


def test_idempotency_keys_are_scoped_per_player(store):
    store.append("g1", 0, ["a"], idempotency=Idempotency("p1", "k", "fp"))
    assert store.append("g1", 1, ["b"], idempotency=Idempotency("p2", "k", "fp")) == Appended(2)


def test_snapshots_keep_only_the_newest(store):
    assert store.snapshot("g1") is None
    assert store.save_snapshot("g1", 10, "ten")
    assert not store.save_snapshot("g1", 5, "five")
    assert store.snapshot("g1") == (10, "ten")
    assert store.save_snapshot("g1", 20, "twenty")
    assert store.snapshot("g1") == (20, "twenty")


def test_wait_returns_when_an_event_arrives(store):
    store.append("g1", 0, ["a"])
    assert store.wait("g1", 0, 0.1)
    assert not store.wait("g1", 1, 0.05)
    timer = threading.Timer(0.2, lambda: store.append("g1", 1, ["b"]))
    timer.start()
    assert store.wait("g1", 1, 5)
    timer.join()


@pytest.mark.real_redis
def test_concurrent_writers_for_one_version_exactly_one_wins(store, backend):
    store.append("g1", 0, ["start"])
    results: list[object] = []
    barrier = threading.Barrier(20)

    def writer(i: int) -> None:
        barrier.wait()
        try:
            results.append(store.append("g1", 1, [f"w{i}"]))
        except VersionConflict as conflict:
            results.append(conflict)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(r, Appended) for r in results) == 1
    assert sum(isinstance(r, VersionConflict) for r in results) == 19
    assert store.version("g1") == 2 and len(store.read("g1")) == 2


@pytest.mark.slow
def test_a_long_poll_of_25_seconds_outlasts_the_clients_socket_timeout(store, backend):
    """The blocking read goes in slices inside the socket timeout (5 s), on a cluster client's connections too."""
    if backend != "cluster":
        pytest.skip("a cluster client's connections only: tests/service/http/test_long_waits.py waits this long on the others")
    store.append("g1", 0, ["a"])
    timer = threading.Timer(21, lambda: store.append("g1", 1, ["b"]))
    started = time.monotonic()
    timer.start()
    try:
        assert store.wait("g1", 1, 25)
    finally:
        timer.cancel()
    assert 20 < time.monotonic() - started < 25


def test_an_append_waits_for_a_replica_on_the_connection_that_wrote_it(redis_client, key_prefix, backend):
    """WAIT counts the writes of its own connection; on a cluster, of the primary holding the game's slot."""
    if backend == "fakeredis":
        pytest.skip("fakeredis has no WAIT (tests/service/processes/test_replicas.py tests it on a primary and a replica)")
    store = EventStore(redis_client, key_prefix, replicas=1, replica_timeout_ms=500)
    if backend != "cluster":  # no replica there: stored, but not confirmed
        with pytest.raises(NotReplicated, match="reached 0 of 1 replicas"):
            store.append("g1", 0, ["a"])
        assert store.version("g1") == 1
        return
    assert store.append("g1", 0, ["a"]) == Appended(1)  # the session's cluster gives each primary one replica
    key = store.events_key("g1")

    def count(pipe):
        pipe.xlen(key)
        pipe.wait(1, 2000)
        return pipe.execute()

    assert on_one_connection(redis_client, key, count) == [1, 1]  # one replica, the game's primary's: not a sum over primaries
    idempotent = Idempotency("p1", "k1", "f1")
    assert store.append("g2", 0, ["x"], idempotency=idempotent) == Appended(1)
    assert store.idempotent_response("g2", idempotent) == Replayed(1)


# --- compaction: a finished game's stream folded into one packed record -----------------------------------------


def _events(store: EventStore, stream: str, after: int = 0, limit: int | None = None) -> list[tuple[int, str]]:
    return [(e.number, e.payload) for e in store.read(stream, after, limit)]


def test_a_compacted_stream_reads_the_same_events_and_keeps_its_version(store, redis_client):
    payloads = [f'[{n},"é\\n{n}",{{"x":"{n}"}}]' for n in range(1, 31)]
    store.append("g1", 0, payloads)
    before = {(after, limit): _events(store, "g1", after, limit) for after in (0, 1, 12, 29, 30) for limit in (None, 1, 7)}
    assert store.compacted("g1") == 0
    assert store.compact("g1", 30, [e.payload for e in store.read_all("g1")])
    assert store.compacted("g1") == 30 and store.version("g1") == 30
    assert redis_client.exists(store.events_key("g1")) == 0, "the stream is gone: the record holds it"
    assert {key: _events(store, "g1", *key) for key in before} == before
    assert [e.payload for e in store.read_all("g1")] == payloads
    assert store.wait("g1", 29, 0.1)


def test_appends_go_on_after_compaction_head_checked_and_are_folded_in_again(store):
    store.append("g1", 0, ["a", "b", "c"])
    store.compact("g1", 3, ["a", "b", "c"])
    with pytest.raises(VersionConflict) as diverged:
        store.append("g1", 3, ["d"], expected_head="not c")
    assert diverged.value.diverged
    with pytest.raises(VersionConflict):
        store.append("g1", 2, ["d"], expected_head="b")
    assert store.append("g1", 3, ["d", "e"], expected_head="c") == Appended(5)
    assert store.append("g1", 5, ["f"], expected_head="e") == Appended(6)
    assert _events(store, "g1") == [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e"), (6, "f")]
    assert _events(store, "g1", 2, 2) == [(3, "c"), (4, "d")] and _events(store, "g1", 4) == [(5, "e"), (6, "f")]
    assert store.compact("g1", 6, ["a", "b", "c", "d", "e", "f"]) and store.compacted("g1") == 6
    assert _events(store, "g1", 1) == [(2, "b"), (3, "c"), (4, "d"), (5, "e"), (6, "f")]


def test_compaction_refuses_a_stream_that_moved_on_or_holds_another_history(store):
    store.append("g1", 0, ["a", "b"])
    assert not store.compact("g1", 1, ["a"])  # the stream is at 2
    assert not store.compact("g1", 2, ["a", "not b"])  # another head than the stream's
    assert store.compacted("g1") == 0 and _events(store, "g1") == [(1, "a"), (2, "b")]
    with pytest.raises(ValueError):
        store.compact("g1", 2, ["a"])


def test_a_compacted_stream_is_read_in_pages(store):
    payloads = [f"e{n}" for n in range(1, 1201)]
    store.append("g1", 0, payloads)
    store.compact("g1", 1200, payloads)
    assert [e.payload for e in store.read_all("g1")] == payloads
    assert [e.number for e in store.read_all("g1", after=1000)] == list(range(1001, 1201))
    assert store.read("g1", 1200) == []


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    payloads=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=40),
    extra=st.lists(st.text(min_size=1, max_size=10), max_size=3),
    after=st.integers(0, 45),
    limit=st.none() | st.integers(1, 10),
)
def test_compaction_changes_no_read(store, payloads, extra, after, limit):
    """Whatever the payloads (any text), a compacted stream, and one appended to after, reads as it did."""
    stream = f"g{uuid.uuid4().hex[:8]}"
    store.append(stream, 0, payloads)
    if extra:
        store.append(stream, len(payloads), extra)
    version = len(payloads) + len(extra)
    before = _events(store, stream, after, limit)
    assert store.compact(stream, len(payloads), payloads) is (not extra)
    if extra:  # compacted at the version before the extra events: refused; now at the version it holds
        assert store.compact(stream, version, [*payloads, *extra])
    assert _events(store, stream, after, limit) == before
    assert store.version(stream) == version
