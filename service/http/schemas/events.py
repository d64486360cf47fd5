"""Every event a feed, a stream or a replay shows, one schema per type: the README's event table as a schema.

The events are rendered by the application layer (``service.application.reading``: stored envelopes,
redacted for the viewer), never through these; the tests check what is sent against them.  What a
viewer may not see yet is ``null`` (a hand dealt to another seat, a card another seat drew, the
deck) or left out (the seed and deck of ``game_created`` until the game is over, its join code but
for the creator).  :data:`EVENT_SCHEMAS` feeds the ``Event`` union, discriminated by ``type``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from service.http.schemas.vocabulary import Choice, ref


class EnvelopeSchema(Schema):
    """What every event carries (a subclass adds ``type`` and its own fields)."""

    n = fields.Integer(required=True, validate=validate.Range(1), metadata={"description": "the event number (a version)"})
    at = fields.String(required=True, metadata={"description": "when it was appended (ISO 8601, UTC)"})
    by = fields.String(
        required=True,
        validate=validate.Regexp(r"^(player:\S+|ai:[0-9]+|system:\S+)$"),
        metadata={"description": "who caused it: player:<id>, ai:<seat>, system:scoring, system:deadline or system:rematch"},
    )
    v = fields.Integer(required=True, metadata={"description": "the event schema version it was written with"})


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([name]))


def _seat(description: str = "the seat (from 0)") -> fields.Integer:
    return fields.Integer(required=True, validate=validate.Range(0, 3), metadata={"description": description})


class CreatedSeatSchema(Schema):
    kind = Choice("SeatKind", required=True)
    level = Choice("AiLevel", required=True, allow_none=True, metadata={"description": "AI seats only"})


class GameCreatedEventSchema(EnvelopeSchema):
    type = _type("game_created")
    created_by = fields.String(required=True, metadata={"description": "the creator's player id"})
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    turn_timeout = fields.Integer(required=True, allow_none=True, metadata={"description": "seconds per human turn"})
    timeout_action = Choice("TimeoutAction", required=True)
    dealing = Choice("Dealing", required=True)
    join_code = fields.String(metadata={"description": "to the creator only"})
    seed = fields.Integer(metadata={"description": "once the game is over"})
    deck = fields.List(
        Choice("Card"), allow_none=True, metadata={"description": "once the game is over: the custom deck, or null"}
    )
    listed = fields.Boolean(metadata={"description": "shown among the open tables while a human seat is open (default false)"})
    rated = fields.Boolean(metadata={"description": "counts for ratings once finished (default false)"})
    days_per_turn = fields.Integer(allow_none=True, metadata={"description": "a correspondence game's days a turn"})
    origin = Choice("Origin", metadata={"description": "how the game came to be (default direct)"})
    rematch_of = fields.String(allow_none=True, metadata={"description": "the game this one is a rematch of"})


class SeatTakenEventSchema(EnvelopeSchema):
    type = _type("seat_taken")
    seat = _seat()
    player_id = fields.String(required=True)
    name = fields.String(required=True)


class SeatLeftEventSchema(EnvelopeSchema):
    """Its player left before the start; the seat is open again."""

    type = _type("seat_left")
    seat = _seat()


class SeatResignedEventSchema(EnvelopeSchema):
    """Its player left the game in play; an AI plays the seat from then on."""

    type = _type("seat_resigned")
    seat = _seat()
    level = Choice("AiLevel", required=True)


class TurnTimedOutEventSchema(EnvelopeSchema):
    type = _type("turn_timed_out")
    seat = _seat()
    action = Choice("TimeoutAction", required=True)


class GameCancelledEventSchema(EnvelopeSchema):
    """Its creator called the game off before it started."""

    type = _type("game_cancelled")


class GameAbortedEventSchema(EnvelopeSchema):
    """A player (``seat``) called the game off after the deal, before every seat had moved once: no winner."""

    type = _type("game_aborted")
    seat = _seat("the seat of the player who aborted it")


class RematchOfferedEventSchema(EnvelopeSchema):
    """At a finished game's end the player of ``seat`` wants a rematch; the last offer wanted names it."""

    type = _type("rematch_offered")
    seat = _seat()
    rematch_id = fields.String(
        required=True, allow_none=True, metadata={"description": "the rematch's game id, on the offer that completes the set"}
    )


class RematchDeclinedEventSchema(EnvelopeSchema):
    """The player of ``seat`` wants no rematch: there is none."""

    type = _type("rematch_declined")
    seat = _seat()


class RematchStartedEventSchema(EnvelopeSchema):
    """The rematch the offers named was made."""

    type = _type("rematch_started")
    rematch_id = fields.String(required=True, metadata={"description": "the rematch's game id"})


class TimeGivenEventSchema(EnvelopeSchema):
    """The player of ``seat`` gave ``seconds`` to the turn of ``to`` (the seat to move): its deadline moves later."""

    type = _type("time_given")
    seat = _seat("the seat of the player who gave the time")
    to = _seat("the seat to move, whose turn got the time")
    seconds = fields.Integer(required=True, validate=validate.Range(1), metadata={"description": "seconds of running clock"})


