"""What responses carry: the schemas document what :mod:`service.http.views` builds (rendered directly for speed;
the tests check the real responses against these)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.ratings import LADDERS
from service.http.schemas.analysis import AnalysisResultSchema
from service.http.schemas.events import EVENT_SCHEMAS
from service.http.schemas.requests import StepSchema
from service.http.schemas.vocabulary import Choice, Null, Ref

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
    max_bytes = fields.Integer(
        metadata={"description": "payload_too_large, headers_too_large, uri_too_long: the limit broken, in bytes"}
    )
    max_fields = fields.Integer(metadata={"description": "headers_too_large: how many header fields a request may carry"})


def _handle(description: str = "what others find the player by (null: none)") -> fields.String:
    """A handle in an answer: always there, null for a player who has none."""
    return fields.String(required=True, allow_none=True, metadata={"description": description})


class PlayerCreatedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    handle = _handle()
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
    handle = _handle()
    created_at = fields.String(required=True)
    webhook_url = fields.String(allow_none=True)
    language = Choice(
        "Language",
        allow_none=True,
        metadata={"description": "the language you chose for the service's texts (null: none; Accept-Language decides)"},
    )
    webhook_secret = fields.String(metadata={"description": "HMAC key for webhook signatures; shown only when the URL is set"})
    time_zone = fields.String(
        required=True,
        metadata={
            "description": "your IANA time zone (weekends and the vacation year are yours in it)",
            "example": "Europe/Paris",
        },
    )
    weekends_off = fields.Boolean(
        required=True,
        metadata={"description": "your correspondence clocks stop on Saturdays and Sundays (from your next turn on)"},
    )
    vacations = fields.List(
        fields.Nested(lambda: VacationSchema()),
        required=True,
        metadata={"description": "your vacations running or ahead, in order"},
    )
    vacation_hours_left = fields.Integer(required=True, metadata={"description": "hours of vacation left this year"})
    vacation_hours_per_year = fields.Integer(required=True)


class VacationSchema(Schema):
    start = fields.String(required=True)
    end = fields.String(required=True)
    automatic = fields.Boolean(required=True, metadata={"description": "taken when a deadline passed (it ends when you move)"})


class GameRecordSchema(Schema):
    played = fields.Integer(required=True, metadata={"description": "finished games the player sat in (resigned too)"})
    won = fields.Integer(required=True, metadata={"description": "of those, the games their seat won (not once they resigned)"})


class PublicPlayerSchema(Schema):
    """What anyone sees of a player (never a token or a webhook)."""

    id = fields.String(required=True)
    handle = _handle()
    name = fields.String(required=True)
    since = fields.String(required=True, metadata={"description": "when the player signed up", "format": "date-time"})
    games = fields.Nested(
        GameRecordSchema,
        required=True,
        metadata={"description": "finished games only: a game called off or aborted counts for nobody"},
    )
    ratings = fields.Nested(
        lambda: PlayerLaddersSchema(),  # defined below, with the other ratings
        metadata={"description": "the player's ratings, present once there are any (one per kind of rated game)"},
    )


class PlayerFoundSchema(Schema):
    id = fields.String(required=True)
    handle = fields.String(required=True)
    name = fields.String(required=True)


class PlayerListSchema(Schema):
    players = fields.List(fields.Nested(PlayerFoundSchema), required=True, metadata={"description": "in handle order"})
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?cursor= for the next page; null on the last page"}
    )


class TextSchema(Schema):
    """Something said to people, as a stable code and its parameters (no words of any language: numbers, cards, a rule's
    colour letter, players' names, or other texts of this shape), for a client to say in its own words."""

    code = fields.String(required=True, metadata={"description": "stable: what is said", "example": "step.play"})
    params = fields.Dict(
        keys=fields.String(), required=True, metadata={"description": "what fills it in", "example": {"card": "R5"}}
    )


class LocalizedTextSchema(TextSchema):
    """A text as the API says it: its code and parameters, and ``text`` in the answer's language (Content-Language)."""

    text = fields.String(
        required=True, metadata={"description": "in the answer's language", "example": "Play R5 to your palette."}
    )


class LegalStepSchema(StepSchema):
    """A step you may take now, with what it would do: a valid :class:`StepSchema` as it stands (send it back as
    one; the flags are ignored there)."""

    can_win = fields.Boolean(required=True, metadata={"description": "some way to finish the turn after this keeps you in"})
    eliminates = fields.Boolean(required=True, metadata={"description": "this ends your turn with you out of the round"})
    grants_draw = fields.Boolean(required=True, metadata={"description": "a discard that allows the advanced draw"})
    draws = fields.Boolean(
        required=True,
        metadata={"description": "this step draws a card (a 3, or a discard taking the draw): end the batch with it"},
    )
    ends_turn = fields.Boolean(required=True)
    description = fields.Nested(LocalizedTextSchema, required=True, metadata={"description": "what the step does, in words"})  # type: ignore[assignment]  # a dict when sent back (ignored), a text when listed


class SeatViewSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, metadata={"description": 'who plays the seat ("deleted player": an account deleted)'})
    handle = _handle("the handle of the player in the seat (null: an AI's or open seat, or a player without one)")
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


