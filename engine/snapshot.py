"""A game state as plain JSON-able data, and back.

Snapshots let the service fold only the tail of a long event stream.  A
snapshot is a cache, never a source of truth: it carries the number of events
it was folded from, and anything that doubts it can fold the events again.
"""

from __future__ import annotations

from typing import Any

from engine.cards import cards_in, format_cards, mask_of, parse_cards
from engine.events import Effect, Finish, Variant
from engine.state import GameState, Options, Phase, Turn

SNAPSHOT_FORMAT = 1


def _cards(mask: int) -> str:
    return format_cards(cards_in(mask))


def state_to_dict(state: GameState) -> dict[str, Any]:
    options = state.options
    turn = state.turn
    return {
        "format": SNAPSHOT_FORMAT,
        "options": None
        if options is None
        else {"players": options.players, "variant": options.variant.value, "action_rules": options.action_rules},
        "seed": state.seed,
        "custom_deck": None if state.custom_deck is None else format_cards(state.custom_deck),
        "phase": state.phase.value,
        "round": state.round,
        "hands": [_cards(m) for m in state.hands],
        "palettes": [_cards(m) for m in state.palettes],
        "out": [_cards(m) for m in state.out],
        "scored": [_cards(m) for m in state.scored],
        "in_round": list(state.in_round),
        "canvas": format_cards(state.canvas),
        "deck": format_cards(state.deck),
        "turn": None if turn is None else [turn.seat, turn.played, None if turn.pending is None else turn.pending.value],
        "first_seat": state.first_seat,
        "round_winner": state.round_winner,
        "winner": state.winner,
        "finish": None if state.finish is None else state.finish.value,
        "events": state.events,
    }


def state_from_dict(data: dict[str, Any]) -> GameState:
    """The inverse of :func:`state_to_dict`; ``ValueError`` for anything it did not write."""
    if data.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"unknown snapshot format {data.get('format')!r}")
    options = data["options"]
    turn = data["turn"]
    custom = data["custom_deck"]
    return GameState(
        options=None if options is None else Options(options["players"], Variant(options["variant"]), options["action_rules"]),
        seed=data["seed"],
        custom_deck=None if custom is None else tuple(parse_cards(custom)),
        phase=Phase(data["phase"]),
        round=data["round"],
        hands=[mask_of(parse_cards(h)) for h in data["hands"]],
        palettes=[mask_of(parse_cards(p)) for p in data["palettes"]],
        out=[mask_of(parse_cards(o)) for o in data["out"]],
        scored=[mask_of(parse_cards(s)) for s in data["scored"]],
        in_round=[bool(x) for x in data["in_round"]],
        canvas=parse_cards(data["canvas"]),
        deck=parse_cards(data["deck"]),
        turn=None if turn is None else Turn(turn[0], turn[1], None if turn[2] is None else Effect(turn[2])),
        first_seat=data["first_seat"],
        round_winner=data["round_winner"],
        winner=data["winner"],
        finish=None if data["finish"] is None else Finish(data["finish"]),
        events=data["events"],
    )


__all__ = ["SNAPSHOT_FORMAT", "state_from_dict", "state_to_dict"]
