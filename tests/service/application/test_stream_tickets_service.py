"""The application's stream tickets (service/application/stream_tickets.py), with no HTTP: issued for a game there is,
redeemed only on that game and only while the token they stand for works."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.application.commands import NewGame, SeatRequest
from service.application.games import GameService
from service.application.players import PlayerService, hash_token
from service.application.stream_tickets import StreamTickets, TicketHolder
from service.common.errors import NotFound
from service.storage.events import EventStore
from service.storage.players import PlayerStore
from service.storage.stream_tickets import TicketStore

NOW = datetime(2026, 3, 1, 12, 0, 0, 600_000, UTC).timestamp()


@pytest.fixture
def games(redis_pair, key_prefix) -> GameService:
    text = redis_pair[0]
    return GameService(EventStore(text, key_prefix), PlayerStore(text, key_prefix, cache_seconds=0))


@pytest.fixture
def tickets(games, redis_pair, key_prefix) -> StreamTickets:
    return StreamTickets(
        TicketStore(redis_pair[0], key_prefix, ttl=60), PlayerService(games.players), games.load, clock=lambda: NOW
    )


def a_game(games: GameService, tickets: StreamTickets) -> tuple[str, str]:
    """Ana's token and a game of hers."""
    signed_up = tickets.players.sign_up("Ana")
    game = games.create(signed_up.player, NewGame([SeatRequest("human"), SeatRequest("human")])).game
    assert game is not None
    return signed_up.token, game.id


def test_a_ticket_stands_for_its_player_and_token_on_its_game_until_it_expires(games, tickets):
    token, game_id = a_game(games, tickets)
    ana = tickets.players.by_token(token)
    assert ana is not None
    issued = tickets.issue(ana, game_id, token)
    assert issued.ticket.startswith("st_") and token not in issued.ticket
    assert issued.expires_at == "2026-03-01T12:01:00Z"  # a minute from now, to the second it began in
    assert tickets.redeem(issued.ticket, game_id) == TicketHolder(ana, hash_token(token))
    assert tickets.redeem(issued.ticket, game_id) is not None  # again, as EventSource reconnects


def test_a_ticket_is_nobodys_on_another_game_unknown_or_once_its_token_is_revoked(games, tickets):
    token, game_id = a_game(games, tickets)
    ana = tickets.players.by_token(token)
    assert ana is not None
    other = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("human")])).game
    assert other is not None
    issued = tickets.issue(ana, game_id, token)
    assert tickets.redeem(issued.ticket, other.id) is None
    assert tickets.redeem("st_" + "x" * 32, game_id) is None and tickets.redeem(token, game_id) is None
    tickets.players.revoke_token(ana, tickets.players.tokens(ana)[0].id)
    assert tickets.redeem(issued.ticket, game_id) is None


def test_no_ticket_for_a_game_there_is_not(games, tickets, redis_pair, key_prefix):
    token, _ = a_game(games, tickets)
    ana = tickets.players.by_token(token)
    assert ana is not None
    with pytest.raises(NotFound) as missing:
        tickets.issue(ana, "g_0000000000000000", token)
    assert missing.value.code == "game_not_found"
    assert not list(redis_pair[0].scan_iter(match=f"{key_prefix}ticket:*"))
