"""``red7 archive``: the rebuild compares and repairs; the dump writes a month's finished games, a replay a line."""

from __future__ import annotations

import gzip
import json

from replays.verify import verify_replay
from service.processes.cli import main as red7
from service.storage.archive import ArchiveStore
from tests.harness.archive import many_games


def test_red7_archive_rebuilds_and_dumps_a_month(api, runtime, capsys, monkeypatch, tmp_path):
    made = many_games(runtime, people=4, games=12)
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")  # a store to read (the test's own, just below)
    monkeypatch.setattr("service.runtime.build_runtime", lambda settings: runtime)
    assert red7(["archive", "rebuild"]) == 0
    assert "12 finished games" in capsys.readouterr().out
    runtime.redis.delete(ArchiveStore(runtime.redis, runtime.settings.key_prefix).games_key(made.players[0][0]))
    assert red7(["archive", "rebuild"]) == 1
    assert red7(["archive", "rebuild", "--write"]) == 0
    assert red7(["archive", "rebuild"]) == 0
    out = tmp_path / "games.ndjson.gz"
    assert red7(["archive", "dump", "2026-01", "-o", str(out)]) == 0
    documents = [json.loads(line) for line in gzip.decompress(out.read_bytes()).decode().splitlines()]
    assert sorted(d["game_id"] for d in documents) == sorted(made.games) and all(verify_replay(d).ok for d in documents)
    assert red7(["archive", "dump", "2026-13", "-o", str(tmp_path / "x")]) == 2
    assert red7(["archive", "dump"]) == 2
