"""Moderators act on a player without a report (``moderatePlayer``) and read the audit log (``listModerationLog``);
a player reads what moderation told them (``listNotices``)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from flask import Response
from flask.views import MethodView

from service.common.texts import Text
from service.http.auth import current_player
from service.http.common import NO_STORE, PRIVATE, TOKEN, documented_errors, json_response, v1
from service.http.locale import say
from service.http.routes.terms import safety
from service.http.schemas.safety import (
    LOG_EXAMPLE,
    NOTICES_EXAMPLE,
    LogEntrySchema,
    LogListSchema,
    LogQuerySchema,
    ModerationActionSchema,
    NoticeListSchema,
)


@v1.route("/players/<player>/moderation")
class PlayerModeration(MethodView):
    @documented_errors(400, 401, 403, 404, 413, 415, 422, 429)
    @v1.arguments(ModerationActionSchema(), example={"action": "suspend", "reason": "stalling", "seconds": 86400})
    @v1.response(200, LogEntrySchema, example=LOG_EXAMPLE)
    @v1.doc(operationId="moderatePlayer", security=TOKEN)
    def post(self, body: dict[str, Any], player: str) -> Response:
        """Moderators only: act on a player (handle or id) without a report: `warn`, `rename`, `mute` and `suspend`
        for `seconds`, `ban`, `unban`. A suspended or banned player's tokens answer 403 `player_suspended` (with
        `until`) or `player_banned`; their match tickets, challenges and listed tables close and an AI takes their seats
        in games in play; a ban keeps them off every leaderboard until `unban`. The answer is the audit record."""
        moderator = safety().moderation.moderator(current_player())
        entry = safety().moderation.act(moderator, player, body["action"], body["reason"], body.get("seconds"))
        return json_response(asdict(entry), 200, NO_STORE)


@v1.route("/moderation/log")
class ModerationLog(MethodView):
    @documented_errors(401, 403, 422, 429)
    @v1.arguments(LogQuerySchema(), location="query")
    @v1.response(200, LogListSchema, example={"entries": [LOG_EXAMPLE], "next_cursor": None})
    @v1.doc(operationId="listModerationLog", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """Moderators only: the audit log, oldest first, a page at a time: who did what to whom, why, when, until when
        and the report it answers (grants and revocations of the role too), with the moderator's and the player's
        names as they are now beside their ids (null: a deleted account, or `operator`). Nothing in it is ever
        changed."""
        safety().moderation.moderator(current_player())
        entries, following = safety().moderation.log_page(query.get("cursor"), query["limit"])
        names = safety().moderation.names(entries)
        shown = [{**asdict(e), "by_name": names.get(e.by), "player_name": names.get(e.player_id)} for e in entries]
        return json_response({"entries": shown, "next_cursor": following}, 200, PRIVATE)


@v1.route("/players/me/notices")
class Notices(MethodView):
    @documented_errors(401, 403, 429)
    @v1.response(200, NoticeListSchema, example=NOTICES_EXAMPLE)
    @v1.doc(operationId="listNotices", security=TOKEN)
    def get(self) -> Response:
        """What moderation told you, newest first: a report of yours handled, a warning, a forced rename, a mute; each
        as a code with its parameters and in the answer's language."""
        player = current_player()
        notices = [
            {**notice, "text": say(Text(notice["code"], notice["params"]))} for notice in safety().moderation.notices(player.id)
        ]
        return json_response({"notices": notices}, 200, PRIVATE)
