"""Table talk: the players seated at a game say preset phrases or short texts to each other (``sayAtTable``) and read
them a page at a time (``listTableTalk``); the live feeds carry them too.  No part of the game: its version, events
and replay are the same with or without talk.  What a reader receives honours their mutes, blocks and ``talk_from``;
a text the word filter matches is held back (its author sees it as held) and queued for review."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.commands import Idempotency
from service.http.auth import current_player
from service.http.common import NO_STORE, PRIVATE, TOKEN, documented_errors, json_response, red7_runtime, response_headers, v1
from service.http.examples import example
from service.http.idempotency import REPLAYED, idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.routes.terms import safety
from service.http.schemas.talk import SaySchema, TalkMessageSchema, TalkPageSchema, TalkQuerySchema
from service.http.talk_views import message_json


@v1.route("/games/<game_id>/talk")
class TableTalk(MethodView):
    @documented_errors(400, 401, 403, 404, 422, 429)
    @v1.arguments(TalkQuerySchema(), location="query")
    @v1.response(200, TalkPageSchema, example=example("TalkPage"))
    @v1.doc(operationId="listTableTalk", security=TOKEN)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """What was said at the game's table that you receive, oldest first, a page at a time (`?after=`): your own
        messages (a held one marked `held`), and the other seated players' unless you muted or blocked them (or they
        blocked you) or your `talk_from` turns them away. Seated players only: a spectator gets 403 `not_a_player`."""
        page = safety().talk.page(current_player(), game_id, query.get("after"), query["limit"])
        body = {"messages": [message_json(m) for m in page.messages], "next_cursor": page.next_cursor}
        return json_response(body, 200, {**PRIVATE, "Cache-Control": "no-store"})

    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(SaySchema(), example=example("Say"))
    @v1.response(200, TalkMessageSchema, headers=response_headers("Idempotent-Replayed"), example=example("TalkMessage"))
    @v1.doc(operationId="sayAtTable", security=TOKEN, parameters=[idempotency_parameter("says nothing twice")])
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Say a preset `phrase` (each reader sees it in their language) or a `text` of at most 200 characters at the
        game's table. Seated players only (403 `not_a_player`); a table with nobody else human to read it is 409
        `table_talk_off`; a moderator's mute is 403 `player_muted`. A text the word filter matches is kept `held`:
        only you see it, and a moderator reviews it. The game's version does not change."""
        player = current_player()
        key: Idempotency | None = idempotency(player.id, red7_runtime().settings.idempotency_ttl)
        spoken = safety().talk.say(player, game_id, body.get("phrase"), body.get("text"), key)
        headers = {**NO_STORE, **(REPLAYED if spoken.replayed else {})}
        return json_response(message_json(spoken.message), 200, headers)  # a retry: the first answer, marked replayed
