"""A game's shapes: setting one up and joining it, time given, its view (seats, turn, your hand, legal steps), and
the lists of games (yours, the open tables)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engine import Card, Variant
from service.application.commands import NewGame, SeatRequest
from service.domain.lobby import DAYS_PER_TURN
from service.http.schemas.actions import LegalStepSchema
from service.http.schemas.analysis import AnalysisResultSchema
from service.http.schemas.base import CardField, LocalizedTextSchema, Strict, handle_member
from service.http.schemas.feeds import LONG_POLL_MOST
from service.http.schemas.vocabulary import Choice


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


class GiveTimeSchema(Strict):
    seconds = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(1, 14 * 24 * 3600),
        metadata={"description": "seconds of running clock to add to the turn of the player to move", "example": 86400},
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


class MyGamesQuerySchema(Strict):
    status = fields.String(
        validate=validate.OneOf(["active", "waiting", "finished"]), metadata={"description": "only games in this state"}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


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


class TurnSchema(Schema):
    seat = fields.Integer(required=True)
    played = fields.Boolean(required=True)
    pending = Choice("Pending", required=True, allow_none=True, metadata={"description": "take (a 1), play (a 5) or place (a 7)"})
    deadline = fields.String(required=True, allow_none=True, metadata={"description": "when the turn times out (ISO 8601)"})
    time_left = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "seconds of running clock the turn has left (a correspondence clock stops while its "
            "player is on vacation or, if they chose it, on a weekend)"
        },
    )
    paused_until = fields.String(
        required=True, allow_none=True, metadata={"description": "the clock stands still until then (a weekend or a vacation)"}
    )


class SeatViewSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, metadata={"description": 'who plays the seat ("deleted player": an account deleted)'})
    handle = handle_member("the handle of the player in the seat (null: an AI's or open seat, or a player without one)")
    kind = Choice("SeatKind", required=True)
    level = Choice("AiLevel", required=True, allow_none=True)
    player_id = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)
    resigned = fields.Boolean(required=True, metadata={"description": "the player left; an AI plays the seat"})
    in_round = fields.Boolean(required=True)
    palette = fields.List(Choice("Card"), required=True)
    qualifying = fields.List(
        Choice("Card"),
        required=True,
        metadata={"description": "the palette's cards that count under the rule now (none for a seat out of the round)"},
    )
    hand_size = fields.Integer(required=True)
    score = fields.Integer(required=True)
    scored = fields.List(Choice("Card"), required=True)
    vacation_until = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the player is on vacation until then (correspondence games: their clock stands still)"},
    )


class YouSchema(Schema):
    seat = fields.Integer(required=True)
    hand = fields.List(Choice("Card"), required=True, metadata={"description": "empty before the deal and once you resigned"})


class GameOptionsSchema(Schema):
    """How a game came to be and what it counts for: in its view and in every list of games."""

    listed = fields.Boolean(required=True, metadata={"description": "shown among the open tables while a human seat is open"})
    rated = fields.Boolean(required=True, metadata={"description": "counts for ratings once finished (never when aborted)"})
    days_per_turn = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "a correspondence game: days a turn may take (turn_timeout "
            "is that many seconds); null for a live or untimed one"
        },
    )
    origin = Choice("Origin", required=True)
    rematch_of = fields.String(required=True, allow_none=True, metadata={"description": "the game this one is a rematch of"})
    rematch = fields.String(
        required=True, allow_none=True, metadata={"description": "this game's rematch, once every player wanted one"}
    )


class GameViewSchema(GameOptionsSchema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = Choice("GameStatus", required=True)
    phase = Choice("GamePhase", required=True)
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    dealing = Choice("Dealing", required=True)
    custom_dealt = fields.Boolean(required=True)
    turn_timeout = fields.Integer(required=True, allow_none=True)
    timeout_action = Choice("TimeoutAction", required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    join_code = fields.String(metadata={"description": "only for the creator, while seats are open"})
    round = fields.Integer(required=True)
    rule = Choice("Color", required=True, allow_none=True)
    rule_description = fields.Nested(
        LocalizedTextSchema,
        required=True,
        allow_none=True,
        metadata={"description": "what counts under the rule now, in words (null before the deal)"},
    )
    time_control = fields.Nested(
        LocalizedTextSchema,
        required=True,
        allow_none=True,
        metadata={"description": "a correspondence game's days per turn, in words (null: not one)"},
    )
    leader = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the seat winning under the rule now, during a turn (null between rounds and before play)"},
    )
    canvas = fields.List(Choice("Card"), required=True, metadata={"description": "bottom card first; the last sets the rule"})
    deck_size = fields.Integer(required=True, allow_none=True)
    target = fields.Integer(required=True, allow_none=True)
    turn = fields.Nested(TurnSchema, required=True, allow_none=True)
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    you = fields.Nested(YouSchema, metadata={"description": "your seat and hand, if you hold a seat"})
    legal_steps = fields.List(fields.Nested(LegalStepSchema), required=True)
    round_winner = fields.Integer(required=True, allow_none=True)
    winner = fields.Integer(required=True, allow_none=True)
    finish = Choice("Finish", required=True, allow_none=True)
    abortable = fields.Boolean(
        required=True,
        metadata={"description": "its players may still abort it (abortGame): dealt, and not every seat has ended a turn yet"},
    )
    rematch_offers = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "at a finished game's end: the seats whose players want a rematch (offerRematch)"},
    )
    rematch_declined = fields.Integer(
        required=True, allow_none=True, metadata={"description": "the seat whose player declined a rematch: there is none"}
    )
    standing = fields.List(
        fields.Integer(),
        required=True,
        allow_none=True,
        metadata={
            "description": "once the game is finished, every seat in place order (null before): the winner first, then "
            "in the basic game by how long each stayed in the round (the last one out second), in the advanced game by "
            "points, equal points by the highest card in the score pile (players who scored nothing follow in seat order)"
        },
    )
    analysis = fields.Nested(
        AnalysisResultSchema,
        metadata={
            "description": "a finished game's decision analysis, once requested and done (requestAnalysis): outside "
            "the hash, in the export too"
        },
    )
    ratings = fields.Nested(
        "GameRatingsSchema",
        metadata={
            "description": "rated games only: each seat's rating, and once the game is finished and applied to "
            "its ladder, the rating before it, the change it made and the place"
        },
    )


class GameSummarySchema(GameOptionsSchema):
    id = fields.String(required=True)
    status = Choice("GameStatus", required=True)
    version = fields.Integer(required=True)
    your_seat = fields.Integer(required=True, allow_none=True)
    your_turn = fields.Boolean(required=True)
    round = fields.Integer(required=True)
    variant = Choice("Variant", required=True)
    players = fields.Integer(required=True)
    seats = fields.List(fields.String(), required=True, metadata={"description": "who plays each seat, as people read it"})
    handles = fields.List(
        fields.String(allow_none=True),
        required=True,
        metadata={"description": "the handle of the player in each seat (null: none, or an AI's or open seat)"},
    )
    winner = fields.Integer(required=True, allow_none=True)
    deadline = fields.String(required=True, allow_none=True)
    time_left = fields.Integer(required=True, allow_none=True, metadata={"description": "seconds of running clock left"})
    updated_at = fields.String(required=True)


class OpenGameSchema(Schema):
    """A listed game with a human seat open: join it without a code (joinGame)."""

    id = fields.String(required=True)
    created_at = fields.String(required=True)
    creator = fields.String(required=True, metadata={"description": "the name of the player who listed it"})
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    players = fields.Integer(required=True, metadata={"description": "how many seats the game has"})
    seats = fields.List(
        fields.String(allow_none=True), required=True, metadata={"description": "who plays each seat; null: an open seat"}
    )
    open_seats = fields.List(fields.Integer(), required=True, metadata={"description": "the human seats open to join"})
    turn_timeout = fields.Integer(required=True, allow_none=True, metadata={"description": "seconds a human turn may take"})
    days_per_turn = fields.Integer(
        required=True, allow_none=True, metadata={"description": "a correspondence game's days a turn"}
    )
    timeout_action = Choice("TimeoutAction", required=True)
    rated = fields.Boolean(required=True)
    rating = fields.Integer(
        required=True,
        metadata={"description": "the table's rating: its seated players' mean on the table's ladder (a new player has 1000)"},
    )
    your_seat = fields.Integer(required=True, allow_none=True, metadata={"description": "your seat, if you sit at it already"})


class OpenGameListSchema(Schema):
    games = fields.List(fields.Nested(OpenGameSchema), required=True)
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "pass as ?cursor= for the next page; null on the last page. A filter that matches few "
            "tables may answer a short page (even an empty one) with a cursor: a page looks at "
            "500 tables at most"
        },
    )


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?cursor= for the next page; null on the last page"}
    )
