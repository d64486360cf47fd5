"""Shared fixtures: every storage-facing test runs on fakeredis and on the real Redis.

The real Redis is the one named by ``RED7_TEST_REDIS_URL`` (``.ci/run`` sets it to
``redis://127.0.0.1:6379/15``).  Each test gets its own key prefix and deletes
only the keys under it.  Without the variable, or with the server unreachable,
the real-Redis half is skipped with the reason.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import fakeredis
import pytest
import redis

from tests.slots import SlotCheckedRedis

REAL_REDIS_URL = os.environ.get("RED7_TEST_REDIS_URL")


def _real_redis_reason() -> str | None:
    if not REAL_REDIS_URL:
        return "RED7_TEST_REDIS_URL is not set (CI sets it to the machine's Redis)"
    try:
        redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        return f"the Redis at {REAL_REDIS_URL} is unreachable: {exc}"
    return None


REAL_REDIS_SKIP = _real_redis_reason()


@pytest.fixture(params=["fakeredis", pytest.param("real", marks=pytest.mark.real_redis)])
def backend(request) -> str:
    """Which Redis a test runs on; real-Redis runs are skipped with a reason when there is none."""
    if request.param == "real" and REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    return request.param


@pytest.fixture
def key_prefix() -> str:
    return f"red7-test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture
def redis_pair(backend: str, key_prefix: str) -> Iterator[tuple[redis.Redis, redis.Redis]]:
    """A text client (the stores') and a bytes client (RQ and the queue side want bytes) on the same server.

    On fakeredis the stores' client is slot-checked (``tests/slots.py``): a script, transaction or command of
    theirs that a Redis Cluster would refuse for spanning two slots fails the test.
    """
    if backend == "fakeredis":
        server = fakeredis.FakeServer()
        text = SlotCheckedRedis(server=server, decode_responses=True)
        raw = fakeredis.FakeRedis(server=server)
        yield text, raw
        return
    assert REAL_REDIS_URL is not None
    text = redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True)
    raw = redis.Redis.from_url(REAL_REDIS_URL)
    yield text, raw
    clean_real_redis(text, key_prefix)
    text.close()
    raw.close()


def clean_real_redis(text: redis.Redis, key_prefix: str) -> None:
    """Delete this test's keys: its own prefix, and RQ's keys for its queue, jobs and workers."""
    namespace = key_prefix.replace(":", "_").strip("_")  # how RQ job ids and queue names carry the prefix
    for pattern in (f"{key_prefix}*", f"rq:*{namespace}*"):
        for key in text.scan_iter(match=pattern, count=500):
            text.delete(key)
    for member in text.smembers("rq:queues"):
        if namespace in member:
            text.srem("rq:queues", member)
    for worker in {*text.smembers("rq:workers"), *text.scan_iter(match="rq:worker:*", count=500)}:
        if text.type(worker) == "hash" and namespace in (text.hget(worker, "queues") or ""):
            text.delete(worker)
            text.srem("rq:workers", worker)


@pytest.fixture
def redis_client(redis_pair) -> redis.Redis:
    return redis_pair[0]
