"""A finished game's decision analysis: requested (202, computed by the workers), then read (issue 23)."""

from __future__ import annotations

from typing import Any

from flask import Response, url_for
from flask.views import MethodView

from service.application.analysis import AnalysisRecord
from service.http.auth import current_player
from service.http.common import PUBLIC, TOKEN, documented_errors, json_response, red7_runtime, response_headers, v1
from service.http.examples import example
from service.http.schemas.analysis import AnalysisSchema


def analysis_json(game_id: str, record: AnalysisRecord) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "status": record.status,
        "progress": {"done": record.done, "total": record.total},
        "url": url_for("v1.Analysis", game_id=game_id),
        "result": record.result if record.status == "done" else None,
    }


@v1.route("/games/<game_id>/analysis")
class Analysis(MethodView):
    @documented_errors(401, 404, 409, 429)
    @v1.response(
        202,
        AnalysisSchema,
        headers=response_headers("Location"),
        example=example("AnalysisQueued"),
        description="queued (or running, or done already): read it at Location",
    )
    @v1.doc(operationId="requestAnalysis", security=TOKEN)
    def post(self, game_id: str) -> Response:
        """Ask for a finished game's decision analysis: each decision's win chance from what its mover knew, ΔW and a
        label, each player's accuracy and luck.  Computed by the workers apart from the games; asking again is harmless."""
        current_player()  # any player may ask (once per game: it is kept), never an anonymous caller
        record = red7_runtime().analyses.request(game_id)
        body = analysis_json(game_id, record)
        return json_response(body, 202, {"Location": body["url"]})

    @documented_errors(404, 409, 429)
    @v1.response(200, AnalysisSchema, example=example("Analysis"), description="its progress, or the result when done")
    @v1.doc(operationId="getAnalysis", security=PUBLIC)
    def get(self, game_id: str) -> Response:
        """A finished game's decision analysis: its progress while the workers compute it, the result once done."""
        return json_response(analysis_json(game_id, red7_runtime().analyses.get(game_id)))