class GameStartedEventSchema(EnvelopeSchema):
    type = _type("game_started")
    players = fields.Integer(required=True, validate=validate.Range(2, 4))
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    seed = fields.Integer(required=True, allow_none=True, metadata={"description": "null until the game is over"})
    deck = fields.List(
        Choice("Card"), required=True, allow_none=True, metadata={"description": "a custom deal's deck; null until the end"}
    )
    custom_deal = fields.Boolean(required=True)


class RoundDealtEventSchema(EnvelopeSchema):
    type = _type("round_dealt")
    round = fields.Integer(required=True, validate=validate.Range(1))
    hands = fields.List(
        fields.List(Choice("Card"), allow_none=True),
        required=True,
        metadata={"description": "per seat; only yours until the game is over (the others null)"},
    )
    palettes = fields.List(Choice("Card"), required=True, metadata={"description": "each seat's starting palette card"})
    deck = fields.List(Choice("Card"), required=True, allow_none=True, metadata={"description": "top first; null until the end"})
    deck_size = fields.Integer(required=True)
    first_seat = _seat("who moves first")


class TurnStartedEventSchema(EnvelopeSchema):
    type = _type("turn_started")
    seat = _seat()


class CardPlayedEventSchema(EnvelopeSchema):
    type = _type("card_played")
    seat = _seat()
    card = Choice("Card", required=True)
    effect = Choice("Effect", required=True, allow_none=True, metadata={"description": "the action it fires (action rules)"})


class CardDiscardedEventSchema(EnvelopeSchema):
    """Hand to canvas: the card's colour is the new rule."""

    type = _type("card_discarded")
    seat = _seat()
    card = Choice("Card", required=True)


class CardDrawnEventSchema(EnvelopeSchema):
    type = _type("card_drawn")
    seat = _seat()
    card = Choice("Card", required=True, allow_none=True, metadata={"description": "null unless it is yours (until the end)"})
    cause = Choice("DrawCause", required=True)


class CardTakenEventSchema(EnvelopeSchema):
    """A 1's action: a card of another palette goes face down on the deck."""

    type = _type("card_taken")
    seat = _seat()
    from_seat = _seat("whose palette it came from")
    card = Choice("Card", required=True)


class CardPlacedEventSchema(EnvelopeSchema):
    """A 7's action: a card of the seat's palette onto the deck or the canvas."""

    type = _type("card_placed")
    seat = _seat()
    card = Choice("Card", required=True)
    to = Choice("Destination", required=True)


class PlayerEliminatedEventSchema(EnvelopeSchema):
    type = _type("player_eliminated")
    seat = _seat()
    reason = Choice("Elimination", required=True)


class RoundWonEventSchema(EnvelopeSchema):
    type = _type("round_won")
    seat = _seat()
    rule = Choice("Color", required=True)


class RoundScoredEventSchema(EnvelopeSchema):
    type = _type("round_scored")
    seat = _seat()
    cards = fields.List(Choice("Card"), required=True, metadata={"description": "the winner's qualifying cards, now scored"})
    points = fields.Integer(required=True)


class GameFinishedEventSchema(EnvelopeSchema):
    type = _type("game_finished")
    winner = _seat("the winning seat")
    reason = Choice("Finish", required=True)


#: event type -> (component name, schema), in the README's order.
EVENT_SCHEMAS: dict[str, tuple[str, type[Schema]]] = {
    name: (schema.__name__.removesuffix("Schema"), schema)
    for name, schema in (
        ("game_created", GameCreatedEventSchema),
        ("seat_taken", SeatTakenEventSchema),
        ("seat_left", SeatLeftEventSchema),
        ("game_started", GameStartedEventSchema),
        ("round_dealt", RoundDealtEventSchema),
        ("turn_started", TurnStartedEventSchema),
        ("card_played", CardPlayedEventSchema),
        ("card_discarded", CardDiscardedEventSchema),
        ("card_drawn", CardDrawnEventSchema),
        ("card_taken", CardTakenEventSchema),
        ("card_placed", CardPlacedEventSchema),
        ("player_eliminated", PlayerEliminatedEventSchema),
        ("turn_timed_out", TurnTimedOutEventSchema),
        ("seat_resigned", SeatResignedEventSchema),
        ("game_cancelled", GameCancelledEventSchema),
        ("game_aborted", GameAbortedEventSchema),
        ("round_won", RoundWonEventSchema),
        ("round_scored", RoundScoredEventSchema),
        ("game_finished", GameFinishedEventSchema),
        ("rematch_offered", RematchOfferedEventSchema),
        ("rematch_declined", RematchDeclinedEventSchema),
        ("rematch_started", RematchStartedEventSchema),
        ("time_given", TimeGivenEventSchema),
    )
}


def event_union() -> dict[str, Any]:
    """The ``Event`` component: one of the event schemas, told apart by ``type``."""
    return {
        "description": "One event as the caller may see it (the README's event table); `type` tells which",
        "oneOf": [ref(component) for component, _ in EVENT_SCHEMAS.values()],
        "discriminator": {
            "propertyName": "type",
            "mapping": {name: ref(component)["$ref"] for name, (component, _) in EVENT_SCHEMAS.items()},
        },
    }
