"""Deleting an account is immediate and complete, whatever races it (issue 34).

- No token of the account works in any process once the deletion answered: a second store (another process, with its
  own cache of token lookups) refuses it for a write at once, and for a read at once too (on the real Redis through
  its tracking of the tokens' keys, on fakeredis by asking the store).
- Nothing is written to a deleted account's record (a rename, a handle, a webhook, a token), and what asked gets a
  clean refusal, never an assertion.
- Nothing the account started lives on, wherever a write of theirs lands around the deletion: before its first pass,
  between the two passes, after both (a request authenticated before it, writing after it); and a game that seats
  them made by someone else (a challenge accepted, a match, a rematch) after they went.
- Challenges show "deleted player" for the account, in everyone's inbox.

The stores' and the application's tests run on fakeredis and the real Redis (the stores' on a cluster too), and so
do those through HTTP (they build their own app).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from engine import Variant
from service.application.challenges import NewChallenge
from service.application.commands import NewGame, SeatRequest
from service.application.erasure import DELETED_NAME
from service.application.matchmaking import TicketRequest
from service.application.players import Player
from service.application.push import new_vapid_key
from service.common.errors import Refused
from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from service.storage.changes import ChangeWatch
from service.storage.players import AccountGone, PlayerStore
from service.storage.players.keys import player_key, token_key, tokens_key
from service.storage.push import push_key
from tests.harness.examples import PUSH_SUBSCRIPTION
from tests.harness.support import HUMAN, Api, ai, settings_for

AT = "2026-11-27T12:00:00.000Z"
HUMANS = NewGame(seats=[SeatRequest("human"), SeatRequest("human")], variant=Variant.BASIC)
VS_AI = NewGame(seats=[SeatRequest("human"), SeatRequest("ai", "greedy")], variant=Variant.BASIC)


@pytest.fixture
def other_process(redis_client: redis.Redis, key_prefix: str) -> Iterator[PlayerStore]:
    """The player store of another process: its own cache of token lookups, its own watch of the tokens' keys."""
    watch = ChangeWatch(redis_client, key_prefix, family="token", retry_after=0.2)
    yield PlayerStore(redis_client, key_prefix, watch=watch)
    watch.close()


class Counting:
    """The commands and pipelines a client sends from now on: a round trip each."""

    def __init__(self, client: redis.Redis) -> None:
        self.trips = 0
        original, pipeline = client.execute_command, client.pipeline

        def execute_command(*args: Any, **options: Any) -> Any:
            self.trips += 1
            return original(*args, **options)

        def counted_pipeline(*args: Any, **options: Any) -> Any:
            pipe = pipeline(*args, **options)
            execute = pipe.execute

            def run(*a: Any, **k: Any) -> Any:
                self.trips += 1
                return execute(*a, **k)

            pipe.execute = run
            return pipe

        client.execute_command = execute_command  # type: ignore[method-assign]
        client.pipeline = counted_pipeline  # type: ignore[method-assign]


# --- the tokens: refused at once, in every process -----------------------------------------------------------------


@pytest.mark.on_cluster
def test_a_token_another_process_cached_works_for_nothing_once_its_account_is_deleted(redis_client, key_prefix, other_process):
    here = PlayerStore(redis_client, key_prefix)
    player, token = here.create("Ana", AT)
    assert other_process.by_token(token) == player  # cached there now
    assert other_process.by_token(token, fresh=True) == player

    here.erase(player.id, AT)

    assert other_process.by_token(token, fresh=True) is None  # a write: refused at once
    assert other_process.by_token(token) is None  # a read: at once too
    assert other_process.by_token(token) is None


@pytest.mark.on_cluster
def test_a_token_revoked_in_one_process_is_refused_at_once_by_another(redis_client, key_prefix, other_process):
    here = PlayerStore(redis_client, key_prefix)
    player, first = here.create("Ana", AT)
    info, second = here.issue_token(player.id, "phone", AT)
    assert other_process.by_token(second) == player == other_process.by_token(first)
    assert here.revoke_token(player.id, info.id)
    assert other_process.by_token(second) is None and other_process.by_token(second, fresh=True) is None
    assert other_process.by_token(first) == player  # the other token still works


def test_a_cached_token_costs_a_read_no_round_trip_where_redis_tracks_it_and_a_write_one(redis_client, key_prefix, other_process):
    """The price of the check, in round trips to the store: a write's token is asked about once (its lookup key); a
    read's, never while the watch vouches for it (the real Redis), once where nothing tracks (fakeredis: no tracking,
    so the read asks like a write)."""
    player, token = PlayerStore(redis_client, key_prefix).create("Ana", AT)
    assert other_process.by_token(token) == player
    counting = Counting(redis_client)
    before = counting.trips
    assert other_process.by_token(token, fresh=True) == player
    assert counting.trips - before == 1
    before = counting.trips
    assert other_process.by_token(token) == player
    assert other_process.watch is not None
    assert counting.trips - before == (0 if other_process.watch.watching else 1)


