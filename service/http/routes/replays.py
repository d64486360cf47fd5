"""Replays: a game's replay document, its export and viewer, and imported replay files."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask import Response, request, stream_with_context, url_for
from flask.views import MethodView

from replays.build import in_language, state_at
from replays.ndjson import iter_lines
from replays.viewer import TITLE, render_viewer
from service.application.imports import Imported
from service.common.texts import Text
from service.domain.game import Game
from service.http.auth import current_player
from service.http.common import (
    NDJSON,
    PRIVATE,
    PUBLIC,
    RATE_LIMIT_HEADERS,
    TEXT,
    TOKEN,
    TOKEN_OR_NONE,
    best_offer,
    documented_errors,
    game_service,
    json_response,
    red7_runtime,
    response_headers,
    v1,
)
from service.http.duplicate import tournament_gate
from service.http.examples import REPLAY_REF, example, ndjson_example
from service.http.idempotency import REPLAYED, idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.locale import language, say
from service.http.problems import ApiError
from service.http.schemas import (
    ImportedSchema,
    ReplayQuerySchema,
    ReplaySchema,
    ViewerQuerySchema,
)

# --- replays ------------------------------------------------------------------------------

#: What a route answers with, where it is not JSON only: an Accept header that takes none of it gets a 406.
PRODUCES: dict[str, tuple[str, ...]] = {
    "v1.TokenResource": (),  # 204: no body to negotiate
    "v1.Stream": ("text/event-stream",),
    "v1.MyEvents": ("application/json", NDJSON, "text/event-stream"),
    "v1.GameReplay": ("application/json", NDJSON),
    "v1.GameReplayExport": ("application/json", NDJSON),
    "v1.ImportedReplay": ("application/json", NDJSON),
    "v1.PlayerGamesExport": (NDJSON,),
    "v1.GameReplayView": ("text/html",),
    "v1.ImportedReplayView": ("text/html",),
}
HTML_EXAMPLE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Red7 replay g_3112657aa446d737</title>…'
REPLAY_ETAG = {"description": "The replay's hash, quoted (with the whole document as JSON only)", "schema": {"type": "string"}}
REPLAY_RESPONSE = {
    "description": "the replay document; one step with at=N; one step per line with Accept: application/x-ndjson",
    "headers": {"ETag": REPLAY_ETAG, **response_headers(*RATE_LIMIT_HEADERS)},
    "content": {
        "application/json": {
            "schema": {"oneOf": [{"$ref": "#/components/schemas/Replay"}, {"$ref": "#/components/schemas/ReplayAt"}]},
            "examples": {**REPLAY_REF, "at": {"summary": "?at=3: the table after step 3", "value": example("ReplayAt")}},
        },
        NDJSON: {"schema": {"type": "string", "description": "one JSON object per line"}, "example": ndjson_example()},
    },
}

#: What ``POST /v1/replays`` documents beside the JSON document the schema gives: the NDJSON lines, as a file.
#:
#: ``format: binary`` makes the lines a file to openapi-python-client (with its README setting that maps
#: application/x-ndjson to application/octet-stream), so it sends them as they are; a plain string it would try
#: to send as a file's ``payload``. ``required: false``, although a request without a body is answered 422: for a
#: required body in two formats, openapi-python-client 0.29.1 annotates ``body`` with ``Unset`` without importing
#: it, and the module fails on import (``NameError``); an optional body imports it. openapi-typescript reads the
#: lines as a string, and openapi-fetch sends them with their Content-Type and an identity ``bodySerializer``.
IMPORT_BODY = {
    "description": "the replay file: either format that GET /v1/games/{game_id}/replay/export sends (a request "
    "without one is answered 422)",
    "required": False,
    "content": {
        NDJSON: {
            "schema": {"type": "string", "format": "binary", "description": "the replay's lines, as the export sends them"},
            "example": ndjson_example(),
        },
    },
}


def _replay_response(document: dict[str, Any], query: dict[str, Any], filename: str | None = None) -> Response:
    """The replay as JSON (one step with ``at``), as NDJSON (one step per line), or as a download; its steps' texts in the
    request's language (``explanation``: each as a code and its parameters)."""
    document = in_language(document, language())
    if "at" in query:
        try:
            step = state_at(document, query["at"], language())
        except IndexError as exc:
            error = {"field": "at", "message": str(exc), "location": "query"}
            raise ApiError("invalid_request", str(exc), errors=[error]) from None
        return json_response({"game_id": document["game_id"], "steps": len(document["steps"]), "step": step})
    if best_offer(["application/json", NDJSON]) == NDJSON:
        lines = Response(stream_with_context(iter_lines(document)), mimetype=NDJSON)
        if filename:
            lines.headers["Content-Disposition"] = f'attachment; filename="{filename}.ndjson"'
        return lines
    headers = {"ETag": f'"{document["hash"]}"'}
    if filename:
        headers["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return json_response(document, 200, headers)


def _with_ratings(game: Game, document: dict[str, Any]) -> dict[str, Any]:
    """A rated game's replay as served and viewed: with its seats' ratings (``ratings``, as in the game's view), read
    now — the ladder's, not the game's record, so outside the hash (``replays.build.NOT_HASHED``) and not exported."""
    ratings = red7_runtime().ratings.of_game(game) if game.rated else None
    return document if ratings is None else {**document, "ratings": ratings}


def _with_analysis(game: Game, document: dict[str, Any]) -> dict[str, Any]:
    """A finished game's replay with its decision analysis (``analysis``), once the workers have made it (issue 23):
    outside the hash (``replays.build.NOT_HASHED``), in the export too."""
    analysis = red7_runtime().analyses.result_of(game)
    return document if analysis is None else {**document, "analysis": analysis}


VIEWER_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
#: Who may frame a page: nobody, but for the viewer's embed mode, which any site may (it calls nothing and holds no
#: secret: a spectator's or a finished game's replay).
NO_FRAMING = "frame-ancestors 'none'"
ANY_FRAMING = "frame-ancestors *"


def _viewer_response(
    document: dict[str, Any], title: str, analyse: str | None = None, view: dict[str, Any] | None = None
) -> Response:
    """The viewer page, in the request's language; ``title``: the id the page is titled by.  ``analyse``: the URL the
    page's button asks for the analysis at (one replay without an analysis): only then may the page call the API,
    and only this origin (``connect-src 'self'``, as /play's), so a player's token goes nowhere else.  ``view``: the
    query (``embed``, ``theme``); the embed mode offers no analysis (it runs in another site's page) and may be
    framed by any site, the page by none."""
    lang = language()
    embed = bool(view and view.get("embed"))
    theme = view.get("theme") if view else None
    analyse = None if embed else analyse
    # The discovery link names this page (its address alone: no query), escaped whole in the query of a path.
    oembed = None if embed else f"{url_for('v1.OEmbed')}?url={quote(request.base_url, safe='')}&format=json"
    page = render_viewer(
        in_language(document, lang), say(Text(TITLE, {"id": title})), lang, analyse, embed=embed, theme=theme, oembed=oembed
    )
    response = Response(page, mimetype="text/html")
    csp = VIEWER_CSP if analyse is None else f"{VIEWER_CSP}; connect-src 'self'"
    response.headers["Content-Security-Policy"] = f"{csp}; {ANY_FRAMING if embed else NO_FRAMING}"
    return response


@v1.route("/games/<game_id>/replay")
class GameReplay(MethodView):
    @documented_errors(401, 403, 404, 422, 429)
    @v1.arguments(ReplayQuerySchema(), location="query")
    @v1.doc(operationId="getReplay", responses={200: REPLAY_RESPONSE}, security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """A finished game's full replay; a game in progress as far as the caller has seen it (no hidden card).

        The token is optional: without one, what a spectator sees; with a player's, what that player sees.
        """
        player = current_player(required=False)
        tournament_gate(game_id, player.id if player else None)
        game = game_service().load(game_id)
        document = _with_analysis(game, game_service().replay(game, player.id if player else None))
        response = _replay_response(_with_ratings(game, document), query)
        response.headers.update(PRIVATE)  # a game in play as far as the caller has seen it: its hand included
        return response


@v1.route("/games/<game_id>/replay/export")
class GameReplayExport(MethodView):
    @documented_errors(403, 404, 409, 429)
    @v1.response(
        200,
        ReplaySchema,
        examples=REPLAY_REF,
        description="the replay as a file to keep: JSON, or with Accept: application/x-ndjson its lines (as GET .../replay)",
        headers={
            "ETag": REPLAY_ETAG,
            "Content-Disposition": {
                "description": 'attachment; filename="red7-<game_id>.json" (or .ndjson)',
                "schema": {"type": "string"},
                "required": True,
            },
        },
    )
    @v1.doc(
        operationId="exportReplay",
        security=PUBLIC,
        responses={200: {"content": {NDJSON: {"schema": {"type": "string"}, "example": ndjson_example()}}}},
    )
    def get(self, game_id: str) -> Response:
        """Download a finished game's replay, to keep or to import elsewhere (POST /v1/replays takes either format)."""
        tournament_gate(game_id, None)
        game = game_service().load(game_id)
        if game.status != "finished":
            raise ApiError("game_not_finished", "Only a finished game can be exported; its replay would give away hidden cards.")
        return _replay_response(_with_analysis(game, game_service().replay(game, None)), {}, f"red7-{game_id}")


@v1.route("/games/<game_id>/replay/view")
class GameReplayView(MethodView):
    @documented_errors(404, 422, 429)
    @v1.response(
        200,
        TEXT,
        description="a self-contained HTML page that steps through the replay",
        content_type="text/html",
        example=HTML_EXAMPLE,
    )
    @v1.arguments(ViewerQuerySchema(), location="query")
    @v1.doc(operationId="viewReplay", security=PUBLIC)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The replay viewer (a finished game in full; a game in progress as a spectator sees it); with `embed=true`
        the embed mode, which another site may frame (getOEmbed gives its code). `#step=N` opens it at step N."""
        tournament_gate(game_id, None)
        game = game_service().load(game_id)
        document = _with_analysis(game, game_service().replay(game, None))
        response = _viewer_response(_with_ratings(game, document), game_id, view=query)
        # A finished game's page changes only when its analysis or ratings come: any cache may keep it a few minutes.
        # A game in play changes at every move, and the page has no validator to check a kept copy with.
        response.headers["Cache-Control"] = "public, max-age=300" if game.status == "finished" else "no-store"
        return response


@v1.route("/replays")
class Replays(MethodView):
    @documented_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(ReplaySchema(), examples=REPLAY_REF)
    @v1.response(201, ImportedSchema, headers=response_headers("Location"), example=example("Imported"))
    @v1.alt_response(
        200,
        schema=ImportedSchema,
        description="imported before: that import",
        headers=response_headers("Location"),
        example=example("Imported"),
    )
    @v1.doc(
        operationId="importReplay",
        security=TOKEN,
        requestBody=IMPORT_BODY,
        parameters=[idempotency_parameter("is answered as the first upload was (201), not as a second one (200)")],
    )
    def post(self, document: dict[str, Any]) -> Response:
        """Import a replay file: it is verified (hash, every state, the deals, every member) and made viewable for a while.

        The file is either export: the JSON document (application/json) or its lines (application/x-ndjson: a header
        line, one line per step, an end line), as GET /v1/games/{id}/replay/export sends them.

        Every member must be what the service writes: each event's members of the JSON type and range it has (a
        player's name 1 to 40 printable characters, as POST /v1/players takes it; seats of the game; the engine's AI
        levels), and the header and every step as the events replay them (step texts are words, retold in today's).
        Anything else is a 422 invalid_replay naming each field at fault.

        What is kept is the replay's events, no more bytes than the file has; it is told again when read. It is kept
        RED7_IMPORTED_REPLAY_TTL (30 days; expires_at says until when) and then answers 404. The same content imported
        again is the same import (200, same id), kept that long from then: a retry or a second upload makes no copy.
        Imports draw on a budget of their own per token (RED7_RATE_LIMIT_IMPORT, 100 a day)."""
        player = current_player()
        runtime = red7_runtime()
        imported = runtime.imports.import_once(player, document, idempotency(player.id, runtime.settings.idempotency_ttl))
        return _imported_response(imported)


def _imported_response(imported: Imported) -> Response:
    """201 for a replay imported for the first time, 200 for one imported before (a retry: as its first answer said)."""
    replay_id, kept = imported.replay_id, imported.document
    body = {
        "id": replay_id,
        "game_id": kept["game_id"],
        "steps": len(kept["steps"]),
        "hash": kept["hash"],
        "url": f"/v1/replays/{replay_id}",
        "view_url": f"/v1/replays/{replay_id}/view",
        "expires_at": imported.expires_at,
    }
    status = 201 if imported.created else 200
    return json_response(body, status, {"Location": body["url"], **(REPLAYED if imported.replayed else {})})


def _imported(replay_id: str) -> dict[str, Any]:
    """An imported replay as served and viewed: with its decision analysis (``analysis``) once the workers have made
    it, as a game's replay has (requestImportedAnalysis)."""
    runtime = red7_runtime()
    document = runtime.imports.get(replay_id)
    if document is None:
        raise ApiError("not_found", f"There is no imported replay {replay_id!r}: none was made, or it has expired.")
    analysis = runtime.imported_analyses.done(replay_id)
    return document if analysis is None else {**document, "analysis": analysis}


@v1.route("/replays/<replay_id>")
class ImportedReplay(MethodView):
    @documented_errors(404, 422, 429)
    @v1.arguments(ReplayQuerySchema(), location="query")
    @v1.doc(operationId="getImportedReplay", responses={200: REPLAY_RESPONSE}, security=PUBLIC)
    def get(self, query: dict[str, Any], replay_id: str) -> Response:
        """An imported replay, while it is kept (expires_at of its import; then 404)."""
        return _replay_response(_imported(replay_id), query)


@v1.route("/replays/<replay_id>/view")
class ImportedReplayView(MethodView):
    @documented_errors(404, 422, 429)
    @v1.response(
        200,
        TEXT,
        description="a self-contained HTML page that steps through the replay",
        content_type="text/html",
        example=HTML_EXAMPLE,
    )
    @v1.arguments(ViewerQuerySchema(), location="query")
    @v1.doc(operationId="viewImportedReplay", security=PUBLIC)
    def get(self, query: dict[str, Any], replay_id: str) -> Response:
        """The viewer for an imported replay; without a decision analysis yet, it offers to ask for one
        (requestImportedAnalysis, for the player signed in to the browser client in this browser)."""
        document = _imported(replay_id)
        analyse = None if "analysis" in document else url_for("v1.ImportedAnalysis", replay_id=replay_id)
        return _viewer_response(document, replay_id, analyse, view=query)
