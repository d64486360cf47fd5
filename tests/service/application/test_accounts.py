"""The players' application service without HTTP: records kept as games finish, public profiles, deleting an account.

On fakeredis (slot-checked) and the real Redis, through the runtime the API and the workers build.
"""

from __future__ import annotations

import dataclasses

import pytest

from engine import Variant, step_from_dict
from service.application.commands import NewGame, SeatRequest
from service.application.erasure import DELETED_NAME
from service.application.players import Player
from service.application.records import counted
from service.common.errors import NotFound
from service.storage.players.keys import played_key, player_key, won_key
from workers.runner import drain

HUMANS = NewGame(seats=[SeatRequest("human"), SeatRequest("human")], variant=Variant.BASIC)
FOLD = [step_from_dict({"type": "fold"})]


def sign_up(runtime, name: str, handle: str | None = None) -> Player:
    return runtime.accounts.sign_up(name, handle=handle).player


def two_player_game(runtime, ana: Player, bo: Player, request: NewGame = HUMANS) -> str:
    made = runtime.games.create(ana, request).game
    runtime.games.join(made.id, bo, made.join_code)
    return made.id


def finish(runtime, game_id: str, loser: Player, other: Player) -> None:
    """Fold whoever is to move until the game is over: the loser first if it is theirs to move."""
    game = runtime.games.load(game_id)
    while game.status != "finished":
        mover = game.seats[game.seat_to_move()].player_id
        runtime.games.act(game_id, loser if mover == loser.id else other, FOLD)
        drain(runtime)
        game = runtime.games.load(game_id)


def test_a_finished_game_counts_once_in_the_record_of_each_player(runtime):
    ana, bo = sign_up(runtime, "Ana", "ana"), sign_up(runtime, "Bo")
    game_id = two_player_game(runtime, ana, bo)
    finish(runtime, game_id, ana, bo)
    game = runtime.games.load(game_id)
    winner = game.seats[game.state.winner].player_id
    runtime.games.lists.archive(game)  # indexed again (a listing that found it among the open ones): counted once
    runtime.games.lists.archive(game)
    for player in (ana, bo):
        profile = runtime.accounts.profile(player.id)
        assert (profile.played, profile.won) == (1, int(player.id == winner))
    assert runtime.accounts.profile("ANA").player == runtime.players.get(ana.id)


def test_games_called_off_or_still_in_play_count_for_nobody(runtime):
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    waiting = runtime.games.create(ana, HUMANS).game
    runtime.games.cancel(waiting.id, ana)
    two_player_game(runtime, ana, bo)  # in play
    assert [(p.played, p.won) for p in map(runtime.accounts.profile, (ana.id, bo.id))] == [(0, 0), (0, 0)]


def test_a_seat_won_by_the_ai_that_took_it_over_is_no_win_of_the_player_who_resigned(runtime):
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    game_id = two_player_game(runtime, ana, bo)
    finish(runtime, game_id, ana, bo)
    game = runtime.games.load(game_id)
    played, won = counted(game)
    assert played == {ana.id, bo.id} and len(won) == 1
    resigned = game.copy()
    resigned.seats[game.state.winner] = dataclasses.replace(resigned.seats[game.state.winner], resigned=True)
    assert counted(resigned) == ({ana.id, bo.id}, set())  # played, and lost, by leaving
    aborted = game.copy()
    aborted.state.winner = None  # an aborted game ends with no winner
    assert counted(aborted) == (set(), set())


def test_a_record_kept_before_records_existed_is_rebuilt_from_the_finished_games_once(runtime):
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    games = [two_player_game(runtime, ana, bo) for _ in range(2)]
    for game_id in games:
        finish(runtime, game_id, ana, bo)
    prefix = runtime.settings.key_prefix
    won = runtime.redis.scard(won_key(prefix, ana.id))
    runtime.redis.delete(played_key(prefix, ana.id), won_key(prefix, ana.id))  # as a player from before the record
    runtime.redis.hdel(player_key(prefix, ana.id), "record")
    profile = runtime.accounts.profile(ana.id)
    assert (profile.played, profile.won) == (2, won)
    assert runtime.redis.hget(player_key(prefix, ana.id), "record") == "1"  # rebuilt once: complete from now on


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_account_deleted(self, player_id: str) -> None:
        self.calls.append(player_id)