# --- the record: never written again ----------------------------------------------------------------------------------


@pytest.mark.on_cluster
def test_a_deleted_accounts_record_stays_a_tombstone_whatever_a_late_request_asks(redis_client, key_prefix):
    store = PlayerStore(redis_client, key_prefix)
    player, _ = store.create("Ana", AT, handle="ana")
    store.erase(player.id, AT)
    with pytest.raises(AccountGone):
        store.update(player.id, name="Back", webhook_url="http://127.0.0.1:9/hook", language="de")
    with pytest.raises(AccountGone):
        store.set_handle(player.id, "ana_again")
    with pytest.raises(AccountGone):
        store.set_handle(player.id, "ANA")  # the same handle, another case
    with pytest.raises(AccountGone):
        store.issue_token(player.id, "late", AT)
    assert redis_client.hgetall(player_key(key_prefix, player.id)) == {"deleted_at": AT}
    assert store.get(player.id) is None and store.by_handle("ana_again") is None
    assert store.claims.owner("ana_again") is None  # the handle claimed for it was let go


@pytest.mark.on_cluster
def test_a_token_listed_before_the_erase_and_made_to_work_after_it_unmakes_itself(redis_client, key_prefix, monkeypatch):
    store = PlayerStore(redis_client, key_prefix)
    player, _ = store.create("Ana", AT)
    enable = store._enable_token

    def erase_first(player_id: str, info: Any, lifetime: int | None = None) -> None:  # the deletion, between the
        store.erase(player_id, AT)  # token's listing and its key
        enable(player_id, info, lifetime)

    monkeypatch.setattr(store, "_enable_token", erase_first)
    with pytest.raises(AccountGone):
        store.issue_token(player.id, "late", AT)
    assert not list(redis_client.scan_iter(match=token_key(key_prefix, "*")))


# --- the application: nothing lives on ----------------------------------------------------------------------------------


def sign_up(runtime: Runtime, name: str, handle: str | None = None) -> Player:
    return runtime.accounts.sign_up(name, handle=handle).player


def all_games(runtime: Runtime) -> set[str]:
    """Every game there is (the test's keys): a game the deleted player's lists no longer name is looked at too."""
    pattern = f"{runtime.settings.key_prefix}game:{{*}}:events"
    return {key.split("{", 1)[1].split("}", 1)[0] for key in runtime.redis.scan_iter(match=pattern)}


def live(runtime: Runtime, player: Player, bo: Player) -> dict[str, Any]:
    """What of ``player``'s still lives: games waiting or in play where their seat is theirs (not an AI's), tickets
    waiting, challenges open (found in Bo's inbox, as well as their own index)."""
    games = []
    for game_id in all_games(runtime):
        game = runtime.games.load(game_id)
        seat = game.seat_of(player.id)
        if game.status in ("waiting", "active") and seat is not None and not game.seats[seat].resigned:
            games.append(game_id)
    tickets = [view.ticket.id for view in runtime.matches.open_tickets(player)]
    challenges = [c.id for c in runtime.challenges.inbox(bo, status="open").challenges if c.concerns(player.id)]
    return {"games": sorted(games), "tickets": tickets, "challenges": challenges}


def everything(runtime: Runtime, ana: Player, bo: Player, challenge_id: str) -> None:
    """Ana starts one of every live thing: a game waiting, a game in play against an AI, a seat in Bo's game, a
    match ticket, a challenge to Bo; and she accepts Bo's challenge to her and Cy (refused: the deletion's first
    pass declined it)."""
    runtime.games.create(ana, HUMANS)
    runtime.games.create(ana, VS_AI)
    theirs = runtime.games.create(bo, NewGame(seats=[SeatRequest("human")] * 3, variant=Variant.BASIC)).game
    runtime.games.join(theirs.id, ana, theirs.join_code)
    runtime.matches.create(ana, TicketRequest(counts=(2,)))
    runtime.challenges.create(ana, NewChallenge([bo.id], HUMANS))
    with pytest.raises(Refused):
        runtime.challenges.accept(challenge_id, ana)


class Meanwhile:
    """A part of the account that joins last: the first time it is called, ``write`` runs (as a request of the
    account's that passed its token's check before the deletion would land there)."""

    def __init__(self, write: Callable[[], None]) -> None:
        self.write: Callable[[], None] | None = write

    def on_account_deleted(self, player_id: str) -> None:
        write, self.write = self.write, None
        if write is not None:
            write()


