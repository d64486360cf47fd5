"""Table talk's keys, on every store: appended in order on the game's slot, paged, a retry answered with the first
message, the bound kept, and nothing written under the game's own keys."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.talk import TableFull, TalkStore, messages_key, records_key

GAME = "g_0123456789abcdef"


@pytest.fixture
def talk(redis_client, key_prefix) -> TalkStore:
    return TalkStore(redis_client, key_prefix, bound=5)


def fields(text: str) -> dict[str, object]:
    return {"author_id": "p_a", "seat": 0, "phrase": None, "text": text, "held": False, "at_ms": 1}


def test_messages_are_appended_in_order_and_paged(talk, redis_client, key_prefix):
    ids = [talk.say(GAME, "p_a", fields(f"m{n}")).id for n in range(4)]
    assert [s.fields["text"] for s in talk.after(GAME, None, 10)] == ["m0", "m1", "m2", "m3"]
    assert [s.id for s in talk.after(GAME, ids[1], 10)] == ids[2:]
    assert talk.get(GAME, ids[2]) is not None and talk.get(GAME, ids[2]).fields["text"] == "m2"
    assert talk.get(GAME, "not-an-id") is None and talk.get(GAME, "1-0") is None
    assert talk.last_id(GAME) == ids[-1]
    assert key_slot(messages_key(key_prefix, GAME).encode()) == key_slot(f"{key_prefix}game:{{{GAME}}}:events".encode())
    assert not list(redis_client.scan_iter(match=f"{key_prefix}game:*"))


def test_a_retry_answers_the_first_message(talk, redis_client, key_prefix):
    key = Idempotency("p_a", "k1", "f" * 64, 60)
    first = talk.say(GAME, "p_a", fields("hello"), key)
    again = talk.say(GAME, "p_a", fields("hello"), key)
    assert (again.id, again.fields, again.replayed, first.replayed) == (first.id, first.fields, True, False)
    assert len(talk.after(GAME, None, 10)) == 1
    with pytest.raises(IdempotencyMismatch):
        talk.say(GAME, "p_a", fields("bye"), Idempotency("p_a", "k1", "e" * 64, 60))
    assert talk.say(GAME, "p_b", fields("hello"), Idempotency("p_b", "k1", "f" * 64, 60)).id != first.id  # another player's key
    assert 0 < redis_client.ttl(records_key(key_prefix, GAME)) <= 60


def test_a_table_keeps_its_bound(talk):
    for n in range(5):
        talk.say(GAME, "p_a", fields(str(n)))
    with pytest.raises(TableFull):
        talk.say(GAME, "p_a", fields("one more"))
