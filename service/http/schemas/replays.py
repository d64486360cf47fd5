"""A replay's shapes: the document (``red7-replay/1``, exported and imported), the table after one step (``?at=``),
and an import's receipt."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from replays.build import AT_RANGE
from service.http.schemas.base import MAX_EVENT, Strict, TextSchema
from service.http.schemas.events import EVENT_SCHEMAS
from service.http.schemas.vocabulary import Choice, Null, Ref


class ReplayQuerySchema(Strict):
    at = fields.Integer(
        validate=validate.Range(0, MAX_EVENT, error=AT_RANGE),
        metadata={"description": "the table after step N, from 1 to the replay's last; 0: before the first step (state null)"},
    )


class ViewerQuerySchema(Strict):
    embed = fields.Boolean(
        load_default=False,
        metadata={
            "description": "the embed mode, for an iframe on another site (getOEmbed gives its code): the table and the "
            "buttons alone, in a small frame; the one page other sites may frame. The step is the address's #step=N"
        },
    )
    theme = Choice("ViewerTheme", metadata={"description": "light or dark (left out: the reader's preference)"})


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
