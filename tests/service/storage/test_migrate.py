"""``red7 migrate`` on a store written by the code before the cluster key layout (the committed fixture).

The fixture (``fixtures/store_before_cluster.json``, made by ``python -m tests.service.storage.make_store_fixture`` at
the commit before the layout changed) is loaded under the test's own prefix, on fakeredis (slot-checked) and on
the real Redis, and migrated; then the store must be exactly the fixture with each player's keys renamed, and
the service must find everything in it: every token, every list, every game and its replay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replays.verify import verify_replay
from service.processes.cli import main as red7
from service.runtime import build_runtime
from service.storage.migrate import Report, migrate
from service.storage.players.keys import finished_key, games_key, player_key
from tests.harness.support import settings_for
from tests.service.storage.make_store_fixture import dump_store, load_store

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "store_before_cluster.json").read_text())
OLD = FIXTURE["prefix"]


def renamed(prefix: str) -> dict[str, tuple[str, Any]]:
    """The fixture's keys as the migration must leave them under ``prefix``: a player's renamed, the rest as they were.

    Keys with a TTL (stream tickets, idempotency records, the dispatcher's markers) are left out of the
    comparison: they may expire while the test runs, and none of them is a player's.
    """
    expected = {}
    for key, record in FIXTURE["keys"].items():
        if record["pttl"] > 0:
            continue
        rest = key.removeprefix(OLD)
        if rest.startswith("player:"):
            player_id, _, part = rest.removeprefix("player:").partition(":")
            new = player_key(prefix, player_id) + (f":{part}" if part else "")
        else:
            new = prefix + rest
        expected[new] = (record["type"], record["value"])
    return expected


def lasting(client, prefix: str) -> dict[str, tuple[str, Any]]:
    return {key: (record["type"], record["value"]) for key, record in dump_store(client, prefix).items() if record["pttl"] < 0}


@pytest.fixture
def old_store(redis_client, key_prefix):
    load_store(redis_client, FIXTURE["keys"], OLD, key_prefix)
    return redis_client


def test_the_fixture_is_a_store_of_the_old_layout():
    """What the migration has to move: every player's four keys without a hash tag, and games already tagged."""
    keys = FIXTURE["keys"]
    for player_id in FIXTURE["players"].values():
        assert f"{OLD}player:{player_id}" in keys and f"{OLD}player:{player_id}:tokens" in keys
    assert not any(key.startswith(f"{OLD}player:{{") for key in keys)
    assert {"finished", "active", "waiting"} <= set(FIXTURE["games"].values())
    assert sum(len(tokens) for tokens in FIXTURE["tokens"].values()) > len(FIXTURE["players"]) and FIXTURE["revoked_tokens"]


@pytest.mark.on_cluster  # the migration of a store already on a cluster (redis-cli --cluster import)
def test_migrate_moves_every_player_and_the_service_finds_everything(old_store, redis_pair, key_prefix):
    report = migrate(old_store, key_prefix)
    assert (report.players, report.keys, report.merged, report.remaining) == (4, 15, 0, 0)
    assert lasting(old_store, key_prefix) == renamed(key_prefix)

    runtime = build_runtime(settings_for(key_prefix), clients=redis_pair)
    for name, tokens in FIXTURE["tokens"].items():
        for token in tokens:
            player = runtime.players.by_token(token)
            assert player is not None and player.id == FIXTURE["players"][name], (name, token)
        assert [info.digest for info in runtime.players.tokens(FIXTURE["players"][name])]  # listed under the player
    assert all(runtime.players.by_token(token) is None for token in FIXTURE["revoked_tokens"])

    for player_id in FIXTURE["players"].values():
        was = FIXTURE["keys"]
        assert runtime.players.game_ids(player_id) == set(was.get(f"{OLD}player:{player_id}:games", {"value": []})["value"])
        finished = was.get(f"{OLD}player:{player_id}:finished", {"value": []})["value"]
        assert runtime.players.finished_ids(player_id, None, 100) == sorted(
            ((game_id, int(score)) for game_id, score in finished), key=lambda pair: (-pair[1], pair[0])
        )

    for game_id, status in FIXTURE["games"].items():
        game = runtime.games.load(game_id)
        assert game.status == status and game.version == int(FIXTURE["keys"][f"{OLD}game:{{{game_id}}}:version"]["value"])
        if status == "finished":
            document = runtime.games.replay(game, None)
            verdict = verify_replay(document)
            assert verdict.ok and verdict.retold == 0, verdict.problems
    for replay_id in FIXTURE["replays"]:
        stored = runtime.imports.get(replay_id)  # kept as a whole document then: still read
        assert stored is not None and verify_replay(stored).ok


@pytest.mark.on_cluster  # the migration of a store already on a cluster (redis-cli --cluster import)
def test_the_migrated_players_see_their_games_through_the_api(old_store, redis_pair, key_prefix):
    from service.http.app import create_app
    from tests.harness.support import Api

    migrate(old_store, key_prefix)
    runtime = build_runtime(settings_for(key_prefix), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    for name, tokens in FIXTURE["tokens"].items():
        listed = api.call("GET", "/v1/players/me/games", tokens[-1]).get_json()["games"]
        assert listed, name
        assert all(FIXTURE["games"][game["id"]] == game["status"] for game in listed)
        assert api.call("GET", "/v1/players/me", tokens[0]).get_json()["id"] == FIXTURE["players"][name]
    ana = FIXTURE["tokens"]["Ana"][0]
    assert api.call("POST", "/v1/players/me/tokens", ana, json={"label": "after"}).status_code == 201


@pytest.mark.on_cluster  # the migration of a store already on a cluster (redis-cli --cluster import)
def test_a_second_migrate_changes_nothing(old_store, key_prefix):
    migrate(old_store, key_prefix)
    after = dump_store(old_store, key_prefix)
    again = migrate(old_store, key_prefix)
    assert (again.players, again.keys, again.remaining) == (0, 0, 0)
    assert "nothing to move" in again.summary()
    now = dump_store(old_store, key_prefix)
    assert set(now) <= set(after)  # a key with a TTL may have expired in between; nothing else changed
    assert all((now[key]["type"], now[key]["value"]) == (after[key]["type"], after[key]["value"]) for key in now)
    assert lasting(old_store, key_prefix) == renamed(key_prefix)


@pytest.mark.on_cluster  # the migration of a store already on a cluster (redis-cli --cluster import)
def test_a_migrate_stopped_after_some_players_is_finished_by_the_next(old_store, key_prefix):
    first = migrate(old_store, key_prefix, limit=2)
    assert (first.players, first.remaining) == (2, 2) and "run it again" in first.summary()
    second = migrate(old_store, key_prefix)
    assert (second.players, second.remaining) == (2, 0) and not set(first.moved) & set(second.moved)
    assert lasting(old_store, key_prefix) == renamed(key_prefix)


class Killed(Exception):
    """The migration's process dies here."""


WRITES = {"SET", "HSET", "SADD", "ZADD", "PEXPIRE", "DEL"}


def killed_at(original: Any, kill_at: int) -> Any:
    """``execute_command`` that dies before its ``kill_at``-th write."""
    seen = 0

    def dying(*args: Any, **options: Any) -> Any:
        nonlocal seen
        if str(args[0]).upper() in WRITES:
            seen += 1
            if seen == kill_at:
                raise Killed(kill_at)
        return original(*args, **options)

    return dying


def test_a_migrate_killed_at_any_write_is_finished_by_the_next(backend, redis_pair, key_prefix, monkeypatch):
    """Killed before its n-th write, for every n (every few on the real Redis), a rerun ends in the same state."""
    client = redis_pair[0]
    original = client.execute_command
    load_store(client, FIXTURE["keys"], OLD, key_prefix)
    writes = 0

    def counting(*args: Any, **options: Any) -> Any:
        nonlocal writes
        writes += str(args[0]).upper() in WRITES
        return original(*args, **options)

    monkeypatch.setattr(client, "execute_command", counting)
    migrate(client, key_prefix)
    monkeypatch.setattr(client, "execute_command", original)
    assert writes > 20
    for kill_at in range(1, writes + 1, 1 if backend == "fakeredis" else 7):
        for key in client.scan_iter(match=f"{key_prefix}player:{{*"):
            client.delete(key)
        load_store(client, FIXTURE["keys"], OLD, key_prefix)
        monkeypatch.setattr(client, "execute_command", killed_at(original, kill_at))
        with pytest.raises(Killed):
            migrate(client, key_prefix)
        monkeypatch.setattr(client, "execute_command", original)
        rerun = migrate(client, key_prefix)
        assert rerun.remaining == 0 and rerun.players > 0, kill_at
        assert lasting(client, key_prefix) == renamed(key_prefix), kill_at


def test_red7_migrate_prints_what_it_did(old_store, key_prefix, backend, monkeypatch, capsys):
    if backend == "fakeredis":
        monkeypatch.setattr("service.storage.connections.store_client", lambda url, connections: old_store)
        monkeypatch.setenv("REDIS_URL", "redis://fakeredis.invalid:6379/0")
    else:
        from tests.harness.support import REAL_REDIS_URL

        monkeypatch.setenv("REDIS_URL", REAL_REDIS_URL or "")
    monkeypatch.setenv("RED7_KEY_PREFIX", key_prefix)
    assert red7(["migrate", "--players", "3"]) == 0
    assert "moved 3 players" in capsys.readouterr().out
    assert red7(["migrate"]) == 0
    assert "moved 1 players" in capsys.readouterr().out
    assert red7(["migrate"]) == 0
    said = capsys.readouterr().out
    assert "nothing to move" in said
    assert "games indexed as in play" in said  # the games made before the index was kept (a queue Redis rebuilds from it)
    assert games_key(key_prefix, FIXTURE["players"]["Ana"]) in set(old_store.scan_iter(match=f"{key_prefix}*"))
    assert finished_key(key_prefix, FIXTURE["players"]["Ana"]) in set(old_store.scan_iter(match=f"{key_prefix}*"))


def test_red7_migrate_needs_a_store(monkeypatch, capsys):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert red7(["migrate"]) == 2
    assert "needs REDIS_URL" in capsys.readouterr().err


def test_a_report_says_what_was_done():
    summary = Report(players=2, keys=8, merged=1).summary()
    assert summary == "moved 2 players (8 keys, 1 merged into keys a stopped run had copied)"


def test_a_store_of_todays_layout_has_nothing_to_move():
    """The same story played by today's code: migrate finds no player to move and changes no key."""
    import fakeredis

    from tests.harness.slots import SlotCheckedRedis
    from tests.service.storage.make_store_fixture import make_store

    today = make_store()
    client = SlotCheckedRedis(server=fakeredis.FakeServer(), decode_responses=True)
    load_store(client, today["keys"])
    report = migrate(client, OLD)
    assert (report.players, report.keys, report.remaining) == (0, 0, 0)
    now = dump_store(client, OLD)  # without the keys whose TTL ran out meanwhile (none of them a player's)
    assert {key: (r["type"], r["value"]) for key, r in now.items()} == {
        key: (r["type"], r["value"]) for key, r in today["keys"].items() if key in now or r["pttl"] < 0
    }
    assert any(key.startswith(f"{OLD}player:{{") for key in today["keys"])
