"""The open tables' index on its own: entries newest first, a cursor that neither skips nor repeats a table listed at the
same millisecond, an entry and its facts written and removed together, on one Redis Cluster slot."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from service.storage.tables import TableIndex

FACTS = {"variant": "basic", "action_rules": False, "players": 2, "turn_timeout": None, "days_per_turn": None, "rated": False}


@pytest.fixture
def index(redis_client, key_prefix) -> TableIndex:
    return TableIndex(redis_client, key_prefix)


@pytest.mark.on_cluster
def test_entries_come_newest_first_and_a_cursor_skips_and_repeats_none(index):
    for n, ms in enumerate([1000, 2000, 2000, 2000, 3000]):
        index.enter(f"g_{n}", ms, {**FACTS, "players": n})
    seen, after = [], None
    while page := index.page(after, 2):
        seen += [(e.game_id, e.listed_ms) for e in page]
        after = (page[-1].listed_ms, page[-1].game_id)
    assert seen == [("g_4", 3000), ("g_3", 2000), ("g_2", 2000), ("g_1", 2000), ("g_0", 1000)]
    assert [e.facts["players"] for e in index.page(None, 5)] == [4, 3, 2, 1, 0]


@pytest.mark.on_cluster
def test_an_entry_leaves_with_its_facts_and_entering_again_keeps_one(index):
    index.enter("g_1", 1000, FACTS)
    index.enter("g_1", 1500, FACTS)
    assert [(e.game_id, e.listed_ms) for e in index.page(None, 10)] == [("g_1", 1500)]
    index.leave(["g_1", "g_never_listed"])
    index.leave([])
    assert index.page(None, 10) == [] and not index.listed("g_1")
    assert not index.redis.hlen(index.facts_key)


def test_the_index_is_on_one_slot(index):
    assert key_slot(index.recent_key.encode()) == key_slot(index.facts_key.encode())
