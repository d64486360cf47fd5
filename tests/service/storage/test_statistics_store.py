"""The statistics' store on fakeredis (slot-checked) and the real Redis: a game counted once per group however often
it is counted, a group's text for the rebuild, a replace, a dropped player, each group's keys on one slot."""

from __future__ import annotations

from redis.cluster import key_slot

from service.domain.statistics import GROUPS, canonical
from service.storage.statistics import StatisticsStore


def test_a_game_is_counted_once_per_group(redis_client, key_prefix):
    store = StatisticsStore(redis_client, key_prefix)
    assert store.count_player("p_a", "g1", {"games": 1, "rule:red": 2})
    assert not store.count_player("p_a", "g1", {"games": 1, "rule:red": 2})  # again: nothing
    assert store.count_player("p_a", "g2", {"games": 1, "won": 1})
    assert store.player("p_a") == {"games": 2, "rule:red": 2, "won": 1}
    assert store.export_player("p_a") == canonical({"games": 2, "rule:red": 2, "won": 1}, {"g1", "g2"})
    assert store.count_group("basic:2", "g1", {"games": 1, "card:R7": 1})
    assert not store.count_group("basic:2", "g1", {"games": 1, "card:R7": 1})
    assert store.group("basic:2") == {"games": 1, "card:R7": 1} and store.group("basic:3") == {}
    assert set(store.players()) == {"p_a"}
    store.replace_player("p_a", {"games": 7}, {"g9"})
    assert store.export_player("p_a") == canonical({"games": 7}, {"g9"})
    store.drop("p_a")
    assert store.player("p_a") == {} and set(store.players()) == set()


def test_each_groups_keys_share_a_slot(key_prefix):
    store = StatisticsStore.__new__(StatisticsStore)
    store.prefix = key_prefix
    for group in GROUPS:
        hash_key, games_key = store.group_keys(group)
        assert key_slot(hash_key.encode()) == key_slot(games_key.encode())
    hash_key, games_key = store.player_keys("p_abc")
    assert key_slot(hash_key.encode()) == key_slot(games_key.encode()) == key_slot(f"{key_prefix}player:{{p_abc}}".encode())
