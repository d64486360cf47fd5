"""What requests may carry: request schemas validate JSON and turn it into the application's commands."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema

from engine import Card, Variant, step_from_dict
from replays.build import AT_RANGE
from service.application.commands import NewGame, SeatRequest
from service.application.handles import HANDLE_PATTERN, HANDLE_RULE, PREFIX_PATTERN
from service.application.players import SEARCH_LIMIT
from service.domain.game import NAME_LENGTH, unprintable
from service.domain.lobby import DAYS_PER_TURN
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
    """Refuse text others could not read as written (``service.domain.game.unprintable``: the replay checker's rule too)."""
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


#: A handle as the document states it; the application checks it (``handle_invalid``, ``handle_reserved``) so that
#: every caller meets the same rule, and the document's pattern and length say it to generators and people.
HANDLE_DOC = {
    "pattern": HANDLE_PATTERN,
    "minLength": 3,
    "maxLength": 20,
    "example": "ana_b",
    "description": f"unique whatever its case (stored as given): {HANDLE_RULE}; a few words are reserved "
    "(handle_reserved, e.g. me, admin, system, ai, red7, support, null), in every spelling that reads as them "
    "(ai_random, admin_, support1, adm1n), and handle_taken says another player has it",
}


class PlayerCreateSchema(Strict):
    name = Text(required=True, metadata={"example": "Ana"})
    handle = fields.String(metadata={**HANDLE_DOC, "description": f"what others find you by: {HANDLE_DOC['description']}"})


class VacationRequestSchema(Strict):
    start = fields.AwareDateTime(metadata={"description": "when it begins (ISO 8601 with an offset; left out: now)"})
    end = fields.AwareDateTime(required=True, metadata={"description": "when it ends"})


class PlayerUpdateSchema(Strict):
    name = Text()
    language = Choice(
        "Language",
        allow_none=True,
        metadata={
            "description": "the language of the service's texts for you (problems, views, replays, webhooks, pushes): "
            "it comes after ?lang= and before Accept-Language; null removes it"
        },
    )
    handle = fields.String(
        allow_none=True,
        metadata={
            **{k: v for k, v in HANDLE_DOC.items() if k != "minLength"},
            "pattern": "^(?:" + HANDLE_PATTERN.strip("^$") + ")?$",  # empty too: it removes the handle
            "description": f"a new handle: {HANDLE_DOC['description']}; empty or null removes yours. The one you give up is "
            "kept for you alone to take back for a while (RED7_HANDLE_HOLD_SECONDS, a week)",
        },
    )
    webhook_url = fields.String(
        allow_none=True,
        validate=validate.Length(max=500),
        metadata={
            "description": "http(s) URL to notify (your turn, round over, game finished); empty or null removes it. Its "
            "host must be public: an address that is not (loopback, private, link-local, in any spelling) or a name "
            "that resolves to one or to nothing is 422 webhook_url_refused, with a reason (not_a_url, not_public, "
            "unresolvable)"
        },
    )
    time_zone = fields.String(
        validate=validate.Length(1, 64),
        metadata={
            "description": "your IANA time zone (e.g. Europe/Paris): weekends and the vacation year are yours in it",
            "example": "Europe/Paris",
        },
    )
    weekends_off = fields.Boolean(
        truthy={True},
        falsy={False},
        metadata={"description": "stop your correspondence clocks on Saturdays and Sundays (from your next turn on)"},
    )
    vacation = fields.Nested(
        VacationRequestSchema,
        allow_none=True,
        metadata={
            "description": "declare a vacation ahead (your correspondence clocks stop; it counts against your "
            "hours a year, RED7_VACATION_HOURS_PER_YEAR, in hours begun); null: come back now "
            "(ends the one running, cancels those ahead)"
        },
    )


class GiveTimeSchema(Strict):
    seconds = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(1, 14 * 24 * 3600),
        metadata={"description": "seconds of running clock to add to the turn of the player to move", "example": 86400},
    )


class PushKeysSchema(Strict):
    p256dh = fields.String(required=True, validate=validate.Length(1, 200))
    auth = fields.String(required=True, validate=validate.Length(1, 100))