@pytest.mark.parametrize("moment", ["after the first pass", "after the tombstone"])
def test_what_an_account_starts_while_it_is_deleted_is_ended_by_the_deletion(runtime, monkeypatch, moment):
    ana, bo, cy = sign_up(runtime, "Ana", "ana"), sign_up(runtime, "Bo", "bobo"), sign_up(runtime, "Cy")
    three = NewGame(seats=[SeatRequest("human")] * 3, variant=Variant.BASIC)
    to_her = runtime.challenges.create(bo, NewChallenge([ana.id, cy.id], three)).challenge.id
    if moment == "after the first pass":
        runtime.accounts.join(Meanwhile(lambda: everything(runtime, ana, bo, to_her)))
    else:
        erase = runtime.players.erase

        def erase_then_write(player_id: str, deleted_at: str) -> None:
            erase(player_id, deleted_at)
            monkeypatch.setattr(runtime.players, "erase", erase)
            everything(runtime, ana, bo, to_her)

        monkeypatch.setattr(runtime.players, "erase", erase_then_write)
    runtime.accounts.delete(ana)
    assert live(runtime, ana, bo) == {"games": [], "tickets": [], "challenges": []}


def test_a_game_made_after_a_player_went_seats_an_ai_for_them(runtime):
    """A challenge accepted by its last player, a match, a rematch: made by someone else, perhaps after the player
    went; their seat is an AI's at once, and a game waiting that was theirs is called off."""
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    runtime.accounts.delete(ana)
    in_play = runtime.games.set_up(bo, HUMANS, [(1, ana)])
    assert in_play is not None and in_play.status == "active"
    seat = in_play.seats[1]
    assert seat.player_id == ana.id and seat.resigned and seat.kind == "ai"
    waiting = runtime.games.set_up(ana, NewGame(seats=[SeatRequest("human")] * 3, variant=Variant.BASIC), [(1, bo)])
    assert waiting is not None and waiting.status == "cancelled"
    assert runtime.players.game_ids(ana.id) == set()
    assert live(runtime, ana, bo) == {"games": [], "tickets": [], "challenges": []}


def test_a_challenge_accepted_as_its_challenger_goes_starts_with_an_ai_in_their_seat(runtime, monkeypatch):
    """The last acceptance records the game, the game is made after: the challenger's account went in between."""
    ana, bo = sign_up(runtime, "Ana"), sign_up(runtime, "Bo")
    made = runtime.challenges.create(ana, NewChallenge([bo.id], HUMANS)).challenge
    set_up = runtime.games.set_up

    def deleted_first(*args: Any, **kwargs: Any) -> Any:
        runtime.accounts.delete(ana)
        monkeypatch.setattr(runtime.games, "set_up", set_up)
        return set_up(*args, **kwargs)

    monkeypatch.setattr(runtime.games, "set_up", deleted_first)
    started = runtime.challenges.accept(made.id, bo).challenge
    game = runtime.games.load(started.game_id)
    assert game.status == "active" and game.seats[0].resigned and game.seats[0].player_id == ana.id
    assert started.challenger_name == DELETED_NAME


def test_a_deleted_players_challenges_read_deleted_player_in_every_inbox(runtime):
    ana, bo, cy = sign_up(runtime, "Ana", "ana"), sign_up(runtime, "Bo", "bobo"), sign_up(runtime, "Cy")
    sent = runtime.challenges.create(ana, NewChallenge(["bobo"], HUMANS)).challenge
    received = runtime.challenges.create(bo, NewChallenge(["ana", cy.id], NewGame(seats=[SeatRequest("human")] * 3))).challenge
    runtime.accounts.delete(ana)
    inbox = {c.id: c for c in runtime.challenges.inbox(bo).challenges}
    assert inbox[sent.id].challenger_name == DELETED_NAME and inbox[sent.id].status(runtime.challenges.now()) == "cancelled"
    assert [i.name for i in inbox[received.id].challenged] == [DELETED_NAME, "Cy"]
    assert inbox[received.id].declined_by == ana.id
    assert runtime.challenges.get(received.id, cy).challenged[0].name == DELETED_NAME
    assert "Ana" not in repr(runtime.challenges.inbox(cy).challenges)


# --- through HTTP: a request that passed its token's check before the deletion -------------------------------------


@pytest.fixture
def racing(redis_pair, key_prefix) -> Api:
    runtime = build_runtime(settings_for(key_prefix, vapid_private_key=new_vapid_key()), clients=redis_pair)
    return Api(create_app(runtime), runtime)