class EventPageSchema(Schema):
    events = fields.List(Ref("Event"), required=True)
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


class RuleSchema(Schema):
    color = Choice("Color", required=True, metadata={"description": "the colour of the canvas's top card that sets it"})
    name = fields.Nested(LocalizedTextSchema, required=True, metadata={"description": "the rule's name"})
    description = fields.Nested(LocalizedTextSchema, required=True, metadata={"description": "what counts under it"})


class RuleListSchema(Schema):
    language = Choice("Language", required=True, metadata={"description": "the language of the texts"})
    languages = fields.List(Choice("Language"), required=True, metadata={"description": "every language the service speaks"})
    rules = fields.List(fields.Nested(RuleSchema), required=True, metadata={"description": "strongest colour first"})


class ReplaySeatStateSchema(Schema):
    in_round = fields.Boolean(required=True)
    palette = fields.List(Choice("Card"), required=True)
    qualifying = fields.List(Choice("Card"), required=True, metadata={"description": "what counts for it under the rule"})
    hand = fields.List(
        Choice("Card"), required=True, allow_none=True, metadata={"description": "null where the perspective may not see it"}
    )
    hand_size = fields.Integer(required=True)
    score = fields.Integer(required=True)
    scored = fields.List(Choice("Card"), required=True)


class ReplayStateSchema(Schema):
    """The table after a step, as the replay's perspective may see it."""

    round = fields.Integer(required=True)
    phase = Choice("ReplayPhase", required=True)
    rule = Choice("Color", required=True)
    canvas = fields.List(Choice("Card"), required=True, metadata={"description": "bottom card first (empty: the rule is red)"})
    canvas_top = Choice("Card", required=True, allow_none=True)
    leader = fields.Integer(required=True, allow_none=True, metadata={"description": "the seat winning now, during a turn"})
    deck_size = fields.Integer(required=True)
    turn = fields.Integer(required=True, allow_none=True, metadata={"description": "whose turn it is"})
    pending = Choice("Pending", required=True, allow_none=True)
    seats = fields.List(fields.Nested(ReplaySeatStateSchema), required=True)


class ReplayStepSchema(Schema):
    index = fields.Integer(required=True, validate=validate.Range(1), metadata={"description": "from 1"})
    n = fields.Integer(required=True, metadata={"description": "the event this step is"})
    type = fields.String(required=True, validate=validate.OneOf(list(EVENT_SCHEMAS)), metadata={"description": "its type"})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "the acting seat"})
    at = fields.String(required=True)
    text = fields.String(required=True, metadata={"description": "what happened, in a sentence (in the answer's language)"})
    explanation = fields.Nested(TextSchema, metadata={"description": "the sentence as a code and its parameters"})
    state = fields.Nested(ReplayStateSchema, required=True)


class ReplayStartSchema(Schema):
    """``?at=0``: the table before the first step (there is none to show)."""

    index = fields.Integer(required=True, validate=validate.OneOf([0]))
    text = fields.String(required=True)
    explanation = fields.Nested(TextSchema)
    state = Null(required=True, metadata={"description": "always null"})


class ReplayOptionsSchema(Schema):
    players = fields.Integer(required=True)
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    dealing = Choice("Dealing", required=True)
    target = fields.Integer(required=True, allow_none=True, metadata={"description": "points to win (advanced)"})
    seed = fields.Integer(required=True, allow_none=True, metadata={"description": "a full replay's seed; null otherwise"})


class ReplaySeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = Choice("SeatKind", required=True)
    level = Choice("AiLevel", required=True, allow_none=True)


class OutcomeSchema(Schema):
    winner = fields.Integer(required=True)
    finish = Choice("Finish", required=True, allow_none=True)
    scores = fields.List(fields.Integer(), required=True)
    rounds = fields.Integer(required=True)


class ReplaySchema(Schema):
    """A replay document (format ``red7-replay/1``); see replays/build.py.

    As a request (an imported file) only its outline is checked here: the verifier judges the rest, and
    says what is wrong (``invalid_replay``), so the typed parts are loaded as they are.
    """

    class Meta:
        unknown = "include"

    format = fields.String(required=True, validate=validate.OneOf(["red7-replay/1"]))
    event_schema = fields.Integer(required=True, metadata={"description": "the event schema version of its events"})
    game_id = fields.String(required=True)
    perspective = Ref("Perspective", required=True)
    complete = fields.Boolean(required=True, metadata={"description": "a finished game from the full perspective"})
    options = Ref("ReplayOptions", required=True)
    seats = fields.List(Ref("ReplaySeat"), required=True)
    created_at = fields.String(required=True)
    events = fields.List(Ref("Event"), required=True)
    steps = fields.List(Ref("ReplayStep"), required=True)
    outcome = Ref("Outcome", required=True, allow_none=True, metadata={"description": "null until the game is over"})
    hash = fields.String(
        required=True, metadata={"description": "sha256 of the canonical JSON without this member (nor ratings)"}
    )
    ratings = fields.Nested(
        "GameRatingsSchema",
        metadata={
            "description": "getReplay of a rated game only: the seats' ratings as in the game's view (the ladder's, "
            "not the game's record: outside the hash, never in an export)"
        },
    )


class ReplayAtSchema(Schema):
    game_id = fields.String(required=True)
    steps = fields.Integer(required=True, metadata={"description": "how many steps the replay has"})
    step = Ref("ReplayAtStep", required=True)


class ImportedSchema(Schema):
    id = fields.String(required=True)
    game_id = fields.String(required=True)
    steps = fields.Integer(required=True)
    hash = fields.String(required=True)
    url = fields.String(required=True)
    view_url = fields.String(required=True)
    expires_at = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "when the import is no longer kept (its URLs then answer 404): RED7_IMPORTED_REPLAY_TTL (30 days) "
            "after this import; importing the same replay again keeps it that long from then. null: kept for good",
            "format": "date-time",
        },
    )


class HealthSchema(Schema):
    status = fields.String(required=True)


# --- ratings -------------------------------------------------------------------------


class PlayerCountRecordSchema(Schema):
    played = fields.Integer(required=True)
    won = fields.Integer(required=True)
    average_place = fields.Float(required=True, allow_none=True, metadata={"description": "1 is first; null before a game"})


class RatingRecordSchema(Schema):
    """A player's rating and record on a ladder."""

    rating = fields.Integer(
        required=True,
        metadata={
            "description": "the rating shown: 1000 + 40 (mu - 25), whole; new: 1000. It moves with results only (never "
            "as sigma shrinks); while provisional, show it with a mark (1234?)"
        },
    )
    provisional = fields.Boolean(
        required=True,
        metadata={
            "description": "not established yet: fewer than 20 games have moved it, or sigma is still 5 or more (an AI "
            "level's never is: the anchors). Only established ratings are ranked on the leaderboard"
        },
    )
    mu = fields.Float(required=True, metadata={"description": "the skill estimated (OpenSkill, Plackett-Luce), 6 decimals"})
    sigma = fields.Float(required=True, metadata={"description": "its uncertainty, 6 decimals"})
    counted = fields.Integer(
        required=True,
        metadata={
            "description": "rated games that moved the rating: those against established opponents (AI levels always "
            "are), at most 3 in 24 hours against the same person"
        },
    )
    played = fields.Integer(required=True, metadata={"description": "rated games (an AI level: seats) on this ladder"})
    won = fields.Integer(required=True, metadata={"description": "of them finished first (ties for first included)"})
    average_place = fields.Float(required=True, allow_none=True)
    by_players = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(PlayerCountRecordSchema),
        required=True,
        metadata={"description": "the same, by number of players (keys 2, 3, 4)"},
    )


