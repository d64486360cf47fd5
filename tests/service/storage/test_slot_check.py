"""The slot check itself (``tests/harness/slots.py``): it must fail what a Redis Cluster refuses, and only that."""

from __future__ import annotations

import fakeredis
import pytest

from tests.harness.slots import CrossSlot, SlotCheckedRedis, command_keys

SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return 1"


@pytest.fixture
def client() -> SlotCheckedRedis:
    return SlotCheckedRedis(server=fakeredis.FakeServer(), decode_responses=True)


def test_a_script_over_two_slots_fails_and_writes_nothing(client):
    with pytest.raises(CrossSlot, match="2 cluster slots"):
        client.eval(SCRIPT, 2, "player:a", "player:b", "x")
    script = client.register_script(SCRIPT)
    with pytest.raises(CrossSlot):
        script(keys=["player:a", "token:b"], args=["x"])
    assert client.keys("*") == []
    assert script(keys=["player:{a}", "player:{a}:tokens"], args=["x"]) == 1  # one hash tag: one slot
    assert client.get("player:{a}:tokens") == "x"


def test_a_script_in_a_pipeline_is_checked_too(client):
    script = client.register_script(SCRIPT)
    with client.pipeline(transaction=False) as pipe, pytest.raises(CrossSlot):
        script(keys=["a", "b"], args=["x"], client=pipe)
        pipe.execute()
    assert client.keys("*") == []


def test_a_transaction_over_two_slots_fails_and_writes_nothing(client):
    with client.pipeline(transaction=True) as pipe, pytest.raises(CrossSlot, match="MULTI HSET SET EXEC"):
        pipe.hset("player:p1", mapping={"name": "Ana"})
        pipe.set("token:abc", "p1")
        pipe.execute()
    assert client.keys("*") == []
    with client.pipeline(transaction=True) as pipe:
        pipe.hset("player:{p1}", mapping={"name": "Ana"})
        pipe.hset("player:{p1}:tokens", "t1", "{}")
        assert pipe.execute() == [1, 1]


def test_a_watched_key_counts_in_its_transaction(client):
    with client.pipeline(transaction=True) as pipe, pytest.raises(CrossSlot, match="transaction"):
        pipe.watch("player:{p1}:tokens")
        pipe.hlen("player:{p1}:tokens")
        pipe.multi()
        pipe.set("token:abc", "p1")
        pipe.execute()
    assert client.keys("*") == []


def test_a_multi_key_command_over_two_slots_fails(client):
    client.set("a", "1")
    with pytest.raises(CrossSlot, match="DEL"):
        client.delete("a", "b")
    assert client.delete("{a}", "{a}x") == 0


def test_what_a_cluster_allows_passes(client):
    """Single-key commands on many slots, in a plain pipeline too: a cluster client splits those by node."""
    with client.pipeline(transaction=False) as pipe:
        for player in ("p1", "p2", "p3"):
            pipe.sadd(f"player:{{{player}}}:games", "g1")
            pipe.srem(f"player:{{{player}}}:games", "g0")
        assert len(pipe.execute()) == 6
    client.xadd("game:{g}:events", {"e": "1"}, id="1-0")
    assert client.xread({"game:{g}:events": "0-0"}, count=1)


def test_command_keys_follows_the_key_specs():
    assert command_keys(["EVALSHA", "sha", 2, "a", "b", "arg"]) == ["a", "b"]
    assert command_keys(["XREAD", "COUNT", 1, "STREAMS", "s1", "s2", "0-0", "0-0"]) == ["s1", "s2"]
    assert command_keys(["ZUNIONSTORE", "dest", 2, "a", "b", "WEIGHTS", 1, 2]) == ["dest", "a", "b"]
    assert command_keys(["MSET", "a", 1, "b", 2]) == ["a", "b"]
    assert command_keys(["BLPOP", "a", "b", 5]) == ["a", "b"]
    assert command_keys(["WAIT", 1, 1000]) == [] and command_keys(["HSET", "h", "f", "v"]) == ["h"]
