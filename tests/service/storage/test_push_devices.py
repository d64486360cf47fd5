"""Native push devices in storage: one entry per registration token, on the player's slot, gone with the player.

Every test here runs on the slot-checked fakeredis and the real Redis (the ``redis_client`` fixture).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.crc import key_slot

from service.storage.players.keys import player_key
from service.storage.push_devices import Device, PushDevices, device_id, devices_key

AT = "2026-05-01T12:00:00.000Z"
TOKENS = st.text(st.sampled_from("abcXYZ019_:-."), min_size=1, max_size=40)


def test_the_devices_key_is_on_the_players_slot(key_prefix):
    assert key_slot(devices_key(key_prefix, "p_1").encode()) == key_slot(player_key(key_prefix, "p_1").encode())


def test_a_device_is_kept_by_its_tokens_id_and_forgotten(redis_client, key_prefix):
    store = PushDevices(redis_client, key_prefix)
    phone = Device("fcm", "phone:1", AT)
    store.put("p_1", phone)
    store.put("p_1", Device("fcm", "phone:1", "2026-05-02T12:00:00.000Z"))  # the same token again: replaced
    store.put("p_2", Device("fcm", "other:1", AT))
    assert store.count("p_1") == 1 and store.has("p_1", phone.id) and not store.has("p_2", phone.id)
    assert next(iter(store.of("p_1").values())).created_at.startswith("2026-05-02")
    assert "phone:1" not in str(redis_client.hkeys(devices_key(key_prefix, "p_1")))  # the token is never a key
    assert not store.delete("p_2", phone.id)  # another player's id is none of theirs
    assert store.delete("p_1", phone.id) and store.count("p_1") == 0
    store.put("p_1", phone)
    store.forget("p_1")
    assert store.of("p_1") == {} and store.count("p_2") == 1
    store.forget("p_2")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(TOKENS, max_size=8))
def test_one_entry_per_distinct_token(redis_client, key_prefix, tokens):
    store = PushDevices(redis_client, key_prefix)
    store.forget("p_h")
    for token in tokens:
        store.put("p_h", Device("fcm", token, AT))
    assert sorted(d.token for d in store.of("p_h").values()) == sorted(set(tokens))
    assert set(store.of("p_h")) == {device_id(t) for t in tokens}
    store.forget("p_h")
