"""`red7 replay show|verify|export` on a file and on a game id in the store."""

from __future__ import annotations

import json

import pytest
import redis

from service.http.app import create_app
from service.processes.cli import main
from service.runtime import build_runtime
from tests.harness.support import REAL_REDIS_SKIP, REAL_REDIS_URL, Api, ai, clean_real_redis, settings_for


@pytest.fixture
def finished(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")], variant="basic")
    api.run_jobs()
    return game["id"], api.call("GET", f"/v1/games/{game['id']}/replay/export", token).get_json()


def test_show_and_verify_a_file(finished, tmp_path, capsys):
    _, document = finished
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document))
    assert main(["replay", "verify", str(path)]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["replay", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Round 1 is dealt" in out and "Winner:" in out
    document["outcome"]["winner"] = 1 - document["outcome"]["winner"]
    path.write_text(json.dumps(document))
    assert main(["replay", "verify", str(path)]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_export_writes_a_file_that_verifies(finished, tmp_path, capsys):
    _, document = finished
    source, target = tmp_path / "in.json", tmp_path / "out.json"
    source.write_text(json.dumps(document))
    assert main(["replay", "export", str(source), "-o", str(target)]) == 0
    assert json.loads(target.read_text()) == document


@pytest.mark.real_redis
@pytest.mark.skipif(bool(REAL_REDIS_SKIP), reason=REAL_REDIS_SKIP or "")
def test_show_and_verify_a_game_id_from_the_store(key_prefix, monkeypatch, capsys):
    """A game id is looked up on REDIS_URL (the real Redis: the embedded store lives inside one process)."""
    text, raw = redis.Redis.from_url(REAL_REDIS_URL, decode_responses=True), redis.Redis.from_url(REAL_REDIS_URL)
    runtime = build_runtime(settings_for(key_prefix), clients=(text, raw))
    api = Api(create_app(runtime), runtime)
    try:
        token = api.player()["token"]
        game_id = api.game(token, [ai("random"), ai("greedy")], variant="basic")["id"]
        api.run_jobs()
        monkeypatch.setenv("REDIS_URL", REAL_REDIS_URL)
        monkeypatch.setenv("RED7_KEY_PREFIX", key_prefix)
        assert main(["replay", "verify", game_id]) == 0
        assert main(["replay", "show", game_id]) == 0
        assert game_id in capsys.readouterr().out
    finally:
        clean_real_redis(text, key_prefix)
