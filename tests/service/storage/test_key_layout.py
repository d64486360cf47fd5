"""The cluster key layout: one slot per player, and writes across slots ordered so a crash leaves nothing half-usable.

Every storage-facing test runs on a slot-checked fakeredis (``tests/harness/slots.py``), so a transaction or script over
two slots fails wherever it is.  Here: that a player's keys do share one slot, and what a crash between the
two writes of a token (its listing under the player, its lookup key) leaves behind.
"""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from service.application.commands import NewGame, SeatRequest
from service.storage.events import Idempotency
from service.storage.players import PlayerStore
from service.storage.players.keys import player_key, records_key, token_key
from tests.harness.support import HUMAN, ai


class Crash(Exception):
    pass


def test_every_key_of_a_player_is_on_the_players_slot(api, runtime):
    ana, bo = api.player("Ana"), api.player("Bo")
    api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"})
    finished = api.game(ana["token"], [HUMAN, ai("random")], variant="basic")
    api.run_jobs()
    if api.view(finished["id"], ana["token"])["status"] != "finished":
        api.act(finished["id"], ana["token"], [{"type": "fold"}])
    api.game(bo["token"], [HUMAN, ai("greedy")], variant="basic")
    api.call("GET", "/v1/players/me/games", ana["token"])
    won = api.view(finished["id"], ana["token"])["winner"] == 0
    prefix = runtime.settings.key_prefix
    keys = list(runtime.redis.scan_iter(match=f"{prefix}player:*"))
    # the finished game, counted in her record and her statistics (service/storage/statistics.py), indexed in her
    # archive (service/storage/archive.py)
    ana_lists = {":finished", ":played", *([":won"] if won else []), ":archive", ":archive:entries", ":stats", ":stats:games"}
    for player, lists in ((ana, ana_lists), (bo, {":games"})):
        own = [key for key in keys if key.startswith(player_key(prefix, player["id"]))]
        suffixes = {key.removeprefix(player_key(prefix, player["id"])) for key in own}
        assert suffixes - {":feed"} == {"", ":tokens", *lists}  # ":feed": the notices they were sent, if any yet
        assert {key_slot(key.encode()) for key in own} == {key_slot(player_key(prefix, player["id"]).encode())}
    assert len(keys) == sum(key.startswith(player_key(prefix, p["id"])) for key in keys for p in (ana, bo))


@pytest.fixture
def players(redis_client, key_prefix) -> PlayerStore:
    return PlayerStore(redis_client, key_prefix, cache_seconds=0)


def crash_when_enabling(monkeypatch, store: PlayerStore) -> None:
    def crash(player_id, info, *lifetime):
        raise Crash

    monkeypatch.setattr(store, "_enable_token", crash)


@pytest.mark.on_cluster
def test_a_sign_up_cut_short_leaves_a_token_listed_that_does_not_work(players, monkeypatch):
    """Listed first, working second: a crash in between never leaves a token that works for a player not there."""
    crash_when_enabling(monkeypatch, players)
    with pytest.raises(Crash):
        players.create("Ana", "2026-01-01T00:00:00.000Z")
    created = list(players.redis.scan_iter(match=f"{players.prefix}*"))
    assert created and not any(key.startswith(f"{players.prefix}token:") for key in created)
    player_id = next(key for key in created if key.endswith(":tokens")).removeprefix(players.prefix + "player:{")[:-8]
    assert players.get(player_id) is not None and len(players.tokens(player_id)) == 1


@pytest.mark.on_cluster
def test_an_issue_cut_short_leaves_a_listed_token_that_does_not_work_and_can_be_revoked(players, monkeypatch):
    player, first = players.create("Ana", "2026-01-01T00:00:00.000Z")
    crash_when_enabling(monkeypatch, players)
    with pytest.raises(Crash):
        players.issue_token(player.id, "phone", "2026-01-01T00:00:01.000Z")
    monkeypatch.undo()
    listed = players.tokens(player.id)
    assert [info.label for info in listed] == ["first token", "phone"]
    assert not players.redis.exists(token_key(players.prefix, listed[1].digest))
    assert players.revoke_token(player.id, listed[1].id)
    assert [info.label for info in players.tokens(player.id)] == ["first token"]
    assert players.by_token(first) == player


