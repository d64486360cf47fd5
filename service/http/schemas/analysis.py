"""A finished game's decision analysis (issue 23): its progress while it runs, its result when done.

What the numbers mean is :mod:`engine.analysis`'s: win chances in [0, 1], each from what the mover knew at the time;
ΔW and its standard error in percentage points, and beside them the drop in place share that accuracy also reads.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.actions import StepSchema
from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice, Ref


class AnalysisBudgetSchema(Schema):
    worlds = fields.Integer(required=True, metadata={"description": "deals of the unseen cards per candidate turn"})
    candidates = fields.Integer(required=True, metadata={"description": "candidate turns besides the played one"})
    refine = fields.Integer(required=True, metadata={"description": "up to this many times the deals for a close call"})


class LabelCountsSchema(Schema):
    inaccuracy = fields.Integer(required=True)
    mistake = fields.Integer(required=True)
    blunder = fields.Integer(required=True)


class AnalysedPlayerSchema(Schema):
    seat = fields.Integer(required=True)
    accuracy = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "Lichess's game accuracy, 0-100, each decision by its drop in place share (ΔW with two"
            " players); null: no decision"
        },
    )
    win_accuracy = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "the same formulas on ΔW alone, what was given away of winning the match (equal to accuracy"
            " with two players); null: no decision"
        },
    )
    counts = fields.Nested(LabelCountsSchema, required=True)
    luck = fields.Float(
        required=True, metadata={"description": "percentage points of win chance from draws and the others' turns"}
    )
    decisions = fields.Integer(required=True)


class AnalysedDecisionSchema(Schema):
    number = fields.Integer(required=True)
    n = fields.Integer(required=True, metadata={"description": "the stream number of the decision's first event"})
    step = fields.Integer(required=True, allow_none=True, metadata={"description": "the replay step it starts at"})
    seat = fields.Integer(required=True)
    round = fields.Integer(required=True)
    played = fields.List(fields.Nested(StepSchema), required=True)
    best = fields.List(fields.Nested(StepSchema), required=True, metadata={"description": "the best turn found"})
    win = fields.Float(required=True, metadata={"description": "the mover's chance to win the match after the played turn"})
    best_win = fields.Float(required=True, metadata={"description": "after the best turn found"})
    delta = fields.Float(required=True, metadata={"description": "ΔW: best_win - win, in percentage points"})
    se = fields.Float(required=True, metadata={"description": "ΔW's standard error, in percentage points"})
    label = Choice(
        "DecisionLabel",
        required=True,
        allow_none=True,
        metadata={"description": "at 5/10/15 points beyond twice ΔW's standard error; out when staying was possible: blunder"},
    )
    went_out = fields.Boolean(required=True, metadata={"description": "left the round although a turn staying in existed"})
    candidates = fields.Integer(required=True)
    forced = fields.Boolean(required=True, metadata={"description": "only one turn to judge"})
    place_delta = fields.Float(
        required=True,
        metadata={
            "description": "the drop in place share (the expected share of the others finished ahead of; the win chance"
            " with two players), in percentage points, 0 if none"
        },
    )
    place_se = fields.Float(required=True, metadata={"description": "its standard error, in percentage points"})
    by = Choice("DecisionBy", required=True)


class AnalysisResultSchema(Schema):
    version = fields.Integer(required=True)
    seed = fields.Integer(required=True)
    budget = fields.Nested(AnalysisBudgetSchema, required=True)
    players = fields.List(fields.Nested(AnalysedPlayerSchema), required=True)
    winner = fields.Integer(required=True, allow_none=True)
    rounds = fields.List(
        fields.Integer(allow_none=True),
        required=True,
        metadata={"description": "the replay step each round's first decision is at"},
    )
    decisions = fields.List(fields.Nested(AnalysedDecisionSchema), required=True)


class AnalysisProgressSchema(Schema):
    done = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "0 until the decisions are counted"})


class AnalysisSchema(Schema):
    game_id = fields.String(required=True, metadata={"description": "the game analysed (an imported replay's: the file's)"})
    replay_id = fields.String(
        required=True, allow_none=True, metadata={"description": "the imported replay analysed; null for a game's analysis"}
    )
    status = Choice("AnalysisStatus", required=True)
    progress = fields.Nested(AnalysisProgressSchema, required=True)
    url = fields.String(required=True, metadata={"description": "where to read it (getAnalysis, getImportedAnalysis)"})
    # Not "analysis": openapi-python-client names the model's local variable after the model (Analysis), and a member
    # of that name shadows it.
    result = Ref("AnalysisResult", required=True, allow_none=True, metadata={"description": "the result once done; null before"})


class MistakesQuerySchema(Strict):
    label = Choice(
        "DecisionLabel",
        load_default="mistake",
        metadata={"description": 'the least bad label listed: inaccuracy, mistake or blunder (default: "mistake")'},
    )
    games = fields.Integer(
        load_default=20, validate=validate.Range(1, 50), metadata={"description": "finished games looked at by a page"}
    )
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class MistakeSchema(Schema):
    game_id = fields.String(required=True)
    finished_at = fields.String(required=True, metadata={"description": "when the game ended (RFC 3339, UTC)"})
    seat = fields.Integer(required=True, metadata={"description": "the player's seat in that game"})
    decision = fields.Nested(AnalysedDecisionSchema, required=True, metadata={"description": "as the game's analysis has it"})
    variant = Choice(
        "Variant",
        required=True,
        metadata={"description": "the game's: a discard's draw (its steps always carry the choice) is the advanced game's"},
    )
    view_url = fields.String(required=True, metadata={"description": "the game's replay viewer at the decision's step"})


class MistakeListSchema(Schema):
    mistakes = fields.List(
        fields.Nested(MistakeSchema), required=True, metadata={"description": "newest game first, in play order within one"}
    )
    unanalysed = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the games of this page the player played that have no analysis yet (requestAnalysis)"},
    )
    next_cursor = fields.String(required=True, allow_none=True, metadata={"description": "the games after these; null: none"})
