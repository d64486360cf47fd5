"""The shared test clock (``RED7_CLOCK_OFFSET_KEY``), on every store: the wall clock until a test moves it, then moved
for every runtime reading the key, and the wall clock whenever the setting is off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.common.config import Settings
from service.runtime import build_runtime
from service.storage.clock import OffsetClock


def test_the_offset_at_the_key_moves_every_reader_at_once(redis_pair, key_prefix):
    text, _ = redis_pair
    key = f"{key_prefix}clock"
    one, other = OffsetClock(text, key), OffsetClock(text, key)
    before = datetime.now(UTC)
    assert before <= one() <= datetime.now(UTC), "no offset kept yet: the wall clock"
    one.advance(days=2, minutes=3)
    assert one.offset_ms() == other.offset_ms() == (2 * 24 * 60 + 3) * 60_000
    moved = other()
    assert before + timedelta(days=2, minutes=3) <= moved <= datetime.now(UTC) + timedelta(days=2, minutes=3)


def test_the_setting_gives_the_runtime_the_shared_clock_and_none_gives_the_wall_clock(redis_pair, key_prefix):
    key = f"{key_prefix}clock"
    shared = build_runtime(Settings(key_prefix=key_prefix, clock_offset_key=key), clients=redis_pair)
    OffsetClock(redis_pair[0], key).advance(hours=5)
    assert shared.clock() >= datetime.now(UTC) + timedelta(hours=4, minutes=59)
    plain = build_runtime(Settings(key_prefix=key_prefix), clients=redis_pair)
    assert abs(plain.clock() - datetime.now(UTC)) < timedelta(minutes=1), "off by default: the offset is not read"
