"""Statistics across finished games (issue 40): a player's (``getPlayerStatistics``) and everyone's
(``getGameStatistics``), read from the projection ``service/application/statistics.py`` keeps."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.statistics import StatisticsService
from service.http.auth import current_player
from service.http.common import PRIVATE, PUBLIC, TOKEN_OR_NONE, documented_errors, json_response, red7_runtime, v1
from service.http.examples import example
from service.http.schemas.statistics import GameStatisticsQuerySchema, GameStatisticsSchema, PlayerStatisticsSchema

#: Everyone's statistics are the same for everyone and move as games finish: caches may keep them a little while.
SHARED_BRIEFLY = {"Cache-Control": "public, max-age=30"}


def _statistics() -> StatisticsService:
    statistics = red7_runtime().statistics
    assert statistics is not None  # built by every runtime (service/runtime.py)
    return statistics


@v1.route("/players/<player>/statistics")
class PlayerStatistics(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(200, PlayerStatisticsSchema, example=example("PlayerStatistics"))
    @v1.doc(operationId="getPlayerStatistics", security=TOKEN_OR_NONE)
    def get(self, player: str) -> Response:
        """A player's statistics across their finished games (by id or handle): games, wins and places; by seat and
        by player count; their rounds won by the rule in force when they won them; the colours they played to their
        palette and to the canvas; and their accuracy trend, a point per analysed game, oldest first.

        The token is optional: with one, your own statistics even with your archive hidden. A deleted account answers
        404 player_not_found. A player who hides their archive (updateMe's archive_hidden) shows everyone else the
        statistics of no game, as for a player who finished none."""
        viewer = current_player(required=False)
        return json_response(_statistics().player(player, viewer.id if viewer else None), 200, PRIVATE)


@v1.route("/statistics")
class GameStatistics(MethodView):
    @documented_errors(422, 429)
    @v1.arguments(GameStatisticsQuerySchema(), location="query")
    @v1.response(200, GameStatisticsSchema, example=example("GameStatistics"))
    @v1.doc(operationId="getGameStatistics", security=PUBLIC)
    def get(self, query: dict[str, Any]) -> Response:
        """Everyone's statistics from every finished game, by variant and player count: the rules rounds were won
        under and the cards that won them (the winner's highest card that counted under the rule), the most common
        first, each with its share of the group's rounds."""
        answer = _statistics().everyone(query.get("variant"), query.get("players"))
        return json_response(answer, 200, SHARED_BRIEFLY)
