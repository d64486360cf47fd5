"""What requests may carry: request schemas validate JSON and turn it into the application's commands."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engine import Card, Variant, step_from_dict
from replays.build import AT_RANGE
from service.application.commands import NewGame, SeatRequest
from service.game import NAME_LENGTH, unprintable
from service.http.schemas.vocabulary import ENUMS, Choice

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


STEP_TYPES = ENUMS["StepType"][0]


class CardField(Choice):
    """A card in notation, ``"R7"``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("Card", error="not a card; write a colour letter (ROYGBIV) and 1-7, e.g. R7", **kwargs)


class Strict(Schema):
    class Meta:
        ordered = True


# --- requests ------------------------------------------------------------------------


def _printable(value: str) -> None:
    """Refuse text others could not read as written (``service.game.unprintable``: the replay checker's rule too)."""
    problem = unprintable(value)
    if problem is not None:
        raise ValidationError(problem)


class Text(fields.String):
    """A name or label others read: printable, 1 to ``NAME_LENGTH`` (40) characters, without the spaces around it.

    Leading and trailing white space is dropped before anything else (" Ana " is "Ana"), so that a name of spaces,
    which shows as nothing at all, is refused as empty (422, naming the field) instead of being kept as it came.
    """

    #: Some character that is not white space (ECMAScript's ``\S``: the document's pattern, read by generators
    #: and fuzzers, for what :meth:`_deserialize` requires of the trimmed text).
    PATTERN = r"\S"

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": self.PATTERN, **kwargs.pop("metadata", {})}
        description = metadata.get("description")
        trimmed = "white space around it is dropped, and what is left may not be empty"
        metadata["description"] = f"{description}; {trimmed}" if description else trimmed[0].upper() + trimmed[1:]
        super().__init__(validate=[validate.Length(1, NAME_LENGTH), _printable], metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        trimmed = text.strip()
        if not trimmed:
            raise ValidationError("must not be empty or only white space")
        return trimmed


class PlayerCreateSchema(Strict):
    name = Text(required=True, metadata={"example": "Ana"})


def _webhook_url(value: str | None) -> None:
    """An http(s) URL, or empty to remove the webhook."""
    if value:
        validate.URL(schemes={"http", "https"}, require_tld=False)(value)


class PlayerUpdateSchema(Strict):
    name = Text()
    webhook_url = fields.String(
        allow_none=True,
        validate=[validate.Length(max=500), _webhook_url],
        metadata={"description": "http(s) URL to notify (your turn, round over, game finished); empty or null removes it"},
    )


class TokenCreateSchema(Strict):
    label = Text(load_default="token", metadata={"example": "phone", "description": "to tell your tokens apart"})


class MyGamesQuerySchema(Strict):
    status = fields.String(
        validate=validate.OneOf(["active", "waiting", "finished"]), metadata={"description": "only games in this state"}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class SeatSchema(Strict):
    kind = Choice("SeatKind", required=True)
    level = Choice("AiLevel", metadata={"description": "AI level, for kind ai"})

    @validates_schema
    def _level(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("kind") == "ai" and not data.get("level"):
            raise ValidationError("an AI seat needs a level", "level")
        if data.get("kind") == "human" and data.get("level"):
            raise ValidationError("only AI seats have a level", "level")


class GameCreateSchema(Strict):
    seats = fields.List(fields.Nested(SeatSchema), required=True, validate=validate.Length(2, 4))
    variant = Choice("Variant", load_default="advanced")
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
    timeout_action = Choice("TimeoutAction", load_default="fold")

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


#: The flags of a legal step (``LegalStepSchema``): a listed step may be sent back as it is, and they are ignored.
LEGAL_FLAGS = ("can_win", "eliminates", "grants_draw", "draws", "ends_turn")


class StepSchema(Strict):
    """One step of a turn.  A listed legal step (``LegalStep``) is one as it stands: its flags are ignored here."""

    type = Choice("StepType", required=True)
    card = CardField()
    draw = fields.Boolean(
        truthy={True}, falsy={False}, metadata={"description": "discard only: take the advanced draw if granted (default true)"}
    )
    seat = fields.Integer(strict=True, validate=validate.Range(0, 3), metadata={"description": "take only: whose palette"})
    to = Choice("Destination", metadata={"description": "place only"})
    can_win = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    eliminates = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    grants_draw = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    draws = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    ends_turn = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})

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
        for name in set(data) - {"type", *LEGAL_FLAGS} - self.ALLOWS.get(kind, set()):
            raise ValidationError(f"a {kind} step has no {name}", name)

    @post_load
    def _step(self, data: dict[str, Any], **_: Any) -> Any:
        return step_from_dict(data)


class ActionSchema(Strict):
    steps = fields.List(fields.Nested(StepSchema), required=True, validate=validate.Length(1, 16))
    expected_version = fields.Integer(strict=True, validate=validate.Range(0), metadata={"description": "instead of If-Match"})


def _ticket_field() -> fields.String:
    return fields.String(
        validate=validate.Length(1, 100),
        metadata={
            "description": "a stream ticket (POST /v1/games/{game_id}/stream-tickets), for browsers, whose EventSource "
            "cannot send Authorization: reads as its player; a bad or expired ticket is a 401, never the spectator's feed"
        },
    )


class EventsQuerySchema(Strict):
    ticket = _ticket_field()
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_EVENT))
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))
    wait = fields.Float(load_default=0.0, validate=validate.Range(0, 60), metadata={"description": "long-poll seconds"})


class ReplayQuerySchema(Strict):
    at = fields.Integer(
        validate=validate.Range(0, MAX_EVENT, error=AT_RANGE),
        metadata={"description": "the table after step N, from 1 to the replay's last; 0: before the first step (state null)"},
    )


class StreamQuerySchema(Strict):
    ticket = _ticket_field()
    after = fields.Integer(
        validate=validate.Range(0, MAX_EVENT), metadata={"description": "resume after this event (or Last-Event-ID)"}
    )


class LeaderboardQuerySchema(Strict):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100), metadata={"description": "players on the page"})
    offset = fields.Integer(
        load_default=0, validate=validate.Range(0, 10_000_000), metadata={"description": "start after this many ranks"}
    )
    around = fields.String(
        validate=validate.Length(1, 100),
        metadata={"description": "a player id (or ai:<level>): the page centred on that player's rank (offset is ignored)"},
    )