#: Every kind of write a deleted account's token could still be in the middle of: (what the service does, the
#: request). ``{game}`` is a game of Bo's waiting for a second player; ``{challenge}``, Bo's challenge to Ana.
WRITES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "create a game vs an AI": ("games", "create", "POST /v1/games", {"seats": [HUMAN, ai("expert")]}),
    "create a game for people": ("games", "create", "POST /v1/games", {"seats": [HUMAN, HUMAN]}),
    "join a game": ("games", "join", "POST /v1/games/{game}/join", {"code": "{code}"}),
    "challenge": ("challenges", "create", "POST /v1/challenges", {"players": ["{bo}"], "seats": [HUMAN, HUMAN]}),
    "accept a challenge": ("challenges", "accept", "POST /v1/challenges/{challenge}/accept", {}),
    "open a match ticket": ("matches", "create", "POST /v1/match-tickets", {"player_counts": [2]}),
    "issue a token": ("accounts", "issue_token", "POST /v1/players/me/tokens", {"label": "late"}),
    "rename, set a handle and a webhook": (
        "accounts",
        "update",
        "PATCH /v1/players/me",
        {"name": "Back", "handle": "back_again", "webhook_url": "http://127.0.0.1:9/hook"},
    ),
    "subscribe to web push": ("push", "subscribe", "POST /v1/players/me/push-subscription", PUSH_SUBSCRIPTION),
}


def _filled(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**names) if "{" in value else value
    if isinstance(value, list):
        return [_filled(item, names) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, names) for key, item in value.items()}
    return value


@pytest.mark.parametrize("when", ["deleted before it writes", "deleted after it wrote"])
@pytest.mark.parametrize("kind", list(WRITES))
def test_a_write_racing_the_deletion_answers_invalid_token_and_leaves_nothing_live(racing, monkeypatch, kind, when):
    api, runtime = racing, racing.runtime
    ana_body, bo_body = api.player("Ana"), api.player("Bo")
    ana, bo = runtime.players.get(ana_body["id"]), runtime.players.get(bo_body["id"])
    assert ana is not None and bo is not None
    api.call("PATCH", "/v1/players/me", bo_body["token"], json={"handle": "bobo"})
    game = api.game(bo_body["token"], [HUMAN, HUMAN])
    challenge = runtime.challenges.create(bo, NewChallenge([ana.id], HUMANS)).challenge
    names = {"game": game["id"], "code": game["join_code"], "challenge": challenge.id, "bo": "bobo"}
    service_name, method_name, request, body = WRITES[kind]
    service = getattr(runtime, service_name)
    write = getattr(service, method_name)

    def racing_write(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(service, method_name, write)  # once
        if when == "deleted before it writes":
            runtime.accounts.delete(ana)  # the token was checked already: the write lands after the whole deletion
            return write(*args, **kwargs)
        try:
            return write(*args, **kwargs)
        finally:
            runtime.accounts.delete(ana)  # the deletion lands before the write is answered

    monkeypatch.setattr(service, method_name, racing_write)
    method, path = request.split(" ")
    answer = api.call(method, _filled(path, names), ana_body["token"], json=_filled(body, names))

    assert answer.status_code == 401 and answer.get_json()["code"] == "invalid_token", answer.get_json()
    api.run_jobs()
    assert live(runtime, ana, bo) == {"games": [], "tickets": [], "challenges": []}
    prefix = runtime.settings.key_prefix
    assert not runtime.redis.exists(push_key(prefix, ana.id), tokens_key(prefix, ana.id))
    assert ana.id not in {runtime.redis.get(key) for key in runtime.redis.scan_iter(match=token_key(prefix, "*"))}
    assert runtime.players.get(ana.id) is None and runtime.accounts.by_handle("back_again") is None
    assert api.call("GET", "/v1/players/me", ana_body["token"]).status_code == 401


def test_deleting_ones_own_account_answers_204_and_the_token_is_refused_for_everything_after(api):
    ana = api.player("Ana")
    assert api.call("DELETE", "/v1/players/me", ana["token"]).status_code == 204
    for method, path, body in (
        ("GET", "/v1/players/me", None),
        ("PATCH", "/v1/players/me", {"name": "Back"}),
        ("POST", "/v1/games", {"seats": [HUMAN, ai()]}),
        ("POST", "/v1/players/me/tokens", {"label": "late"}),
        ("DELETE", "/v1/players/me", None),
    ):
        answer = api.call(method, path, ana["token"], json=body)
        assert answer.status_code == 401 and answer.get_json()["code"] == "invalid_token", (method, path)
