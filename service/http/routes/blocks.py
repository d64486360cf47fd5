"""Blocks and mutes: a player's lists of others — listed, added, lifted — by handle or id.

A block keeps two players apart both ways (no challenge, no quick-match table, no seat at each other's listed
table; games in play go on); a mute hides the muted player's table talk from you alone.  Both are private: the other
player is never told, and what they are refused reads like any refusal.  Who may challenge you and talk to you at a
table are fields of ``updateMe`` (``challenge_from``, ``talk_from``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.blocks import LIMITS, BlockService, Listed
from service.http.auth import current_player
from service.http.common import NO_STORE, PRIVATE, TOKEN, documented_errors, json_response, red7_runtime, v1
from service.http.examples import example
from service.http.schemas.blocks import BlockedPlayerSchema, BlockListSchema, BlocksQuerySchema

PLAYER = {"in": "path", "name": "player", "required": True, "schema": {"type": "string"}, "description": "a handle or id"}


def block_service() -> BlockService:
    blocks = red7_runtime().blocks
    assert blocks is not None  # every runtime has one (service/runtime.py)
    return blocks


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def listed_json(entry: Listed, which: str) -> dict[str, Any]:
    return {"id": entry.player_id, "name": entry.name, "handle": entry.handle, "since": _iso(entry.since_ms), "list": which}


@v1.route("/players/me/blocks")
class Blocks(MethodView):
    @documented_errors(400, 401, 422, 429)
    @v1.arguments(BlocksQuerySchema(), location="query")
    @v1.response(200, BlockListSchema, example=example("BlockList"))
    @v1.doc(operationId="listBlocks", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """The players you blocked (or, with ``list=mutes``, muted), newest first, a page at a time."""
        which = query["list"]
        page = block_service().page(current_player(), which, query["limit"], query.get("cursor"))
        body = {
            "players": [listed_json(entry, which) for entry in page.entries],
            "limit": LIMITS[which],
            "next_cursor": page.next_cursor,
        }
        return json_response(body, 200, {**PRIVATE, "Cache-Control": "no-store"})


def _put(which: str, ref: str) -> Response:
    return json_response(listed_json(block_service().add(current_player(), which, ref), which), 200, NO_STORE)


def _delete(which: str, ref: str) -> Response:
    block_service().remove(current_player(), which, ref)
    return Response(status=204, headers=NO_STORE)


@v1.route("/players/me/blocks/<player>")
class Block(MethodView):
    @documented_errors(401, 404, 409, 422, 429)
    @v1.response(200, BlockedPlayerSchema, example=example("BlockedPlayer"))
    @v1.doc(operationId="blockPlayer", security=TOKEN, parameters=[PLAYER])
    def put(self, player: str) -> Response:
        """Block a player: they can no longer challenge you, quick match never seats you together, and neither of you
        takes a seat at the other's listed tables; games in play go on. They are not told: what they are refused
        reads like any refusal. Blocking again changes nothing (its time is kept); a list holds 1,000 players
        (409 ``block_limit_reached``); yourself: 422 ``cannot_block_yourself``."""
        return _put("blocks", player)

    @documented_errors(401, 404, 422, 429)
    @v1.response(204, description="Unblocked (or never blocked): nothing keeps you apart any more")
    @v1.doc(operationId="unblockPlayer", security=TOKEN, parameters=[PLAYER])
    def delete(self, player: str) -> Response:
        """Lift a block (none there: nothing to do)."""
        return _delete("blocks", player)


@v1.route("/players/me/mutes/<player>")
class Mute(MethodView):
    @documented_errors(401, 404, 409, 422, 429)
    @v1.response(200, BlockedPlayerSchema, example=example("MutedPlayer"))
    @v1.doc(operationId="mutePlayer", security=TOKEN, parameters=[PLAYER])
    def put(self, player: str) -> Response:
        """Mute a player: their table talk is hidden from you (nothing else changes; they are not told). Muting
        again changes nothing; a list holds 1,000 players (409 ``mute_limit_reached``)."""
        return _put("mutes", player)

    @documented_errors(401, 404, 422, 429)
    @v1.response(204, description="Unmuted (or never muted)")
    @v1.doc(operationId="unmutePlayer", security=TOKEN, parameters=[PLAYER])
    def delete(self, player: str) -> Response:
        """Lift a mute (none there: nothing to do)."""
        return _delete("mutes", player)
