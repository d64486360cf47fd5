"""Ladders: the leaderboard of each kind of rated game (``service/application/ratings.py`` reads it)."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.http.common import PUBLIC, documented_errors, json_response, red7_runtime, v1
from service.http.examples import example
from service.http.schemas import LeaderboardQuerySchema, LeaderboardSchema

#: A leaderboard is the same for everyone and changes when a rated game ends: caches may keep it a few seconds.
SHARED_BRIEFLY = {"Cache-Control": "public, max-age=5"}


@v1.route("/ladders/<ladder>/leaderboard")
class Leaderboard(MethodView):
    @documented_errors(404, 422, 429)
    @v1.arguments(LeaderboardQuerySchema(), location="query")
    @v1.response(200, LeaderboardSchema, example=example("Leaderboard"))
    @v1.doc(operationId="getLeaderboard", security=PUBLIC)
    def get(self, query: dict[str, Any], ladder: str) -> Response:
        """A ladder's leaderboard (basic or advanced), best first: a page of it, or the page around one player.

        Players with an established rating are ranked by it (mu, shown as 1000 + 40 (mu - 25)): 20 games that moved it
        and sigma below 5; a provisional rating is not ranked yet, and a deleted account's never again.  AI levels
        are rated players too (``ai:random``, ``ai:greedy``, ``ai:expert``), anchors for everyone else: a rating moves
        only against established opponents and AI levels, at most 3 games in 24 hours between the same two people.
        """
        board = red7_runtime().ratings.leaderboard(
            ladder, limit=query["limit"], offset=query["offset"], around=query.get("around")
        )
        return json_response(board, 200, SHARED_BRIEFLY)
