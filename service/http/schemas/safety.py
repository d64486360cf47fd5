"""What the safety operations (issue 36: terms, reports, moderation) take and answer; rendered by
``service.http.routes.terms``, ``reports`` and ``moderation``."""

from __future__ import annotations

from marshmallow import fields, validate

from service.domain.reports import MAX_COMMENT
from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice

TERMS_EXAMPLE = {"terms_version": "2026-11", "terms_url": "https://red7.example.com/terms"}

# --- terms ------------------------------------------------------------------------------


class TermsSchema(Strict):
    terms_version = fields.String(
        required=True, metadata={"description": "the version in force; empty: this server has no terms", "example": "2026-11"}
    )
    terms_url = fields.String(required=True, metadata={"description": "where the terms are read"})


class TermsAcceptSchema(Strict):
    terms_version = fields.String(
        required=True,
        validate=validate.Length(1, 64),
        metadata={"description": "the version you read and accept: the one in force (getTerms)", "example": "2026-11"},
    )


# --- reports ----------------------------------------------------------------------------

REASON_DOC = "harassment, offensive_name, cheating, stalling or other"
ACTION_DOC = (
    "dismiss (a report only), warn, rename (a neutral placeholder name, the handle given up), mute and suspend (for "
    "`seconds`), ban, unban (lifts a suspension or a ban)"
)


class ReportCreateSchema(Strict):
    player = fields.String(
        required=True,
        validate=validate.Length(1, 64),
        metadata={"description": "the player you report: their handle or id", "example": "bo"},
    )
    reason = Choice("ReportReason", required=True, metadata={"description": REASON_DOC})
    comment = fields.String(
        load_default="", validate=validate.Length(0, MAX_COMMENT), metadata={"description": "what happened, in your words"}
    )
    game_id = fields.String(
        validate=validate.Length(1, 64), metadata={"description": "the game it happened in (the reported player's seat)"}
    )
    message_id = fields.String(
        validate=validate.Length(1, 64),
        metadata={"description": "a message of theirs at that game's table (listTableTalk's id; needs game_id)"},
    )


class EvidenceSchema(Strict):
    name = fields.String(required=True, metadata={"description": "the reported player's name when reported"})
    handle = fields.String(allow_none=True, required=True, metadata={"description": "their handle then"})
    game_id = fields.String(allow_none=True, required=True)
    game_version = fields.Integer(allow_none=True, required=True, metadata={"description": "the game's version then"})
    messages = fields.List(fields.Dict(), required=True, metadata={"description": "the messages reported (table talk)"})


class DecisionSchema(Strict):
    by = fields.String(required=True, metadata={"description": "the moderator's id, or operator (the CLI)"})
    action = Choice("ModeratorAction", required=True)
    reason = fields.String(required=True)
    at = fields.String(required=True)
    until = fields.String(allow_none=True, required=True)


class ReportSchema(Strict):
    id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(("open", "decided")))
    reporter_id = fields.String(required=True, metadata={"description": "who reported: a player's id, or filter"})
    reporter_name = fields.String(
        required=True, allow_none=True, metadata={"description": "the reporter's name now (null: a deleted account, filter)"}
    )
    reported_id = fields.String(required=True)
    reported_name = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the reported player's name now (null: a deleted account); the evidence keeps it as it was"},
    )
    reason = Choice("ReportReason", required=True)
    comment = fields.String(required=True)
    created_at = fields.String(required=True)
    message_id = fields.String(allow_none=True, required=True)
    evidence = fields.Nested(EvidenceSchema, required=True)
    decision = fields.Nested(DecisionSchema, allow_none=True, required=True)
    age_seconds = fields.Integer(required=True, metadata={"description": "how long it has waited"})
    target_seconds = fields.Integer(required=True, metadata={"description": "how long a report may wait: 86400"})
    overdue = fields.Boolean(required=True, metadata={"description": "open and older than the target"})


class ReportListSchema(Strict):
    reports = fields.List(fields.Nested(ReportSchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class ReportQuerySchema(Strict):
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class ModerationActionSchema(Strict):
    action = Choice("ModeratorAction", required=True, metadata={"description": ACTION_DOC})
    reason = fields.String(
        required=True, validate=validate.Length(1, MAX_COMMENT), metadata={"description": "why: the audit log keeps it"}
    )
    seconds = fields.Integer(
        validate=validate.Range(1, 365 * 24 * 3600), metadata={"description": "how long a mute or a suspension lasts"}
    )


class LogEntrySchema(Strict):
    id = fields.String(required=True, metadata={"description": "the record's id; the log is in this order"})
    by = fields.String(required=True, metadata={"description": "who acted: a moderator's id, or operator (the CLI)"})
    by_name = fields.String(
        required=True, allow_none=True, metadata={"description": "the moderator's name now (null: a deleted account, operator)"}
    )
    player_id = fields.String(required=True)
    player_name = fields.String(
        required=True, allow_none=True, metadata={"description": "the player's name now (null: a deleted account)"}
    )
    action = fields.String(required=True, metadata={"description": f"{ACTION_DOC}; grant, revoke (the role)"})
    reason = fields.String(required=True)
    at = fields.String(required=True)
    report_id = fields.String(allow_none=True, required=True)
    until = fields.String(allow_none=True, required=True)


class LogListSchema(Strict):
    entries = fields.List(fields.Nested(LogEntrySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class LogQuerySchema(Strict):
    cursor = fields.String(validate=validate.Regexp(r"^[0-9]{1,20}-[0-9]{1,20}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))


class NoticeSchema(Strict):
    code = fields.String(required=True)
    params = fields.Dict(required=True)
    text = fields.String(required=True, metadata={"description": "the notice in the answer's language"})
    at = fields.String(required=True)


class NoticeListSchema(Strict):
    notices = fields.List(fields.Nested(NoticeSchema), required=True)


REPORT_EXAMPLE = {
    "id": "r_5d41402abc4b2a76",
    "status": "open",
    "reporter_id": "p_25e744bde20ebea6",
    "reporter_name": "Ana",
    "reported_id": "p_9b2c1f0e4d3a2b10",
    "reported_name": "Bo",
    "reason": "harassment",
    "comment": "insults after every move",
    "created_at": "2026-11-28T03:36:41.356Z",
    "message_id": None,
    "evidence": {"name": "Bo", "handle": "bo", "game_id": "g_0123456789abcdef", "game_version": 42, "messages": []},
    "decision": None,
    "age_seconds": 3600,
    "target_seconds": 86400,
    "overdue": False,
}
LOG_EXAMPLE = {
    "id": "1764300000000-0",
    "by": "p_0f1e2d3c4b5a6978",
    "by_name": "Mo",
    "player_id": "p_9b2c1f0e4d3a2b10",
    "player_name": "Bo",
    "action": "ban",
    "reason": "harassment after two warnings",
    "at": "2026-11-28T04:36:41.356Z",
    "report_id": "r_5d41402abc4b2a76",
    "until": None,
}
NOTICES_EXAMPLE = {
    "notices": [
        {
            "code": "notice.report_handled",
            "params": {"report_id": "r_5d41402abc4b2a76"},
            "text": "A moderator handled your report: thank you for telling us.",
            "at": "2026-11-28T04:36:41.356Z",
        }
    ]
}
