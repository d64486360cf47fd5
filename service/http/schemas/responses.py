"""What responses carry: the schemas document what :mod:`service.http.views` builds (rendered directly for speed;
the tests check the real responses against these)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.requests import STEP_TYPES

# --- responses -----------------------------------------------------------------------


class FieldErrorSchema(Schema):
    field = fields.String(required=True, metadata={"description": "dotted path, e.g. seats.1.level; empty for the whole body"})
    message = fields.String(required=True)
    location = fields.String(required=True, metadata={"description": "json, query, headers"})


class ProblemSchema(Schema):
    """RFC 9457 problem details; a problem may carry more members (``current_version``, a rule's cards ...)."""

    class Meta:
        unknown = "include"

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable; switch on this (GET /v1/problems lists them)"})
    instance = fields.String()
    errors = fields.List(fields.Nested(FieldErrorSchema), metadata={"description": "invalid_request: what is wrong where"})
    current_version = fields.Integer(metadata={"description": "version_conflict: the game's version now"})
    step = fields.Integer(metadata={"description": "a rule refusal: the index of the step refused"})


class PlayerCreatedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "bearer token; shown only now"})
    created_at = fields.String(required=True)


class TokenSchema(Schema):
    id = fields.String(required=True, metadata={"description": "to revoke it: DELETE /v1/players/me/tokens/{id}"})
    label = fields.String(required=True)
    created_at = fields.String(required=True)
    current = fields.Boolean(required=True, metadata={"description": "whether this request came with this token"})


class TokenIssuedSchema(TokenSchema):
    token = fields.String(required=True, metadata={"description": "bearer token; shown only now"})


class StreamTicketSchema(Schema):
    ticket = fields.String(
        required=True,
        metadata={"description": "put it in the feed's URL: /v1/games/{game_id}/stream?ticket=... (or /events?ticket=...)"},
    )
    expires_at = fields.String(
        required=True,
        metadata={"description": "connect (and reconnect) before this time; then ask for a new ticket", "format": "date-time"},
    )


class TokenListSchema(Schema):
    tokens = fields.List(fields.Nested(TokenSchema), required=True)


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.String(required=True)
    webhook_url = fields.String(allow_none=True)
    webhook_secret = fields.String(metadata={"description": "HMAC key for webhook signatures; shown only when the URL is set"})


class LegalStepSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(STEP_TYPES))
    card = fields.String()
    draw = fields.Boolean()
    seat = fields.Integer()
    to = fields.String()
    can_win = fields.Boolean(required=True, metadata={"description": "some way to finish the turn after this keeps you in"})
    eliminates = fields.Boolean(required=True, metadata={"description": "this ends your turn with you out of the round"})
    grants_draw = fields.Boolean(required=True, metadata={"description": "a discard that allows the advanced draw"})
    draws = fields.Boolean(
        required=True,
        metadata={"description": "this step draws a card (a 3, or a discard taking the draw): end the batch with it"},
    )
    ends_turn = fields.Boolean(required=True)


class SeatViewSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True)
    level = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)
    open = fields.Boolean(required=True)
    resigned = fields.Boolean(required=True, metadata={"description": "the player left; an AI plays the seat"})
    in_round = fields.Boolean(required=True)
    palette = fields.List(fields.String(), required=True)
    qualifying = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the palette's cards that count under the rule now (none for a seat out of the round)"},
    )
    hand_size = fields.Integer(required=True)
    score = fields.Integer(required=True)
    scored = fields.List(fields.String(), required=True)


class TurnSchema(Schema):
    seat = fields.Integer(required=True)
    played = fields.Boolean(required=True)
    pending = fields.String(allow_none=True, metadata={"description": "take (a 1), play (a 5) or place (a 7)"})
    deadline = fields.String(allow_none=True)


class YouSchema(Schema):
    seat = fields.Integer(required=True)
    hand = fields.List(
        fields.String(), required=True, metadata={"description": "empty before the deal and once you resigned"}
    )


class GameViewSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "active", "finished", "cancelled"]))
    phase = fields.String(required=True)
    variant = fields.String(required=True)
    action_rules = fields.Boolean(required=True)
    dealing = fields.String(required=True, validate=validate.OneOf(["random", "seeded", "custom"]))
    custom_dealt = fields.Boolean(required=True)
    turn_timeout = fields.Integer(allow_none=True)
    timeout_action = fields.String(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    join_code = fields.String(metadata={"description": "only for the creator, while seats are open"})
    round = fields.Integer(required=True)
    rule = fields.String(allow_none=True)
    leader = fields.Integer(
        allow_none=True,
        metadata={"description": "the seat winning under the rule now, during a turn (null between rounds and before play)"},
    )
    canvas = fields.List(fields.String(), required=True, metadata={"description": "bottom card first; the last sets the rule"})
    deck_size = fields.Integer(allow_none=True)
    target = fields.Integer(allow_none=True)
    turn = fields.Nested(TurnSchema, allow_none=True)
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    you = fields.Nested(YouSchema)
    legal_steps = fields.List(fields.Nested(LegalStepSchema), required=True)
    round_winner = fields.Integer(allow_none=True)
    winner = fields.Integer(allow_none=True)
    finish = fields.String(allow_none=True)


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    your_seat = fields.Integer(allow_none=True)
    your_turn = fields.Boolean(required=True)
    round = fields.Integer(required=True)
    variant = fields.String(required=True)
    players = fields.Integer(required=True)
    seats = fields.List(fields.String(), required=True)
    winner = fields.Integer(allow_none=True)
    deadline = fields.String(allow_none=True)
    updated_at = fields.String(required=True)


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?cursor= for the next page; null on the last page"}
    )


class EventSchema(Schema):
    """One event as the caller may see it: ``n``, ``type``, ``at``, ``by`` and the event's own fields."""

    class Meta:
        unknown = "include"

    n = fields.Integer(required=True)
    type = fields.String(required=True)
    at = fields.String(required=True)
    by = fields.String(required=True)
    v = fields.Integer(required=True)


class EventPageSchema(Schema):
    events = fields.List(fields.Nested(EventSchema), required=True)
    next = fields.Integer(required=True, metadata={"description": "pass as after= for the next page"})
    version = fields.Integer(required=True)
    finished = fields.Boolean(
        required=True, metadata={"description": "the game is over (finished or called off): nothing more will come"}
    )


class ProblemCodeSchema(Schema):
    code = fields.String(required=True)
    status = fields.Integer(required=True)
    title = fields.String(required=True)


class ProblemListSchema(Schema):
    problems = fields.List(fields.Nested(ProblemCodeSchema), required=True)


class ReplayStepSchema(Schema):
    class Meta:
        unknown = "include"

    index = fields.Integer(required=True)
    text = fields.String(required=True)
    state = fields.Dict(allow_none=True, required=True)


class ReplaySchema(Schema):
    """A replay document (format ``red7-replay/1``); see replays/build.py."""

    class Meta:
        unknown = "include"

    format = fields.String(required=True)
    game_id = fields.String(required=True)
    perspective = fields.Raw(
        metadata={
            "description": '"full" (a finished game: everything), "spectator", or {"seat": n}: what that seat has seen so far'
        }
    )
    complete = fields.Boolean(required=True)
    steps = fields.List(fields.Nested(ReplayStepSchema), required=True)
    events = fields.List(fields.Dict(), required=True)
    hash = fields.String(required=True, metadata={"description": "sha256 of the canonical JSON without this member"})


class ReplayAtSchema(Schema):
    game_id = fields.String(required=True)
    steps = fields.Integer(required=True)
    step = fields.Nested(ReplayStepSchema, required=True)


class ImportedSchema(Schema):
    id = fields.String(required=True)
    game_id = fields.String(required=True)
    steps = fields.Integer(required=True)
    hash = fields.String(required=True)
    url = fields.String(required=True)
    view_url = fields.String(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True)
