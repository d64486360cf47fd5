"""A running game's places at a correspondence round's deadline (service/domain/tournaments/settlement.py): the
ladders' reading of a standing, applied to games cut short at every point of their history."""

from __future__ import annotations

import random

import pytest

from engine import Event, Variant
from engine.bots import GreedyBot
from engine.selfplay import play_game
from service.domain.game import Game, decode, event_envelope, load
from service.domain.lobby import GameCreated, LobbyEvent, SeatResigned, SeatSpec, SeatTaken
from service.domain.ratings import standing
from service.domain.tournaments import current_places
from service.domain.tournaments.events import places_problem

AT = "2026-05-01T12:00:00.000Z"


def history(players: int, variant: Variant, seed: int) -> list[LobbyEvent | Event]:
    seats = (SeatSpec("human"),) * players
    created = GameCreated("p_0", seats, variant.value, False, None, "fold", "random", seed, None, "", rated=True)
    lobby: list[LobbyEvent] = [created, *(SeatTaken(n, f"p_{n}", f"P{n}") for n in range(players))]
    rng = random.Random(seed)
    return [*lobby, *play_game([GreedyBot(rng) for _ in range(players)], variant=variant, seed=seed).events]


def cut(events: list[LobbyEvent | Event], length: int) -> tuple[Game, list[dict]]:
    payloads = [(n + 1, event_envelope(e, at=AT, by="test")) for n, e in enumerate(events[:length])]
    return load("g_test", payloads), [decode(p) for _, p in payloads]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", [Variant.BASIC, Variant.ADVANCED])
def test_every_point_of_a_game_settles_to_a_standing_and_its_end_to_the_ladders_one(players, variant):
    events = history(players, variant, seed=players * 10 + len(variant.value))
    for length in range(players + 2, len(events) + 1):
        game, decoded = cut(events, length)
        places = current_places(game, decoded)
        assert places_problem(places) is None and len(places) == players
        if game.status == "finished":
            assert places == tuple(place for place, _ in standing(game, decoded))
        elif variant is Variant.ADVANCED:
            state = game.state
            keys = [(state.score(s), state.scored[s].bit_length()) for s in range(players)]
            for a in range(players):
                for b in range(players):
                    assert (keys[a] > keys[b]) == (places[a] < places[b])
        else:
            out = [e["seat"] for e in decoded if e["type"] == "player_eliminated"]
            still_in = [s for s in range(players) if s not in out]
            assert {places[s] for s in still_in} == {1}, "nobody has won: those still in share first"
            assert [places[s] for s in reversed(out)] == list(range(len(still_in) + 1, players + 1))


def test_a_forfeited_seat_is_last_whatever_the_cards_say():
    events = history(3, Variant.BASIC, seed=5)
    game, decoded = cut(events, 8)
    assert game.status == "active"
    resigned = decode(event_envelope(SeatResigned(1, "greedy"), at=AT, by="test"))
    places = current_places(game, [*decoded, resigned])
    assert places[1] == 3 and places[0] == places[2] == 1
