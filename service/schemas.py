"""The API's request and response shapes (marshmallow); the OpenAPI document is generated from them.

Request schemas validate and turn JSON into the application's commands.
Response schemas document what the views in :mod:`service.views` build (the
responses are rendered directly for speed, and the tests check them against
these schemas).
"""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engine import ALL_CARDS, Card, Destination, Variant, step_from_dict
from service.game import AI_LEVELS
from service.games import NewGame, SeatRequest

CARD_NAMES = [str(c) for c in ALL_CARDS]
#: No game comes near this many events; larger cursors are refused rather than sent to Redis.
MAX_EVENT = 2**40


def event_number(text: str) -> int | None:
    """A version or event number written in a header, or ``None``.

    ASCII digits only: ``str.isdigit`` also accepts "²" (headers arrive as
    latin-1), which ``int`` then refuses.
    """
    text = text.strip()
    if not (0 < len(text) <= 13 and text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if number <= MAX_EVENT else None


STEP_TYPES = ["play", "discard", "take", "place", "end_turn", "fold"]


class CardField(fields.String):
    """A card in notation, ``"R7"``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            validate=validate.OneOf(CARD_NAMES, error="not a card; write a colour letter (ROYGBIV) and 1-7, e.g. R7"),
            metadata={"example": "R7", "description": "colour letter (R O Y G B I V) and number 1-7"},
            **kwargs,
        )


class Strict(Schema):
    class Meta:
        ordered = True


# --- requests ------------------------------------------------------------------------


class PlayerCreateSchema(Strict):
    name = fields.String(required=True, validate=validate.Length(1, 40), metadata={"example": "Ana"})


def _webhook_url(value: str | None) -> None:
    """An http(s) URL, or empty to remove the webhook."""
    if value:
        validate.URL(schemes={"http", "https"}, require_tld=False)(value)


class PlayerUpdateSchema(Strict):
    name = fields.String(validate=validate.Length(1, 40))
    webhook_url = fields.String(
        allow_none=True,
        validate=[validate.Length(max=500), _webhook_url],
        metadata={"description": "http(s) URL to notify (your turn, round over, game finished); empty or null removes it"},
    )


class TokenCreateSchema(Strict):
    label = fields.String(
        load_default="token",
        validate=validate.Length(1, 40),
        metadata={"example": "phone", "description": "to tell your tokens apart"},
    )


class MyGamesQuerySchema(Strict):
    status = fields.String(
        validate=validate.OneOf(["active", "waiting", "finished"]), metadata={"description": "only games in this state"}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class SeatSchema(Strict):
    kind = fields.String(required=True, validate=validate.OneOf(["human", "ai"]))
    level = fields.String(validate=validate.OneOf(AI_LEVELS), metadata={"description": "AI level, for kind ai"})

    @validates_schema
    def _level(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("kind") == "ai" and not data.get("level"):
            raise ValidationError("an AI seat needs a level", "level")
        if data.get("kind") == "human" and data.get("level"):
            raise ValidationError("only AI seats have a level", "level")


class GameCreateSchema(Strict):
    seats = fields.List(fields.Nested(SeatSchema), required=True, validate=validate.Length(2, 4))
    variant = fields.String(load_default="advanced", validate=validate.OneOf([v.value for v in Variant]))
    action_rules = fields.Boolean(load_default=False, truthy={True}, falsy={False})
    seed = fields.Integer(
        strict=True,
        validate=validate.Range(0, 2**53 - 1),  # exact as a JavaScript number
        metadata={"description": "fixes every shuffle; anyone who knows it can predict the deal (the game is marked seeded)"},
    )
    deck = fields.List(
        CardField(),
        validate=validate.Length(equal=49),
        metadata={"description": "an explicit order, top card first (only if the server allows it; marks the game custom-dealt)"},
    )
    turn_timeout = fields.Integer(
        strict=True,
        allow_none=True, validate=validate.Range(5, 30 * 24 * 3600), metadata={"description": "seconds a human has per turn"}
    )
    timeout_action = fields.String(load_default="fold", validate=validate.OneOf(["fold", "ai"]))

    @post_load
    def _command(self, data: dict[str, Any], **_: Any) -> NewGame:
        deck = data.get("deck")
        return NewGame(
            seats=[SeatRequest(s["kind"], s.get("level")) for s in data["seats"]],
            variant=Variant(data["variant"]),
            action_rules=data["action_rules"],
            seed=data.get("seed"),
            deck=[Card.parse(c) for c in deck] if deck is not None else None,
            turn_timeout=data.get("turn_timeout"),
            timeout_action=data["timeout_action"],
        )


class JoinSchema(Strict):
    code = fields.String(required=True, validate=validate.Length(1, 64))
    seat = fields.Integer(strict=True, validate=validate.Range(0, 3))


class StepSchema(Strict):
    type = fields.String(required=True, validate=validate.OneOf(STEP_TYPES))
    card = CardField()
    draw = fields.Boolean(
        truthy={True}, falsy={False}, metadata={"description": "discard only: take the advanced draw if granted (default true)"}
    )
    seat = fields.Integer(strict=True, validate=validate.Range(0, 3), metadata={"description": "take only: whose palette"})
    to = fields.String(validate=validate.OneOf([d.value for d in Destination]), metadata={"description": "place only"})

    NEEDS: ClassVar = {"play": ("card",), "discard": ("card",), "take": ("seat", "card"), "place": ("card", "to")}
    ALLOWS: ClassVar = {"play": {"card"}, "discard": {"card", "draw"}, "take": {"seat", "card"}, "place": {"card", "to"}}

    @validates_schema
    def _shape(self, data: dict[str, Any], **_: Any) -> None:
        kind = data.get("type")
        if kind is None:
            return
        for name in self.NEEDS.get(kind, ()):
            if name not in data:
                raise ValidationError(f"a {kind} step needs {name}", name)
        for name in set(data) - {"type"} - self.ALLOWS.get(kind, set()):
            raise ValidationError(f"a {kind} step has no {name}", name)

    @post_load
    def _step(self, data: dict[str, Any], **_: Any) -> Any:
        return step_from_dict(data)


class ActionSchema(Strict):
    steps = fields.List(fields.Nested(StepSchema), required=True, validate=validate.Length(1, 16))
    expected_version = fields.Integer(strict=True, validate=validate.Range(0), metadata={"description": "instead of If-Match"})


class EventsQuerySchema(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_EVENT))
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))
    wait = fields.Float(load_default=0.0, validate=validate.Range(0, 60), metadata={"description": "long-poll seconds"})


class ReplayQuerySchema(Strict):
    at = fields.Integer(validate=validate.Range(0, MAX_EVENT), metadata={"description": "the state after step N (0: the start)"})


class StreamQuerySchema(Strict):
    after = fields.Integer(
        validate=validate.Range(0, MAX_EVENT), metadata={"description": "resume after this event (or Last-Event-ID)"}
    )


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
