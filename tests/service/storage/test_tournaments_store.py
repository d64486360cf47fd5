"""Tournaments' storage: the stream's checked appends under the tournament's own slot, each player's index, and the
shared list with its summaries (newer never replaced by older), on fakeredis (slot-checked) and the real Redis."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain import tournaments as rules
from service.storage.events import Idempotency, Replayed, VersionConflict
from service.storage.tournaments import TournamentIndex, TournamentList, TournamentStreams, player_tournaments_key

NOW = "2026-11-28T07:00:00Z"


def _settings() -> rules.Settings:
    return rules.Settings(
        format="swiss",
        table_size=3,
        rounds=3,
        entries_open="2026-11-28T07:00:00Z",
        entries_close="2026-11-29T07:00:00Z",
        min_players=3,
        max_players=9,
    )


def _created() -> str:
    return rules.envelope(rules.TournamentCreated("org", "Cup", _settings()), at=NOW, by="player:org")


def test_appends_are_checked_against_version_and_head(redis_client, key_prefix):
    streams = TournamentStreams(redis_client, key_prefix)
    first = _created()
    streams.append("t1", 0, [first])
    entered = rules.envelope(rules.PlayerEntered("p1", "Ann", 1500, 1), at=NOW, by="player:p1")
    with pytest.raises(VersionConflict):
        streams.append("t1", 0, [entered])
    with pytest.raises(VersionConflict) as diverged:
        streams.append("t1", 1, [entered], expected_head="another history")
    assert diverged.value.diverged
    streams.append("t1", 1, [entered], expected_head=first)
    folded = rules.fold("t1", [(e.number, e.payload) for e in streams.read_all("t1")])
    assert folded.version == 2 and list(folded.entrants) == ["p1"]
    assert redis_client.exists(f"{key_prefix}tournament:{{t1}}:events")
    assert not redis_client.exists(f"{key_prefix}game:{{t1}}:events")


def test_an_idempotent_append_is_made_once(redis_client, key_prefix):
    streams = TournamentStreams(redis_client, key_prefix)
    key = Idempotency("player:org", "k1", "fp", 60)
    assert not isinstance(streams.append("t2", 0, [_created()], idempotency=key), Replayed)
    again = streams.append("t2", 0, [_created()], idempotency=key)
    assert isinstance(again, Replayed) and again.version == 1
    assert streams.version("t2") == 1


def test_a_player_index_lists_their_tournaments_newest_first(redis_client, key_prefix):
    index = TournamentIndex(redis_client, key_prefix)
    index.add(["a", "b"], "old", 1)
    index.add(["a"], "new", 2)
    index.add(["a"], "new", 2)  # repeated: once
    assert index.of("a") == ["new", "old"]
    assert index.of("b") == ["old"]
    index.forget("a")
    assert index.of("a") == [] and not redis_client.exists(player_tournaments_key(key_prefix, "a"))


def test_a_summary_is_never_replaced_by_an_older_one(redis_client, key_prefix):
    listed = TournamentList(redis_client, key_prefix)
    assert listed.put("t", 5, {"format": "swiss", "started": 2}, version=7)
    assert not listed.put("t", 5, {"format": "swiss", "started": 1}, version=4)
    assert listed.summary("t") == {"format": "swiss", "started": 2, "version": 7}
    listed.drop("t")
    assert listed.summary("t") is None and listed.page(None, 10) == []


def test_a_listed_tournament_without_summary_is_skipped(redis_client, key_prefix):
    listed = TournamentList(redis_client, key_prefix)
    listed.put("t", 5, {"format": "swiss"}, version=1)
    redis_client.hdel(f"{key_prefix}tournaments:{{tournaments}}:summary", "t")
    assert listed.page(None, 10) == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    made=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["swiss", "round_robin"])), min_size=0, max_size=30),
    count=st.integers(1, 7),
)
def test_pages_filtered_cover_each_tournament_once_newest_first(redis_client, key_prefix, made, count):
    prefix = f"{key_prefix}{abs(hash((tuple(made), count)))}:"
    listed = TournamentList(redis_client, prefix)
    for n, (ms, fmt) in enumerate(made):
        listed.put(f"t{n:02d}", ms, {"format": fmt}, version=1)
    wanted = sorted(
        ((ms, f"t{n:02d}") for n, (ms, fmt) in enumerate(made) if fmt == "swiss"), key=lambda x: (-x[0], [-ord(c) for c in x[1]])
    )
    seen: list[tuple[int, str]] = []
    cursor = None
    while True:
        page = listed.page(cursor, count, keep=lambda s: s["format"] == "swiss")
        seen += [(ms, tid) for tid, ms, _ in page]
        if len(page) < count:
            break
        cursor = (page[-1][1], page[-1][0])
    assert seen == wanted
    for key in redis_client.scan_iter(match=f"{prefix}*"):
        redis_client.delete(key)