class PushSubscriptionCreateSchema(Strict):
    """A browser's ``PushSubscription.toJSON()``."""

    endpoint = fields.String(required=True, validate=validate.Length(1, 2048), metadata={"example": "https://push.example/abc"})
    keys = fields.Nested(PushKeysSchema, required=True)
    expirationTime = fields.Float(allow_none=True, metadata={"description": "ignored (as browsers send it)"})


class TokenCreateSchema(Strict):
    label = Text(load_default="token", metadata={"example": "phone", "description": "to tell your tokens apart"})


class MyGamesQuerySchema(Strict):
    status = fields.String(
        validate=validate.OneOf(["active", "waiting", "finished"]), metadata={"description": "only games in this state"}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class PlayerSearchQuerySchema(Strict):
    handle = fields.String(
        validate=validate.Regexp(PREFIX_PATTERN, error="a prefix of a handle: 1 to 20 ASCII letters, digits, _ or -"),
        metadata={
            "description": "the start of the handles to find, whatever its case; leave it out for every player with a handle",
            "example": "an",
        },
    )
    limit = fields.Integer(load_default=SEARCH_LIMIT, validate=validate.Range(1, SEARCH_LIMIT))
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
        allow_none=True,
        validate=validate.Range(5, 30 * 24 * 3600),
        metadata={"description": "seconds a human has per turn"},
    )
    timeout_action = Choice("TimeoutAction", load_default="fold")
    days_per_turn = fields.Integer(
        strict=True,
        validate=validate.OneOf(DAYS_PER_TURN),
        metadata={"description": "a correspondence game: days each turn may take (instead of turn_timeout)"},
    )
    listed = fields.Boolean(
        load_default=False,
        truthy={True},
        falsy={False},
        metadata={
            "description": "list it among the open tables (listOpenGames) while a human seat is open: anyone may "
            "join it then, without the join code"
        },
    )
    rated = fields.Boolean(
        load_default=False,
        truthy={True},
        falsy={False},
        metadata={"description": "count it for the players' ratings once finished (never when aborted); not with seed or deck"},
    )

    @validates_schema
    def _options(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("days_per_turn") is not None and data.get("turn_timeout") is not None:
            raise ValidationError("give turn_timeout (seconds) or days_per_turn, not both", "days_per_turn")
        if data.get("rated") and (data.get("seed") is not None or data.get("deck") is not None):
            raise ValidationError(
                "a rated game is dealt at random: no seed or deck (anyone who knows them knows the deal)", "rated"
            )

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
            listed=data["listed"],
            rated=data["rated"],
            days_per_turn=data.get("days_per_turn"),
            origin="open_table" if data["listed"] else "direct",
        )


class JoinSchema(Strict):
    code = fields.String(
        validate=validate.Length(1, 64),
        metadata={"description": "the join code its creator passed on; a listed game (listOpenGames) needs none"},
    )
    seat = fields.Integer(strict=True, validate=validate.Range(0, 3))


class OpenGamesQuerySchema(Strict):
    """The filters of ``listOpenGames``: each one left out matches any table."""

    variant = Choice("Variant")
    action_rules = fields.Boolean()
    players = fields.Integer(validate=validate.Range(2, 4), metadata={"description": "how many seats the game has"})
    turn_timeout = fields.Integer(
        validate=validate.Range(5, 30 * 24 * 3600),
        metadata={"description": "live games with this many seconds a turn (time control), not correspondence ones"},
    )
    days_per_turn = fields.Integer(
        validate=validate.OneOf(DAYS_PER_TURN), metadata={"description": "correspondence games with this many days a turn"}
    )
    rated = fields.Boolean()
    min_rating = fields.Integer(
        validate=validate.Range(0, 5000),
        metadata={
            "description": "tables whose rating (their seated players' mean on the table's ladder) is at least "
            "this; a new player has 1000"
        },
    )
    max_rating = fields.Integer(validate=validate.Range(0, 5000), metadata={"description": "and at most this"})
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})

    @validates_schema
    def _one_time_control(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("days_per_turn") is not None and data.get("turn_timeout") is not None:
            raise ValidationError("ask for turn_timeout (live) or days_per_turn (correspondence), not both", "days_per_turn")
        low, high = data.get("min_rating"), data.get("max_rating")
        if low is not None and high is not None and low > high:
            raise ValidationError("must not be above max_rating", "min_rating")


#: The most steps an action may send at once.
MAX_STEPS = 16
#: The flags of a legal step (``LegalStepSchema``): a listed step may be sent back as it is, and they are ignored.
LEGAL_FLAGS = ("can_win", "eliminates", "grants_draw", "draws", "ends_turn", "description")


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
    description = fields.Dict(load_only=True, metadata={"description": "a legal step's description; ignored"})

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
    """An action's body.  The body every client sends (its steps as the rules write them, nothing else) is read by
    :func:`plain_action`, the schema's own answer without its machinery (a tenth of an action's CPU); anything else,
    every error above all, is the schema's to read."""

    steps = fields.List(fields.Nested(StepSchema), required=True, validate=validate.Length(1, MAX_STEPS))
    expected_version = fields.Integer(strict=True, validate=validate.Range(0), metadata={"description": "instead of If-Match"})

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None, unknown: Any = None) -> Any:
        if many is None and partial is None and unknown in (None, RAISE):
            plain = plain_action(data)
            if plain is not None:
                return plain
        return super().load(data, many=many, partial=partial, unknown=unknown)