def test_deleting_an_account_ends_its_games_and_keeps_the_finished_ones(runtime):
    ana, bo, cy = sign_up(runtime, "Ana", "ana"), sign_up(runtime, "Bo", "bobo"), sign_up(runtime, "Cy")
    mine = runtime.games.create(ana, HUMANS).game  # waiting, hers: called off
    three = NewGame(seats=[SeatRequest("human")] * 3, variant=Variant.BASIC)
    theirs = runtime.games.create(bo, three).game  # waiting, Bo's: her seat opens again
    runtime.games.join(theirs.id, ana, theirs.join_code)
    in_play = two_player_game(runtime, bo, ana)  # in play: an AI takes her seat
    finished = two_player_game(runtime, ana, cy)
    finish(runtime, finished, ana, cy)
    recorder = Recorder()
    runtime.accounts.join(recorder)

    runtime.accounts.delete(ana)

    assert recorder.calls == [ana.id, ana.id]  # before the account goes, and after (what seated her meanwhile)
    assert runtime.games.load(mine.id).status == "cancelled"
    assert runtime.games.load(theirs.id).seat_of(ana.id) is None and runtime.games.load(theirs.id).status == "waiting"
    seat = runtime.games.load(in_play).seats[1]
    assert seat.player_id == ana.id and seat.resigned and seat.kind == "ai" and seat.level == "greedy"
    assert runtime.games.load(finished).seat_of(ana.id) == 0  # the stream keeps her pseudonymous id
    with pytest.raises(NotFound):
        runtime.accounts.profile(ana.id)
    assert runtime.accounts.by_handle("ana") is None and runtime.accounts.find("BoBo").id == bo.id
    prefix = runtime.settings.key_prefix
    assert sorted(runtime.redis.scan_iter(match=f"{player_key(prefix, ana.id)}*")) == [player_key(prefix, ana.id)]


def test_a_game_a_deleted_player_resigned_from_finishes_without_bringing_their_lists_back(runtime):
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    in_play = two_player_game(runtime, bo, ana)
    runtime.accounts.delete(ana)
    game = runtime.games.load(in_play)
    while game.status != "finished":
        if game.seats[game.seat_to_move()].player_id == bo.id:
            runtime.games.act(in_play, bo, FOLD)
        drain(runtime)
        game = runtime.games.load(in_play)
    prefix = runtime.settings.key_prefix
    assert sorted(runtime.redis.scan_iter(match=f"{player_key(prefix, ana.id)}*")) == [player_key(prefix, ana.id)]
    assert runtime.accounts.profile(bo.id).played == 1


def test_by_handle_names_a_player_or_nobody(runtime):
    ana = sign_up(runtime, "Ana", "Ana_B")
    assert runtime.accounts.by_handle("ana_b") == runtime.accounts.by_handle("ANA_B") == runtime.players.get(ana.id)
    for nobody in ("ana_c", "me", "{ana_b}", "x" * 200, "", "ana b"):
        assert runtime.accounts.by_handle(nobody) is None
    assert runtime.accounts.find(ana.id).handle == "Ana_B"
    with pytest.raises(NotFound) as missing:
        runtime.accounts.find("p_0123456789abcdef")
    assert missing.value.code == "player_not_found"


def test_a_deleted_players_seat_is_named_so_in_feeds_and_replays(runtime):
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    game_id = two_player_game(runtime, ana, bo)
    finish(runtime, game_id, ana, bo)
    before = runtime.games.replay(runtime.games.load(game_id), None)
    assert before["seats"][0]["name"] == "Ana"
    runtime.accounts.delete(ana)
    game = runtime.games.load(game_id)
    replay = runtime.games.replay(game, None)  # not the one cached before she was deleted
    assert replay["seats"][0]["name"] == DELETED_NAME and "Ana" not in str(replay)
    assert "Ana" not in str(runtime.games.feed(game, bo.id, 0, 500))
    assert [e["name"] for e in runtime.games.feed(game, None, 0, 500) if e["type"] == "seat_taken"] == [DELETED_NAME, "Bo"]
