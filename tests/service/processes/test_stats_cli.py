"""``red7 stats rebuild``: compares the stored statistics with those counted again from the streams, byte for byte
(the sha256 of both printed); a change is found (exit 1) and ``--write`` puts the rebuilt bytes back."""

from __future__ import annotations

import re

from service.processes.cli import main as red7
from service.storage.statistics import StatisticsStore
from tests.harness.archive import many_games


def digests(out: str) -> tuple[str, str]:
    found = re.search(r"rebuilt sha256:([0-9a-f]{64}); stored sha256:([0-9a-f]{64})", out)
    assert found is not None, out
    return found[1], found[2]


def test_red7_stats_rebuild_compares_byte_for_byte_and_writes_back(runtime, capsys, monkeypatch):
    made = many_games(runtime, people=4, games=12)
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")  # a store to read (the test's own, just below)
    monkeypatch.setattr("service.runtime.build_runtime", lambda settings: runtime)
    store = StatisticsStore(runtime.redis, runtime.settings.key_prefix)
    texts = {p: store.export_player(p) for p, _ in made.players}
    assert red7(["stats", "rebuild"]) == 0
    out = capsys.readouterr().out
    assert "12 finished games" in out and "identical" in out
    rebuilt, stored = digests(out)
    assert rebuilt == stored
    runtime.redis.hincrby(store.player_keys(made.players[0][0])[0], "won", 5)
    assert red7(["stats", "rebuild"]) == 1
    out = capsys.readouterr().out
    assert "1 DIFFERENT" in out and f"player:{made.players[0][0]}" in out
    assert digests(out)[0] == rebuilt != digests(out)[1]
    assert red7(["stats", "rebuild", "--write"]) == 0
    capsys.readouterr()
    assert red7(["stats", "rebuild"]) == 0
    assert digests(capsys.readouterr().out) == (rebuilt, rebuilt)
    assert {p: store.export_player(p) for p, _ in made.players} == texts