@pytest.mark.on_cluster
def test_a_revocation_cut_short_has_stopped_the_token_already(players, monkeypatch):
    """Revoked, a token stops working first (its lookup key goes) and is unlisted after."""
    player, first = players.create("Ana", "2026-01-01T00:00:00.000Z")
    _, second = players.issue_token(player.id, "phone", "2026-01-01T00:00:01.000Z")
    phone = players.tokens(player.id)[1]

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(players.redis, "hdel", crash)
    with pytest.raises(Crash):
        players.revoke_token(player.id, phone.id)
    monkeypatch.undo()
    assert players.by_token(second) is None and players.by_token(first) == player
    assert [info.id for info in players.tokens(player.id)] == [players.tokens(player.id)[0].id, phone.id]
    assert players.revoke_token(player.id, phone.id)  # revoked again, it goes
    assert [info.label for info in players.tokens(player.id)] == ["first token"]


SIGNED_UP, RETRIED = "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:05.000Z"


@pytest.mark.on_cluster
@pytest.mark.parametrize("cut", ["_sign_up", "_enable_token"])
def test_a_sign_up_with_a_key_cut_short_is_made_whole_by_its_retry(players, monkeypatch, cut):
    """The record (on the address's slot) is claimed first: a retry makes what the first attempt did not, as it said."""
    key = Idempotency("203.0.113.5", "signup-1", "f" * 64)

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(players, cut, crash)
    with pytest.raises(Crash):
        players.create_once("Ana", SIGNED_UP, key)
    monkeypatch.undo()
    player, token, replayed = players.create_once("Ana", RETRIED, key)
    assert replayed and player.created_at == SIGNED_UP  # what the first attempt decided
    assert players.by_token(token) == player and len(players.tokens(player.id)) == 1
    assert players.create_once("Ana", RETRIED, key)[:2] == (player, token)


def test_a_game_created_with_a_key_cut_short_is_made_by_its_retry_under_the_recorded_id(api, runtime, monkeypatch):
    token = api.player()["token"]
    creator = runtime.players.by_token(token)
    key = Idempotency(creator.id, "game-1", "f" * 64)
    new_game = NewGame(seats=[SeatRequest("human"), SeatRequest("human")])

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(runtime.games, "append", crash)  # claimed and listed, never appended
    with pytest.raises(Crash):
        runtime.games.create(creator, new_game, key)
    monkeypatch.undo()
    recorded = runtime.games.records.find(records_key(runtime.settings.key_prefix, creator.id), key)
    assert recorded is not None and not runtime.store.exists(recorded["id"])
    made = runtime.games.create(creator, new_game, key)
    assert made.game is not None and made.game.id == recorded["id"] and made.game.version == recorded["version"]
    again = runtime.games.create(creator, new_game, key)
    assert again.replayed is not None and again.game is not None and again.game.id == recorded["id"]
    listed = api.call("GET", "/v1/players/me/games", token).get_json()["games"]
    assert [game["id"] for game in listed] == [recorded["id"]]


def test_two_creates_with_one_key_at_once_make_one_game(api, runtime, monkeypatch):
    """The second finds no record when it looks, and the first's when it claims: it answers with the first's game."""
    token = api.player()["token"]
    creator = runtime.players.by_token(token)
    key = Idempotency(creator.id, "game-1", "f" * 64)
    new_game = NewGame(seats=[SeatRequest("human"), SeatRequest("human")])
    first = runtime.games.create(creator, new_game, key)
    monkeypatch.setattr(runtime.games.records, "find", lambda *args: None)
    second = runtime.games.create(creator, new_game, key)
    assert second.replayed is not None and second.game is not None and first.game is not None
    assert second.game.id == first.game.id
    assert len(api.call("GET", "/v1/players/me/games", token).get_json()["games"]) == 1
