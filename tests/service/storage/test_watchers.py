"""Watchers' leases in storage: counted while not over, gone when released, and gone by themselves when their time is
up (a feed whose process died); one key per game, on its own slot.

Every test here runs on the slot-checked fakeredis and the real Redis.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.storage.watchers import KEY_TTL_MS, LONGEST_LEASE_MS, WatcherLeases

NOW = 1_800_000_000_000


@pytest.fixture
def make_leases(redis_client, key_prefix):
    """A store with a prefix of its own for each hypothesis example (the test's prefix is cleaned afterwards)."""
    return lambda: WatcherLeases(redis_client, f"{key_prefix}{uuid.uuid4().hex[:6]}:")


def test_a_lease_counts_until_released(redis_client, key_prefix):
    leases = WatcherLeases(redis_client, key_prefix)
    leases.hold("g_1", "a", NOW + 30_000, NOW)
    leases.hold("g_1", "b", NOW + 30_000, NOW)
    leases.hold("g_2", "a", NOW + 30_000, NOW)
    assert leases.count(["g_1", "g_2", "g_3"], NOW) == {"g_1": 2, "g_2": 1, "g_3": 0}
    leases.release("g_1", "a")
    leases.release("g_1", "a")  # twice: no error
    assert leases.count(["g_1"], NOW) == {"g_1": 1}


def test_a_lease_never_released_stops_counting_when_its_time_is_up(redis_client, key_prefix):
    leases = WatcherLeases(redis_client, key_prefix)
    leases.hold("g_1", "dropped", NOW + 30_000, NOW)
    assert leases.count(["g_1"], NOW + 29_999) == {"g_1": 1}
    assert leases.count(["g_1"], NOW + 30_000) == {"g_1": 0}
    leases.hold("g_1", "other", NOW + 90_000, NOW + 60_000)  # a renewal sweeps the leases over
    assert redis_client.zcard(leases.key("g_1")) == 1


def test_a_renewal_moves_the_end_and_the_key_expires_after_every_lease(redis_client, key_prefix):
    leases = WatcherLeases(redis_client, key_prefix)
    leases.hold("g_1", "a", NOW + 10_000, NOW)
    leases.hold("g_1", "a", NOW + 40_000, NOW + 5_000)
    assert leases.count(["g_1"], NOW + 20_000) == {"g_1": 1}
    leases.hold("g_1", "long", NOW + 10 * LONGEST_LEASE_MS, NOW)  # cut to the longest
    assert redis_client.zscore(leases.key("g_1"), "long") == NOW + LONGEST_LEASE_MS
    assert 0 < redis_client.pttl(leases.key("g_1")) <= KEY_TTL_MS


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 100), st.booleans()), max_size=25), st.integers(0, 200))
def test_the_count_is_the_leases_held_and_not_over(make_leases, actions, at):
    """Against a model: each lease's last end, minus those released."""
    leases = make_leases()
    model: dict[str, int] = {}
    for lease, until, release in actions:
        if release:
            leases.release("g_h", lease)
            model.pop(lease, None)
        else:
            leases.hold("g_h", lease, NOW + until * 1000, NOW)
            model[lease] = NOW + until * 1000
    expected = sum(1 for end in model.values() if end > NOW + at * 1000)
    assert leases.count(["g_h"], NOW + at * 1000) == {"g_h": expected}
