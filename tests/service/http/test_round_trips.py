"""What a request and a job send the stores' Redis (issue 25: half the work per move): each saving held by a test.

Counted on the stores' client (the slot-checked fakeredis): the queue's Redis is apart.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

import pytest

from service.domain.game import decode
from service.storage.events import EventStore
from service.storage.events.scripts import APPEND_SCRIPT, READ_SCRIPT
from tests.harness.support import HUMAN, ai
from workers.jobs import JOBS


def counted(client: Any) -> Counter[str]:
    """What ``client`` sends from now on: commands by name, the event store's scripts by what they do."""
    names = {hashlib.sha1(APPEND_SCRIPT.encode()).hexdigest(): "append", hashlib.sha1(READ_SCRIPT.encode()).hexdigest(): "read"}
    sent: Counter[str] = Counter()
    original = client.execute_command

    def execute_command(*args: Any, **options: Any) -> Any:
        name = str(args[0]).upper()
        sent[names.get(str(args[1]), name) if name == "EVALSHA" else name] += 1
        return original(*args, **options)

    client.execute_command = execute_command
    return sent


def pick(view: dict[str, Any]) -> dict[str, Any]:
    step = view["legal_steps"][0]
    return {k: step[k] for k in ("type", "card", "seat", "to") if k in step}


def test_an_action_on_a_cached_game_is_one_append_and_reads_no_idempotency_record(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()], seed=4)
    api.run_jobs()
    view = api.view(game["id"], token)
    while not view["legal_steps"]:
        api.run_jobs()
        view = api.view(game["id"], token)
    sent = counted(api.runtime.redis)
    headers = {"If-Match": f'"{view["version"]}"', "Idempotency-Key": "k-1"}
    first = api.act(game["id"], token, [pick(view)], headers=headers)
    assert first.status_code == 200, first.get_json()
    assert sent["append"] == 1 and sent["read"] == 0 and sent["HGET"] == 0, sent  # the script checks the record itself
    again = api.act(game["id"], token, [pick(view)], headers=headers)  # refused on the game now: the record answers
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true", again.get_json()
    assert again.get_json()["version"] == first.get_json()["version"]


def test_a_job_playing_ai_turns_one_after_another_reads_the_stream_once(api, monkeypatch):
    token = api.player()["token"]
    game = api.game(token, [ai("greedy"), ai("random"), ai("greedy")], seed=9)
    ran: Counter[str] = Counter()
    for name, job in list(JOBS.items()):

        def counting(*args: Any, _name: str = name, _job: Any = job) -> str:
            ran[_name] += 1
            return str(_job(*args))

        monkeypatch.setitem(JOBS, name, counting)
    sent = counted(api.runtime.redis)
    api.run_jobs()
    reads, jobs_run = sent["read"], sum(ran.values())
    assert api.view(game["id"], token)["status"] == "finished"
    # Each job reads the stream once, then plays up to 3 turns on the fold it appended (the append checks its head):
    # the turns of quick AIs one after another in one append, so fewer appends than turns.
    assert reads <= jobs_run + 1, (ran, sent)  # (and the ticker's first look at the game, which put it on the agenda)
    turns = sum(1 for e in api.runtime.store.read_all(game["id"]) if decode(e.payload)["type"] == "turn_started")
    assert sent["append"] < turns, (turns, sent)


def test_a_wait_for_an_event_already_there_is_one_xread(store_and_client):
    store, client = store_and_client
    store.append("g1", 0, ["a", "b"])
    sent = counted(client)
    assert store.wait("g1", 1, 1.0)
    assert sent == {"XREAD": 1}, sent


def test_a_wait_on_a_compacted_stream_ends_with_the_truth(store_and_client):
    store, _ = store_and_client
    store.append("g1", 0, ["a", "b"])
    store.compact("g1", 2, ["a", "b"])
    assert store.wait("g1", 1, 0.2)
    assert not store.wait("g1", 2, 0.2)


@pytest.fixture
def store_and_client(redis_client, key_prefix):
    return EventStore(redis_client, key_prefix), redis_client
