"""The archive's store on fakeredis and the real Redis: entries newest first (equal times by id), the cursor and the
time bounds, writes safe to repeat, the hidden setting, a deleted account's archive gone, a rebuild's replace."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.archive import ArchivedSeat, Entry
from service.storage.archive import ArchiveStore


def entry(game_id: str, ms: int, players: tuple[str, ...] = ("p_a", "p_b")) -> Entry:
    seats = tuple(ArchivedSeat(p, f"N{p}", "human", None, False) for p in players)
    return Entry(game_id, ms, "basic", False, False, seats, tuple(range(1, len(players) + 1)), 0)


def test_entries_come_newest_first_and_page_by_cursor_and_time(redis_client, key_prefix):
    store = ArchiveStore(redis_client, key_prefix)
    made = [entry(f"g{n:03d}", 1000 + n // 3) for n in range(450)]  # three games a millisecond: ties by id
    for e in made:
        store.add(e, e.players)
        store.add(e, e.players)  # again: nothing changes
    newest = sorted(made, key=lambda e: (e.finished_ms, e.game_id), reverse=True)
    assert list(store.entries("p_a", since=None, until=None, after=None)) == newest
    assert list(store.entries("p_b", since=None, until=None, after=None)) == newest
    after = (newest[10].finished_ms, newest[10].game_id)
    assert list(store.entries("p_a", since=None, until=None, after=after)) == newest[11:]
    bounded = [e for e in newest if 1010 <= e.finished_ms <= 1100]
    assert list(store.entries("p_a", since=1010, until=1100, after=None)) == bounded
    assert list(store.entries("p_a", since=1010, until=1100, after=after)) == [
        e for e in bounded if (e.finished_ms, e.game_id) < after
    ]
    assert store.count("p_a") == 450 and store.export("p_a") == {e.game_id: e.to_text() for e in made}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(times=st.lists(st.integers(0, 30), min_size=1, max_size=40), cut=st.integers(0, 40))
def test_paging_from_any_position_neither_skips_nor_repeats(redis_client, key_prefix, times, cut):
    store = ArchiveStore(redis_client, key_prefix + "h:")
    redis_client.delete(store.games_key("p_a"), store.entries_key("p_a"))
    made = [entry(f"g{n:02d}", ms) for n, ms in enumerate(times)]
    for e in made:
        store.add(e, ["p_a"])
    newest = sorted(made, key=lambda e: (e.finished_ms, e.game_id), reverse=True)
    position = newest[min(cut, len(newest) - 1)]
    rest = list(store.entries("p_a", since=None, until=None, after=(position.finished_ms, position.game_id)))
    assert rest == newest[newest.index(position) + 1 :]


def test_the_hidden_setting_a_dropped_archive_and_a_replace(redis_client, key_prefix):
    store = ArchiveStore(redis_client, key_prefix)
    store.add(entry("g1", 5), ["p_a", "p_b"])
    assert not store.hidden("p_a")
    store.set_hidden("p_a", True)
    assert store.hidden("p_a") and not store.hidden("p_b")
    store.set_hidden("p_a", False)
    assert not store.hidden("p_a")
    store.set_hidden("p_a", True)
    store.drop("p_a")
    assert not store.hidden("p_a") and store.count("p_a") == 0 and store.count("p_b") == 1
    assert sorted(store.players()) == ["p_b"]
    store.replace("p_b", {"g2": entry("g2", 7)})
    assert [e.game_id for e in store.entries("p_b", since=None, until=None, after=None)] == ["g2"]
    store.replace("p_b", {})
    assert store.count("p_b") == 0 and store.export("p_b") == {}
