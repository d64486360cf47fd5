"""Leak scan: whole games played through the API, every response of every seat searched for a secret.

A seat may never see another player's hand or the deck order before the
game is over.  The scan works on the JSON itself: every card-shaped token in a response is checked against the cards
that were secret for that caller at that moment, computed from the full
event stream that only the server holds.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from engine import cards_in
from service.domain.game import Game, apply, decode
from tests.harness.support import HUMAN, ai

CARD = re.compile(r'"([ROYGBIV][1-7])"')


class Secrets:
    """For each event number: the cards each seat (and a spectator) may not see right after it."""

    def __init__(self, api, game_id: str, seats: int) -> None:
        self.api, self.seats = api, seats
        self.game = Game(game_id)
        self.after: dict[int, dict[int | None, set[str]]] = {}

    def update(self) -> dict[int, dict[int | None, set[str]]]:
        for stored in self.api.runtime.store.read_all(self.game.id, after=self.game.version):
            apply(self.game, stored.number, decode(stored.payload))
            self.after[stored.number] = current_secrets(self.game, self.seats)
        return self.after


def current_secrets(game: Game, seats: int) -> dict[int | None, set[str]]:
    state = game.state
    if not state.hands:
        return {s: set() for s in [*range(seats), None]}
    deck = {str(c) for c in state.deck}
    hands = [{str(c) for c in cards_in(h)} for h in state.hands]
    hidden = {s: deck | {c for other, h in enumerate(hands) if other != s for c in h} for s in [*range(seats), None]}
    for s, seat in enumerate(game.seats):
        if seat.resigned:  # its player watches as a spectator: the hand is an AI's now
            hidden[s] = hidden[None]
    return hidden


def scan_view(view: dict, secret: set[str]) -> None:
    text = json.dumps(view)
    leaked = set(CARD.findall(text)) & secret
    assert not leaked, f"the view shows {leaked}"
    assert "seed" not in view and "deck" not in view


def scan_events(events: list[dict], secrets: dict[int, dict[int | None, set[str]]], seat: int | None) -> None:
    for event in events:
        shown = set(CARD.findall(json.dumps(event)))
        if event["type"] in ("card_taken", "card_placed"):
            shown.discard(event["card"])  # it was on a palette, in plain sight, when it moved
        secret = secrets[event["n"]][seat]
        leaked = shown & secret
        assert not leaked, f"event {event['n']} ({event['type']}) shows {leaked} to seat {seat}"
        assert event.get("seed") is None and (event["type"] != "round_dealt" or event["deck"] is None)


def sse_events(response) -> list[dict]:
    return [json.loads(line[6:]) for line in response.get_data(as_text=True).splitlines() if line.startswith('data: {"n"')]


@pytest.mark.parametrize(
    ("seats", "options", "resign_at"),
    [
        ([HUMAN, HUMAN, HUMAN, ai("greedy")], {"variant": "advanced", "action_rules": True, "seed": 1}, None),
        ([HUMAN, HUMAN], {"variant": "basic", "action_rules": True, "seed": 2}, None),
        ([HUMAN, HUMAN, ai("random")], {"variant": "advanced", "action_rules": False, "seed": 3}, None),
        ([HUMAN, HUMAN, HUMAN], {"variant": "advanced", "action_rules": True, "seed": 4}, 12),  # seat 1 resigns
    ],
)
def test_no_response_of_any_seat_shows_a_card_it_may_not_see(api, seats, options, resign_at):
    rng = random.Random(options["seed"])
    players = [api.player(f"P{i}") for i, s in enumerate(seats) if s["kind"] == "human"]
    game = api.game(players[0]["token"], seats, **options)
    game_id = game["id"]
    for player in players[1:]:
        api.call("POST", f"/v1/games/{game_id}/join", player["token"], json={"code": game["join_code"]})
    tokens = {n: players[n]["token"] for n in range(len(players))}  # humans hold the first seats
    checked = {s: 0 for s in [*tokens, None]}
    secrets = Secrets(api, game_id, len(seats))
    for moves in range(2000):
        if moves == resign_at:
            assert api.call("POST", f"/v1/games/{game_id}/leave", tokens[1]).status_code == 200
        api.run_jobs()
        truth = api.runtime.games.load(game_id)
        if truth.status == "finished":
            break
        secrets_now = current_secrets(truth, len(seats))
        views = {seat: api.view(game_id, token) for seat, token in tokens.items()}
        views[None] = api.view(game_id)
        for seat, view in views.items():
            scan_view(view, secrets_now[seat])
        if moves % 5 == 0:  # the feeds, from where each caller last looked
            known = secrets.update()
            for seat in checked:
                page = api.call("GET", f"/v1/games/{game_id}/events?after={checked[seat]}&limit=500", tokens.get(seat))
                events = page.get_json()["events"]
                scan_events(events, known, seat)
                checked[seat] = events[-1]["n"] if events else checked[seat]
        mover = truth.seat_to_move()
        if mover in tokens and not truth.seats[mover].resigned:
            options_ = [s for s in views[mover]["legal_steps"] if s["type"] != "fold"] or views[mover]["legal_steps"]
            choice = rng.choice(options_)
            step = {k: choice[k] for k in ("type", "card", "seat", "to", "draw") if k in choice}
            assert api.act(game_id, tokens[mover], [step]).status_code == 200
            scan_view(api.responses[-1][1].get_json(), current_secrets(api.runtime.games.load(game_id), len(seats))[mover])
    else:
        raise AssertionError("the game did not finish")
    assert all(n > 10 for n in checked.values()), "the feeds were not scanned"


def test_streams_of_a_live_game_leak_nothing(api):
    players = [api.player("A"), api.player("B")]
    game = api.game(players[0]["token"], [HUMAN, HUMAN], action_rules=True, seed=8)
    api.call("POST", f"/v1/games/{game['id']}/join", players[1]["token"], json={"code": game["join_code"]})
    rng = random.Random(8)
    for _ in range(12):
        truth = api.runtime.games.load(game["id"])
        mover = truth.seat_to_move()
        if mover is None:
            break
        view = api.view(game["id"], players[mover]["token"])
        choices = [s for s in view["legal_steps"] if s["type"] != "fold"]
        choice = rng.choice(choices)
        api.act(game["id"], players[mover]["token"], [{k: choice[k] for k in ("type", "card", "seat", "to") if k in choice}])
    secrets = Secrets(api, game["id"], 2).update()
    for seat, token in ((0, players[0]["token"]), (1, players[1]["token"]), (None, None)):
        events = sse_events(api.call("GET", f"/v1/games/{game['id']}/stream", token))
        assert events
        scan_events(events, secrets, seat)


def test_refused_batches_after_a_3s_draw_cannot_be_used_to_read_the_deck(api):
    """A batch [play a 3, discard X, fold] is refused as a whole; how it is refused must not depend on X.

    Otherwise a player could try every unseen card X and learn the top of the
    deck without committing anything (and then decide whether to play the 3).
    """
    from engine import ALL_CARDS

    ana, bo = api.player("Ana"), api.player("Bo")
    for seed in range(1, 200):
        game = api.game(ana["token"], [HUMAN, HUMAN], action_rules=True, seed=seed)
        api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
        mover = [ana, bo][api.view(game["id"])["turn"]["seat"]]
        view = api.view(game["id"], mover["token"])
        threes = [c for c in view["you"]["hand"] if c.endswith("3")]
        if threes:
            break
    else:
        raise AssertionError("no deal gives the first player a 3")
    seen = set(view["you"]["hand"]) | {c for s in view["seats"] for c in s["palette"]} | set(view["canvas"])
    answers = set()
    for card in (str(c) for c in ALL_CARDS if str(c) not in seen):
        steps = [{"type": "play", "card": threes[0]}, {"type": "discard", "card": card}, {"type": "fold"}]
        response = api.act(game["id"], mover["token"], steps)
        body = response.get_json()
        body.pop("instance", None)
        body.pop("request_id", None)  # new for every request, whatever the deck
        answers.add((response.status_code, json.dumps(body, sort_keys=True)))
    assert len(answers) == 1, answers
    status, body = answers.pop()
    assert status == 422 and json.loads(body)["code"] == "step_after_draw"
    assert api.view(game["id"], mover["token"])["version"] == view["version"]
