"""Reports: a player reports another (``createReport``); moderators read the open ones, oldest first, with their
evidence and age against the 24-hour target (``listReports``, ``getReport``) and decide them (``decideReport``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Request, Response
from flask.views import MethodView

from service.application.players import hash_token
from service.domain.reports import TARGET_SECONDS, Report
from service.http.auth import current_player
from service.http.common import NO_STORE, PRIVATE, TOKEN, documented_errors, json_response, response_headers, v1
from service.http.idempotency import REPLAYED
from service.http.routes.terms import safety
from service.http.schemas.safety import (
    REPORT_EXAMPLE,
    ModerationActionSchema,
    ReportCreateSchema,
    ReportListSchema,
    ReportQuerySchema,
    ReportSchema,
)


def report_budget_key(req: Request) -> str | None:
    """Reports made draw on a budget of their own, per token (``RED7_RATE_LIMIT_REPORT``): a flood of reports from
    one token is refused 429 while the queue stays usable."""
    if req.endpoint != "v1.Reports" or req.method != "POST":
        return None
    scheme, _, token = req.headers.get("Authorization", "").partition(" ")
    return hash_token(token.strip()) if scheme.lower() == "bearer" and token.strip() else None


def report_json(report: Report, names: dict[str, str | None] | None = None) -> dict[str, Any]:
    """A report as a moderator reads it; with ``names`` (:meth:`ReportService.names`), the reporter's and the reported
    player's names as they are now beside their ids (the evidence keeps the name as it was)."""
    now = datetime.now(UTC)
    named = names if names is not None else safety().reports.names([report])
    return {
        **report.json(),
        "reporter_name": named.get(report.reporter_id),
        "reported_name": named.get(report.reported_id),
        "status": report.status,
        "age_seconds": report.age_seconds(now),
        "target_seconds": TARGET_SECONDS,
        "overdue": report.overdue(now),
    }


@v1.route("/reports")
class Reports(MethodView):
    @documented_errors(400, 401, 403, 404, 413, 415, 422, 429)
    @v1.arguments(ReportCreateSchema(), example={"player": "bo", "reason": "harassment", "comment": "insults"})
    @v1.response(201, ReportSchema, headers=response_headers("Location"), example=REPORT_EXAMPLE)
    @v1.alt_response(
        200,
        schema=ReportSchema,
        description="the same report made before: that report (Idempotent-Replayed: true)",
        headers=response_headers("Location", "Idempotent-Replayed"),
        example=REPORT_EXAMPLE,
    )
    @v1.doc(operationId="createReport", security=TOKEN)
    def post(self, body: dict[str, Any]) -> Response:
        """Report a player: their name or handle, or their behaviour in a game (``game_id``), with a reason
        (harassment, offensive_name, cheating, stalling, other) and an optional comment. The report keeps its evidence
        as it is now (the name and handle, the game and its version). The same report made again (same player, reason
        and game) is the same report: 200 with `Idempotent-Replayed: true`. Reports are budgeted per token
        (`RED7_RATE_LIMIT_REPORT`: 429 past it). Reporting yourself is 422 `cannot_report_yourself`; a game the player
        holds no seat in, 422 `player_not_in_game`. With `message_id` (and its `game_id`): one of their messages at that
        table that you read, copied into the evidence as it is now (404 `message_not_found` otherwise)."""
        player = current_player()
        made = safety().reports.create(
            player, body["player"], body["reason"], body.get("comment", ""), body.get("game_id"), body.get("message_id")
        )
        mine = {key: value for key, value in report_json(made.report).items() if key != "decision"}
        mine["decision"] = None  # what a moderator decided is told to the reporter as a notice, not here
        headers = {"Location": f"/v1/reports/{made.report.id}", **NO_STORE, **(REPLAYED if made.replayed else {})}
        return json_response(mine, 200 if made.replayed else 201, headers)

    @documented_errors(401, 403, 422, 429)
    @v1.arguments(ReportQuerySchema(), location="query")
    @v1.response(200, ReportListSchema, example={"reports": [REPORT_EXAMPLE], "next_cursor": None})
    @v1.doc(operationId="listReports", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """Moderators only (403 `not_a_moderator`): the open reports, oldest first, each with its evidence, its age
        and whether it is past the 24-hour target, and the reporter's and reported player's names as they are now; a
        page at a time: pass `next_cursor` as `?cursor=` (a place in the queue, so reports decided meanwhile make
        none of the others skipped or shown twice). A page may hold fewer than `limit`; the last has no cursor."""
        safety().moderation.moderator(current_player())
        reports, following = safety().reports.open_page(query.get("cursor"), query["limit"])
        names = safety().reports.names(reports)
        page = {"reports": [report_json(r, names) for r in reports], "next_cursor": following}
        return json_response(page, 200, PRIVATE)


@v1.route("/reports/<report_id>")
class ReportResource(MethodView):
    @documented_errors(401, 403, 404, 429)
    @v1.response(200, ReportSchema, example=REPORT_EXAMPLE)
    @v1.doc(operationId="getReport", security=TOKEN)
    def get(self, report_id: str) -> Response:
        """Moderators only: one report, open or decided, with its evidence and decision."""
        safety().moderation.moderator(current_player())
        return json_response(report_json(safety().reports.get(report_id)), 200, PRIVATE)


@v1.route("/reports/<report_id>/decision")
class ReportDecision(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(ModerationActionSchema(), example={"action": "ban", "reason": "harassment after two warnings"})
    @v1.response(200, ReportSchema, example=REPORT_EXAMPLE)
    @v1.doc(operationId="decideReport", security=TOKEN)
    def post(self, body: dict[str, Any], report_id: str) -> Response:
        """Moderators only: decide an open report, once (409 `report_already_decided`): `dismiss`, or an action on the
        reported player (`warn`, `rename`, `mute` and `suspend` for `seconds`, `ban`); the audit log keeps it, the
        reporter is told the report was handled and the reported player what was decided."""
        moderator = safety().moderation.moderator(current_player())
        decided = safety().moderation.decide(moderator, report_id, body["action"], body["reason"], body.get("seconds"))
        return json_response(report_json(decided), 200, NO_STORE)
