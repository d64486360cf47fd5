"""Quick match's shapes: what ``createMatchTicket`` takes (a :class:`TicketRequest`) and a ticket as its player reads it."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engine import Variant
from service.application.matchmaking import TicketRequest
from service.domain.lobby import DAYS_PER_TURN
from service.domain.matchmaking import LIVE_TURN_SECONDS, PLAYER_COUNTS
from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice

#: The longest a ticket may ask to wait for (s): the server's own maximum may be shorter (RED7_MATCH_TICKET_MAX_SECONDS).
LONGEST_WAIT = 14 * 24 * 3600


def _strict_flag(description: str) -> fields.Boolean:
    return fields.Boolean(load_default=False, truthy={True}, falsy={False}, metadata={"description": description})


class MatchTicketCreateSchema(Strict):
    player_counts = fields.List(
        fields.Integer(strict=True, validate=validate.OneOf(PLAYER_COUNTS)),
        load_default=list(PLAYER_COUNTS),
        validate=validate.Length(1, len(PLAYER_COUNTS)),
        metadata={"description": "the table sizes you accept, each once (default: 2, 3 and 4)"},
    )
    variant = Choice("Variant", load_default="advanced")
    action_rules = _strict_flag("the card actions")
    rated = _strict_flag("the game counts for ratings")
    turn_seconds = fields.Integer(
        strict=True,
        validate=validate.OneOf(LIVE_TURN_SECONDS),
        metadata={"description": "a live game: seconds a human has per turn (with neither this nor days_per_turn: 60)"},
    )
    days_per_turn = fields.Integer(
        strict=True,
        validate=validate.OneOf(DAYS_PER_TURN),
        metadata={"description": "a correspondence game: days a turn may take (instead of turn_seconds)"},
    )
    rating_range = fields.Integer(
        strict=True,
        load_default=100,
        validate=validate.Range(0, 3000),
        metadata={"description": "how far from your rating an opponent's may be, at first"},
    )
    rating_range_widen = fields.Integer(
        strict=True,
        load_default=100,
        validate=validate.Range(0, 3000),
        metadata={"description": "how much wider the range grows each minute you wait"},
    )
    rating_range_max = fields.Integer(
        strict=True,
        load_default=500,
        validate=validate.Range(0, 3000),
        metadata={"description": "the widest it grows"},
    )
    ai_fill_after = fields.Float(
        allow_none=True,
        validate=validate.Range(0, LONGEST_WAIT),
        metadata={"description": "seconds after which the table's empty seats may be AI seats (null: never)"},
    )
    ai_level = Choice("AiLevel", load_default="greedy", metadata={"description": "the AI seats' level"})
    expires_in = fields.Integer(
        strict=True,
        validate=validate.Range(1, LONGEST_WAIT),
        metadata={"description": "seconds the ticket waits at most (default and maximum: the server's settings)"},
    )

    @validates_schema
    def _consistent(self, data: dict[str, Any], **_: Any) -> None:
        if len(set(data.get("player_counts", ()))) != len(data.get("player_counts", ())):
            raise ValidationError("each count once", "player_counts")
        if data.get("turn_seconds") is not None and data.get("days_per_turn") is not None:
            raise ValidationError("a live turn limit or days per turn, not both", "days_per_turn")
        if data.get("rating_range_max", 500) < data.get("rating_range", 100):
            raise ValidationError("at least rating_range", "rating_range_max")

    @post_load
    def _request(self, data: dict[str, Any], **_: Any) -> TicketRequest:
        return TicketRequest(
            counts=tuple(data["player_counts"]),
            variant=Variant(data["variant"]),
            action_rules=data["action_rules"],
            rated=data["rated"],
            turn_seconds=data.get("turn_seconds"),
            days_per_turn=data.get("days_per_turn"),
            rating_range=data["rating_range"],
            rating_widen=data["rating_range_widen"],
            rating_range_max=data["rating_range_max"],
            ai_fill_after=data.get("ai_fill_after"),
            ai_level=data["ai_level"],
            expires_in=data.get("expires_in"),
        )


class RatingRangeSchema(Schema):
    low = fields.Integer(required=True)
    high = fields.Integer(required=True)


class MatchTicketSchema(Schema):
    id = fields.String(required=True)
    status = Choice("MatchTicketStatus", required=True)
    game_id = fields.String(
        required=True, allow_none=True, metadata={"description": "matched: your game (also in your list of games)"}
    )
    player_counts = fields.List(fields.Integer(), required=True)
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    rated = fields.Boolean(required=True)
    turn_seconds = fields.Integer(required=True, allow_none=True)
    days_per_turn = fields.Integer(required=True, allow_none=True)
    rating = fields.Integer(required=True, metadata={"description": "yours, as the ticket was opened"})
    rating_range_now = fields.Nested(
        RatingRangeSchema, required=True, metadata={"description": "the ratings the ticket takes now (once over: then)"}
    )
    rating_range = fields.Integer(required=True)
    rating_range_widen = fields.Integer(required=True)
    rating_range_max = fields.Integer(required=True)
    ai_fill_after = fields.Float(required=True, allow_none=True)
    ai_level = Choice("AiLevel", required=True)
    created_at = fields.String(required=True)
    expires_at = fields.String(required=True)
    waited_seconds = fields.Float(required=True, metadata={"description": "how long it has waited (once over: waited)"})
    closed_at = fields.String(
        required=True, allow_none=True, metadata={"description": "when it was matched, cancelled or expired"}
    )
