"""What challenge requests may carry and what their answers hold (the answers are rendered by
``service.http.routes.challenges``; the tests check them against these)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engine import Variant
from service.application.challenges import NewChallenge
from service.application.commands import NewGame, SeatRequest
from service.domain.challenges import MAX_CHALLENGED, STATUSES
from service.domain.lobby import DAYS_PER_TURN
from service.http.schemas.base import Strict
from service.http.schemas.games import SeatSchema
from service.http.schemas.vocabulary import Choice

#: How many players a request may name: the rules take three at most (``too_many_challenged`` says so, with the
#: limit); a few more are read, no more, so that a body stays small.
NAMED_AT_MOST = 8
#: The shortest time a challenge may stay open (seconds): long enough for its webhook to reach anyone.
SHORTEST_EXPIRY = 60


# --- requests -----------------------------------------------------------------------


class ChallengeCreateSchema(Strict):
    players = fields.List(
        fields.String(validate=validate.Length(1, 64)),
        required=True,
        validate=validate.Length(1, NAMED_AT_MOST),
        metadata={
            "description": f"the players you challenge, by handle (or player id): 1 to {MAX_CHALLENGED} (more: 422 "
            "too_many_challenged); they take the human seats after yours, in this order",
            "example": ["bo"],
        },
    )
    seats = fields.List(
        fields.Nested(SeatSchema),
        validate=validate.Length(2, 4),
        metadata={
            "description": "the table: you take the first human seat, the players you challenge the other human seats (one "
            "each: 422 challenge_seats_mismatch otherwise), AI seats of a level the rest; default: a human seat for you and "
            "for each of them"
        },
    )
    variant = Choice("Variant", load_default="advanced")
    action_rules = fields.Boolean(load_default=False, truthy={True}, falsy={False})
    turn_timeout = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(5, 30 * 24 * 3600),
        metadata={"description": "seconds a human has per turn (a live game); not with days_per_turn"},
    )
    days_per_turn = fields.Integer(
        strict=True,
        validate=validate.OneOf(DAYS_PER_TURN),
        metadata={"description": "a correspondence game: days each turn may take; not with turn_timeout"},
    )
    timeout_action = Choice("TimeoutAction", load_default="fold")
    rated = fields.Boolean(load_default=False, truthy={True}, falsy={False})
    expires_in = fields.Integer(
        strict=True,
        validate=validate.Range(SHORTEST_EXPIRY, None),
        metadata={
            "description": "seconds the challenge stays open (default: the server's, RED7_CHALLENGE_EXPIRY, a day; at most "
            "RED7_MAX_CHALLENGE_EXPIRY, two weeks)"
        },
    )

    @validates_schema
    def _one_time_control(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("turn_timeout") is not None and data.get("days_per_turn") is not None:
            raise ValidationError("a game has a turn_timeout or days_per_turn, not both", "days_per_turn")

    @post_load
    def _command(self, data: dict[str, Any], **_: Any) -> NewChallenge:
        players = data["players"]
        seats = data.get("seats") or [{"kind": "human"}] * (len(players) + 1)
        game = NewGame(
            seats=[SeatRequest(s["kind"], s.get("level")) for s in seats],
            variant=Variant(data["variant"]),
            action_rules=data["action_rules"],
            turn_timeout=data.get("turn_timeout"),
            timeout_action=data["timeout_action"],
            rated=data["rated"],
            days_per_turn=data.get("days_per_turn"),
            origin="challenge",
        )
        return NewChallenge(players, game, data.get("expires_in"))


class ChallengeDeclineSchema(Strict):
    reason = Choice(
        "DeclineReason",
        load_default="generic",
        metadata={"description": "why, as a key the challenger's client can put in words"},
    )


class ChallengesQuerySchema(Strict):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={"description": "only challenges that stand so now"})
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


# --- responses ----------------------------------------------------------------------


class ChallengerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the name they had when they challenged"})


class ChallengedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the name they had when challenged"})
    answer = Choice("ChallengeAnswer", required=True)


class ChallengeSeatSchema(Schema):
    kind = Choice("SeatKind", required=True)
    level = Choice("AiLevel", required=True, allow_none=True)


class ChallengeSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "how many events its stream holds"})
    status = Choice("ChallengeStatus", required=True)
    role = Choice("ChallengeRole", required=True)
    challenger = fields.Nested(ChallengerSchema, required=True)
    challenged = fields.List(
        fields.Nested(ChallengedSchema), required=True, metadata={"description": "in the order they take the human seats"}
    )
    seats = fields.List(fields.Nested(ChallengeSeatSchema), required=True)
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    turn_timeout = fields.Integer(required=True, allow_none=True)
    timeout_action = Choice("TimeoutAction", required=True)
    days_per_turn = fields.Integer(required=True, allow_none=True)
    rated = fields.Boolean(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    expires_at = fields.String(
        required=True,
        metadata={"description": "still open then, it is expired, and refuses an acceptance", "format": "date-time"},
    )
    decline_reason = Choice("DeclineReason", required=True, allow_none=True)
    game_id = fields.String(
        required=True, allow_none=True, metadata={"description": "the game it started (GET /v1/games/{game_id}), once started"}
    )


class ChallengeListSchema(Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema), required=True)
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "pass as ?cursor= for the next page (a filtered page may hold fewer than limit); null on the last page"
        },
    )
