"""Red7 rules engine: pure, deterministic, event-sourced.

The stable facade other layers use::

    from engine import Card, Color, qualifying_cards, leader

    state = fold(events)                      # the whole game state
    events = decide(state, Play(Card.parse("R5")), seat=0)
    steps = legal_steps(state)                # for the seat to move
    mine = view(state, seat=0)                # what seat 0 may see
"""

from engine.cards import ALL_CARDS, Card, Color, cards_in, format_cards, mask_of, parse_cards
from engine.decision import RuleViolation, decide, decide_and_fold, decide_steps, game_leader
from engine.events import (
    EVENT_SCHEMA_VERSION,
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Destination,
    DrawCause,
    Effect,
    Elimination,
    Event,
    EventFormatError,
    Finish,
    GameFinished,
    GameStarted,
    PlayerEliminated,
    RoundDealt,
    RoundScored,
    RoundWon,
    TurnStarted,
    Variant,
    event_from_dict,
    event_to_dict,
)
from engine.legal import legal_steps
from engine.projection import redact, view, visible_cards
from engine.rules import leader, qualifying_cards
from engine.state import TARGET_SCORE, CorruptHistory, GameState, Options, Phase, Turn, evolve, fold
from engine.steps import (
    Command,
    DealRound,
    Discard,
    EndTurn,
    Fold,
    Place,
    Play,
    ScoreRound,
    Start,
    Step,
    Take,
    describe_step,
    step_from_dict,
    step_to_dict,
)
from engine.views import LegalStep, SeatView, TurnView, View

__all__ = [
    "ALL_CARDS",
    "EVENT_SCHEMA_VERSION",
    "TARGET_SCORE",
    "Card",
    "CardDiscarded",
    "CardDrawn",
    "CardPlaced",
    "CardPlayed",
    "CardTaken",
    "Color",
    "Command",
    "CorruptHistory",
    "DealRound",
    "Destination",
    "Discard",
    "DrawCause",
    "Effect",
    "Elimination",
    "EndTurn",
    "Event",
    "EventFormatError",
    "Finish",
    "Fold",
    "GameFinished",
    "GameStarted",
    "GameState",
    "LegalStep",
    "Options",
    "Phase",
    "Place",
    "Play",
    "PlayerEliminated",
    "RoundDealt",
    "RoundScored",
    "RoundWon",
    "RuleViolation",
    "ScoreRound",
    "SeatView",
    "Start",
    "Step",
    "Take",
    "Turn",
    "TurnStarted",
    "TurnView",
    "Variant",
    "View",
    "cards_in",
    "decide",
    "decide_and_fold",
    "decide_steps",
    "describe_step",
    "event_from_dict",
    "event_to_dict",
    "evolve",
    "fold",
    "format_cards",
    "game_leader",
    "leader",
    "legal_steps",
    "mask_of",
    "parse_cards",
    "qualifying_cards",
    "redact",
    "step_from_dict",
    "step_to_dict",
    "view",
    "visible_cards",
]
