"""Players' feeds in storage: a stream per player on the player's slot, trimmed by length, read both ways, read state
kept once, waited on.

Every test here runs on the slot-checked fakeredis and the real Redis (the ``redis_client`` fixture).
"""

from __future__ import annotations

import threading
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.crc import key_slot

from service.storage import player_feeds
from service.storage.player_feeds import KEEP_SECONDS, PlayerFeedStore, valid_id
from service.storage.players.keys import feed_key, feed_read_key, player_key


def test_the_feeds_keys_are_on_the_players_slot(key_prefix):
    home = key_slot(player_key(key_prefix, "p_1").encode())
    assert key_slot(feed_key(key_prefix, "p_1").encode()) == home == key_slot(feed_read_key(key_prefix, "p_1").encode())


def test_notices_are_read_after_an_id_and_newest_first_each_players_own(redis_client, key_prefix):
    store = PlayerFeedStore(redis_client, key_prefix)
    ids = [store.append("p_1", "your_turn", f"g_{n}", n, None) for n in range(5)]
    store.append("p_2", "match_found", "g_x", 1, None)
    assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-")))) and all(valid_id(i) for i in ids)
    assert [n.subject_id for n in store.after("p_1", "0-0", 100)] == [f"g_{n}" for n in range(5)]
    assert [n.id for n in store.after("p_1", ids[2], 100)] == ids[3:]
    assert [n.id for n in store.before("p_1", None, 2)] == ids[:2:-1][:2]
    assert [n.id for n in store.before("p_1", ids[3], 10)] == ids[2::-1]
    assert store.newest_id("p_1") == ids[-1] and store.newest_id("p_9") == "0-0"
    challenge = store.append("p_1", "challenge_accepted", "c_1", 2, "g_9")
    assert store.after("p_1", ids[-1], 1)[0].game_id == "g_9" and store.after("p_1", ids[-1], 1)[0].id == challenge
    assert 0 < redis_client.ttl(feed_key(key_prefix, "p_1")) <= KEEP_SECONDS


def test_a_feed_keeps_its_newest_notices_up_to_its_length(redis_client, key_prefix, monkeypatch):
    monkeypatch.setattr(player_feeds, "MAX_NOTICES", 10)
    store = PlayerFeedStore(redis_client, key_prefix)
    ids = [store.append("p_1", "your_turn", "g_1", n, None) for n in range(300)]
    kept = [n.id for n in store.after("p_1", "0-0", 1000)]
    assert kept[-10:] == ids[-10:] and len(kept) < 300  # trimmed nearly (whole radix tree nodes go at once)


def test_notices_older_than_their_age_are_trimmed_at_the_next_append(redis_client, key_prefix):
    store = PlayerFeedStore(redis_client, key_prefix)
    old = int((time.time() - KEEP_SECONDS - 60) * 1000)
    for n in range(200):
        redis_client.xadd(feed_key(key_prefix, "p_1"), {"k": "your_turn", "s": "g_1", "v": n}, id=f"{old}-{n}")
    fresh = store.append("p_1", "your_turn", "g_1", 999, None)
    assert store.after("p_1", "0-0", 1000)[-1].id == fresh
    assert len(store.after("p_1", "0-0", 1000)) < 201


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(marks=st.lists(st.integers(-1, 7), min_size=1, max_size=6))
def test_read_state_only_moves_forward_and_never_past_the_newest(redis_client, key_prefix, marks):
    redis_client.delete(feed_key(key_prefix, "p_h"), feed_read_key(key_prefix, "p_h"))
    store = PlayerFeedStore(redis_client, key_prefix)
    ids = [store.append("p_h", "your_turn", "g_1", n, None) for n in range(6)]
    best = -1
    for mark in marks:
        upto = ids[mark] if 0 <= mark < 6 else ("0-0" if mark < 0 else "99999999999999-0")
        read, unread = store.mark_read("p_h", upto)
        best = max(best, min(mark, 5))
        assert read == (ids[best] if best >= 0 else "0-0")
        assert unread == store.unread("p_h") == 5 - best
        assert store.read_up_to("p_h") == read


def test_a_wait_ends_when_a_notice_comes_and_not_before(redis_client, key_prefix):
    store = PlayerFeedStore(redis_client, key_prefix)
    last = store.append("p_1", "your_turn", "g_1", 1, None)
    started = time.monotonic()
    assert not store.wait("p_1", last, 0.3)
    assert time.monotonic() - started >= 0.25
    threading.Timer(0.3, lambda: store.append("p_1", "game_finished", "g_1", 2, None)).start()
    started = time.monotonic()
    assert store.wait("p_1", last, 5.0)
    assert time.monotonic() - started < 3.0
    assert store.wait("p_1", "0-0", 0.1)  # a notice after the cursor already: at once


def test_a_wait_reads_through_the_client_of_waits_when_given_one(redis_client, key_prefix):
    """The waits go to their own client (a pool whose replies may take a heartbeat); everything else to the stores'."""
    asked: list[str] = []

    class Watched:
        def __init__(self, client):
            self.client = client
            self.connection_pool = client.connection_pool

        def xread(self, *args, **kwargs):
            asked.append("xread")
            return self.client.xread(*args, **kwargs)

    store = PlayerFeedStore(redis_client, key_prefix, waits=Watched(redis_client))
    last = store.append("p_1", "your_turn", "g_1", 1, None)
    threading.Timer(0.2, lambda: store.append("p_1", "game_finished", "g_1", 2, None)).start()
    assert store.wait("p_1", last, 5.0) and asked
    assert [n.kind for n in store.after("p_1", last, 10)] == ["game_finished"]


def test_a_deleted_players_feed_goes(redis_client, key_prefix):
    store = PlayerFeedStore(redis_client, key_prefix)
    store.mark_read("p_1", store.append("p_1", "your_turn", "g_1", 1, None))
    store.forget("p_1")
    assert not redis_client.exists(feed_key(key_prefix, "p_1"), feed_read_key(key_prefix, "p_1"))


def test_a_notice_repeated_at_once_is_one_notice(redis_client, key_prefix):
    store = PlayerFeedStore(redis_client, key_prefix)
    first = store.append("p_1", "challenge_accepted", "c_1", 2, "g_1")
    assert store.append("p_1", "challenge_accepted", "c_1", 2, "g_1") == first  # a retried notify
    other = store.append("p_1", "challenge_accepted", "c_1", 2, None)
    later = store.append("p_1", "your_turn", "g_1", 2, None)
    assert len({first, other, later}) == 3 and len(store.after("p_1", "0-0", 10)) == 3