class LeaderboardLineSchema(RatingRecordSchema):
    rank = fields.Integer(required=True, metadata={"description": "1 is first; equal ratings ranked by player id"})
    player_id = fields.String(required=True, metadata={"description": "a player's id, or ai:<level> for an AI level"})
    name = fields.String(required=True, metadata={"description": "the name of their last rated game"})


class LeaderboardSchema(Schema):
    ladder = Choice("Ladder", required=True)
    ranked = fields.Integer(
        required=True,
        metadata={
            "description": "how many players the ladder ranks: established ratings only, never a deleted account's "
            "(nor a banned player's)"
        },
    )
    offset = fields.Integer(required=True, metadata={"description": "the page starts at rank offset + 1"})
    players = fields.List(fields.Nested(LeaderboardLineSchema), required=True)


class RatingChangeSchema(Schema):
    game_id = fields.String(required=True)
    finished_at = fields.String(required=True)
    players = fields.Integer(required=True)
    place = fields.Integer(required=True)
    before = fields.Integer(required=True)
    after = fields.Integer(required=True)
    change = fields.Integer(required=True)
    counted = fields.Boolean(required=True, metadata={"description": "whether the game moved the rating"})
    not_counted = Choice(
        "RatingNotCounted", required=True, allow_none=True, metadata={"description": "why it did not; null when it did"}
    )


class LadderStandingSchema(RatingRecordSchema):
    """What a profile shows of one ladder (``RatingService.ratings_of``; for ``getPlayer``)."""

    rank = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "1 is first; null while the leaderboard does not show the player (a provisional rating)"},
    )
    ranked = fields.Integer(required=True, metadata={"description": "how many players the leaderboard ranks"})
    history = fields.List(fields.Nested(RatingChangeSchema), required=True, metadata={"description": "the latest first"})


#: A player's ratings by ladder (a profile's ``ratings``): a member named after each ladder, there once the player has
#: a rated game on it.  Named members, not a map (``additionalProperties``): a generated client then types each
#: ladder's standing (openapi-python-client made the map a model of untyped ``additional_properties``).
PlayerLaddersSchema: type[Schema] = Schema.from_dict(
    {ladder: fields.Nested(LadderStandingSchema, metadata={"description": f"the {ladder} ladder"}) for ladder in LADDERS},
    name="PlayerLaddersSchema",
)


class PlayerRatingsSchema(Schema):
    player_id = fields.String(required=True)
    ladders = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(LadderStandingSchema),
        required=True,
        metadata={"description": "by ladder (basic, advanced): only those the player has a rated game on"},
    )


class SeatRatingSchema(Schema):
    seat = fields.Integer(required=True)
    player = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "who is rated for the seat: a player id or ai:<level>; null for an open seat"},
    )
    rating = fields.Integer(
        required=True, allow_none=True, metadata={"description": "before the game once it is applied; until then, now"}
    )
    provisional = fields.Boolean(
        required=True, allow_none=True, metadata={"description": "not established (before the game, once applied)"}
    )
    change = fields.Integer(required=True, allow_none=True, metadata={"description": "what the game changed; null until applied"})
    place = fields.Integer(required=True, allow_none=True, metadata={"description": "the place it finished in, once applied"})
    counted = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "once applied, whether the game moved the seat's rating (only established opponents and AI "
            "levels do; at most 3 games in 24 hours between the same two people); null until then"
        },
    )
    not_counted = Choice(
        "RatingNotCounted", required=True, allow_none=True, metadata={"description": "why it did not; null otherwise"}
    )


class GameRatingsSchema(Schema):
    ladder = Choice("Ladder", required=True)
    applied = fields.Boolean(
        required=True, metadata={"description": "the game is finished and its ladder has it (seconds after the end)"}
    )
    seats = fields.List(fields.Nested(SeatRatingSchema), required=True)


class PushKeySchema(Schema):
    public_key = fields.String(
        required=True,
        metadata={
            "description": "the application server key (VAPID, P-256, base64url): PushManager.subscribe's applicationServerKey",
            "example": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U",
        },
    )


class PushSubscriptionSchema(Schema):
    endpoint = fields.String(required=True)
    created_at = fields.String(required=True)
