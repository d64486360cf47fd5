"""Decision analyses: a finished game's or an imported replay's, requested (202, computed by the workers), then read;
and a player's mistakes across their analysed games (issue 23)."""

from __future__ import annotations

from typing import Any

from flask import Response, url_for
from flask.views import MethodView

from service.application.analysis import AnalysisRecord
from service.application.review import Mistake
from service.http.auth import current_player
from service.http.common import PRIVATE, PUBLIC, TOKEN, documented_errors, json_response, red7_runtime, response_headers, v1
from service.http.duplicate import tournament_gate
from service.http.examples import example
from service.http.schemas.analysis import AnalysisSchema, MistakeListSchema, MistakesQuerySchema


def analysis_json(game_id: str, record: AnalysisRecord, url: str, replay_id: str | None = None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "replay_id": replay_id,
        "status": record.status,
        "progress": {"done": record.done, "total": record.total},
        "url": url,
        "result": record.result if record.status == "done" else None,
    }


def _game_analysis(game_id: str, record: AnalysisRecord) -> dict[str, Any]:
    return analysis_json(game_id, record, url_for("v1.Analysis", game_id=game_id))


def _imported_analysis(replay_id: str, record: AnalysisRecord) -> dict[str, Any]:
    document = red7_runtime().imports.get(replay_id)
    game_id = document["game_id"] if document is not None else ""
    return analysis_json(game_id, record, url_for("v1.ImportedAnalysis", replay_id=replay_id), replay_id)


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
        label, each player's accuracy and luck.  Computed by the workers apart from the games, players' analyses served
        in turn; asking again is harmless.  Requests for analyses draw on a budget of their own per token
        (RED7_RATE_LIMIT_ANALYSIS, 30 an hour, with requestImportedAnalysis): 429 past it."""
        asker = current_player()  # any player may ask (once per game: it is kept), never an anonymous caller
        body = _game_analysis(game_id, red7_runtime().analyses.request(game_id, asker.id))
        return json_response(body, 202, {"Location": body["url"]})

    @documented_errors(403, 404, 409, 429)
    @v1.response(200, AnalysisSchema, example=example("Analysis"), description="its progress, or the result when done")
    @v1.doc(operationId="getAnalysis", security=PUBLIC)
    def get(self, game_id: str) -> Response:
        """A finished game's decision analysis: its progress while the workers compute it, the result once done."""
        tournament_gate(game_id, None)
        return json_response(_game_analysis(game_id, red7_runtime().analyses.get(game_id)))


@v1.route("/replays/<replay_id>/analysis")
class ImportedAnalysis(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(
        202,
        AnalysisSchema,
        headers=response_headers("Location"),
        example=example("ImportedAnalysisQueued"),
        description="queued (or running, or done already): read it at Location",
    )
    @v1.doc(operationId="requestImportedAnalysis", security=TOKEN)
    def post(self, replay_id: str) -> Response:
        """Ask for an imported replay's decision analysis, as requestAnalysis does for a game of this service: an
        imported replay is a finished game.  It is kept as long as the import is (its expires_at), then goes with it.
        It draws on the same budget as requestAnalysis."""
        asker = current_player()  # any player may ask, never an anonymous caller: an analysis takes a worker's minute
        body = _imported_analysis(replay_id, red7_runtime().imported_analyses.request(replay_id, asker.id))
        return json_response(body, 202, {"Location": body["url"]})

    @documented_errors(404, 429)
    @v1.response(200, AnalysisSchema, example=example("ImportedAnalysis"), description="its progress, or the result when done")
    @v1.doc(operationId="getImportedAnalysis", security=PUBLIC)
    def get(self, replay_id: str) -> Response:
        """An imported replay's decision analysis: its progress while the workers compute it, the result once done."""
        return json_response(_imported_analysis(replay_id, red7_runtime().imported_analyses.get(replay_id)))


def _mistake_json(mistake: Mistake) -> dict[str, Any]:
    view = url_for("v1.GameReplayView", game_id=mistake.game_id)
    step = mistake.decision["step"]
    return {
        "game_id": mistake.game_id,
        "finished_at": mistake.finished_at,
        "seat": mistake.seat,
        "decision": mistake.decision,
        "variant": mistake.variant,
        "view_url": view if step is None else f"{view}#step={step}",
    }


@v1.route("/players/me/mistakes")
class MyMistakes(MethodView):
    @documented_errors(401, 422, 429)
    @v1.arguments(MistakesQuerySchema(), location="query")
    @v1.response(200, MistakeListSchema, example=example("MistakeList"))
    @v1.doc(operationId="listMyMistakes", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """Your own labelled decisions across your analysed games ("learn from your mistakes"), a page of finished games
        at a time, newest first: each with the game's analysis of it and a link to the replay at that step.  The page's
        games without an analysis are listed in ``unanalysed``: ask for them with requestAnalysis."""
        page = red7_runtime().reviews.mistakes_of(
            current_player(), at_least=query["label"], games=query["games"], cursor=query.get("cursor")
        )
        body = {
            "mistakes": [_mistake_json(m) for m in page.mistakes],
            "unanalysed": page.unanalysed,
            "next_cursor": page.next_cursor,
        }
        return json_response(body, 200, PRIVATE)