_STEP_TYPES = frozenset(ENUMS["StepType"][0])
_CARDS = frozenset(ENUMS["Card"][0])
_DESTINATIONS = frozenset(ENUMS["Destination"][0])


def _plain_step(step: Any) -> bool:
    """Whether ``step`` is a step :class:`StepSchema` takes as it is: exactly the members its type needs and allows,
    each of exactly the type the schema's field loads without converting it (``True`` is no seat, ``1`` no draw)."""
    if type(step) is not dict:
        return False
    kind = step.get("type")
    if type(kind) is not str or kind not in _STEP_TYPES:
        return False
    allowed = StepSchema.ALLOWS.get(kind, set())
    for name, value in step.items():
        if name == "type":
            continue
        if name not in allowed:
            return False
        if name == "card":
            if type(value) is not str or value not in _CARDS:
                return False
        elif name == "draw":
            if type(value) is not bool:
                return False
        elif name == "seat":
            if type(value) is not int or not 0 <= value <= 3:
                return False
        elif name != "to" or type(value) is not str or value not in _DESTINATIONS:
            return False
    return all(name in step for name in StepSchema.NEEDS.get(kind, ()))


def plain_action(data: Any) -> dict[str, Any] | None:
    """What :class:`ActionSchema` loads from ``data``, if ``data`` is plainly valid; ``None``: ask the schema."""
    if type(data) is not dict or not 0 < len(data) <= 2:
        return None
    steps = data.get("steps")
    if type(steps) is not list or not 0 < len(steps) <= MAX_STEPS or not all(_plain_step(step) for step in steps):
        return None
    out: dict[str, Any] = {"steps": [step_from_dict(step) for step in steps]}
    if len(data) == 2:
        version = data.get("expected_version")
        if type(version) is not int or version < 0:
            return None
        out["expected_version"] = version
    return out


def _ticket_field() -> fields.String:
    return fields.String(
        validate=validate.Length(1, 100),
        metadata={
            "description": "a stream ticket (POST /v1/games/{game_id}/stream-tickets), for browsers, whose EventSource "
            "cannot send Authorization: reads as its player; a bad or expired ticket is a 401, never the spectator's feed"
        },
    )


#: The most a long-poll waits, in seconds (a server's ``RED7_LONG_POLL_MAX`` may cut it shorter).
LONG_POLL_MOST = 60


class EventsQuerySchema(Strict):
    ticket = _ticket_field()
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_EVENT))
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))
    wait = fields.Float(
        load_default=0.0, validate=validate.Range(0, LONG_POLL_MOST), metadata={"description": "long-poll seconds"}
    )


class GameViewQuerySchema(Strict):
    """``GET /v1/games/{game_id}``'s query: read only when it holds ``wait`` (a plain poll pays nothing for it)."""

    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(0, LONG_POLL_MOST),
        metadata={
            "description": "long-poll seconds, with If-None-Match holding the current version: the answer comes as soon "
            "as the game moves on (200, the new view), or 304 when the wait is over"
        },
    )


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
