"""Games and actions: create, view, join, leave, call off, and a player's steps."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.application.commands import NewGame
from service.http.auth import current_player, require_api_key
from service.http.common import (
    IF_NONE_MATCH,
    PRIVATE,
    RENDERED,
    TOKEN,
    TOKEN_AND_API_KEY,
    TOKEN_OR_NONE,
    documented_errors,
    game_response,
    game_service,
    json_response,
    red7_runtime,
    render_view,
    response_headers,
    v1,
)
from service.http.examples import example
from service.http.problems import ApiError
from service.http.schemas import (
    ActionSchema,
    GameCreateSchema,
    GameViewSchema,
    JoinSchema,
    event_number,
)
from service.storage.events import Idempotency

# --- games -------------------------------------------------------------------------------


@v1.route("/games")
class Games(MethodView):
    @documented_errors(400, 401, 403, 409, 413, 415, 422, 429)
    @v1.arguments(GameCreateSchema(), example=example("GameCreate"))
    @v1.response(201, GameViewSchema, headers=response_headers("ETag", "Location"), example=example("GameView"))
    @v1.doc(operationId="createGame", security=TOKEN_AND_API_KEY)
    def post(self, new_game: NewGame) -> Response:
        """Create a game; the creator takes the first human seat (or only watches if there is none)."""
        require_api_key()
        player = current_player()
        game = game_service().create(player, new_game)
        response = game_response(game, player.id, 201)
        response.headers["Location"] = f"/v1/games/{game.id}"
        return response


@v1.route("/games/<game_id>")
class GameResource(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag"), example=example("GameView"))
    @v1.alt_response(304, description="Not Modified: the version in If-None-Match is current", headers=response_headers("ETag"))
    @v1.doc(operationId="getGame", security=TOKEN_OR_NONE, parameters=[IF_NONE_MATCH])
    def get(self, game_id: str) -> Response:
        """The caller's view of a game (without a token: the spectator view, no hands).

        The token is optional: without one, what a spectator sees; with a player's, what that player sees.
        """
        player = current_player(required=False)
        game = game_service().load(game_id)
        game_service().ensure_progress(game)
        if request.if_none_match and request.if_none_match.contains_weak(str(game.version)):
            return Response(status=304, headers={"ETag": f'"{game.version}"', **PRIVATE})
        return game_response(game, player.id if player else None)

    @documented_errors(401, 403, 404, 409, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag"), example=example("GameView"))
    @v1.doc(operationId="cancelGame", security=TOKEN)
    def delete(self, game_id: str) -> Response:
        """Call off a game that has not started (its creator only); it leaves everyone's list of games."""
        player = current_player()
        return game_response(game_service().cancel(game_id, player), player.id)


@v1.route("/games/<game_id>/leave")
class Leave(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag"), example=example("GameView"))
    @v1.doc(operationId="leaveGame", security=TOKEN)
    def post(self, game_id: str) -> Response:
        """Give up your seat: before the start it opens again; in play a greedy AI takes it and the others play on."""
        player = current_player()
        return game_response(game_service().leave(game_id, player), player.id)


@v1.route("/games/<game_id>/join")
class Join(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(JoinSchema(), example=example("Join"))
    @v1.response(200, GameViewSchema, headers=response_headers("ETag"), example=example("GameView"))
    @v1.doc(operationId="joinGame", security=TOKEN)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Take an open seat with the join code; the game starts when every seat is taken."""
        player = current_player()
        game = game_service().join(game_id, player, body["code"], body.get("seat"))
        return game_response(game, player.id)


def _expected_version(body: dict[str, Any]) -> int | None:
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return body.get("expected_version")
    version = event_number(header.strip().removeprefix("W/").strip('"'))
    if version is None:
        raise ApiError("invalid_precondition", f"If-Match should be the game version, like \"12\", not {header[:40]!r}.")
    if "expected_version" in body and body["expected_version"] != version:
        raise ApiError("invalid_precondition", "If-Match and expected_version disagree.")
    return version


@v1.route("/games/<game_id>/actions")
class Actions(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(ActionSchema(), example=example("Action"))
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="act",
        security=TOKEN,
        parameters=[
            {"in": "header", "name": "If-Match", "schema": {"type": "string"}, "description": "the game version you acted on"},
            {
                "in": "header",
                "name": "Idempotency-Key",
                "schema": {"type": "string", "maxLength": 200},
                "description": "makes a retry safe",
            },
        ],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Steps of your turn, all or nothing, in one atomic append."""
        player = current_player()
        expected = _expected_version(body)
        key = request.headers.get("Idempotency-Key")
        idempotency = None
        if key:
            if len(key) > 200:
                raise ApiError("invalid_request", "Idempotency-Key is at most 200 characters.")
            fingerprint = Idempotency.fingerprint_of("POST", request.path, [request.get_json(silent=True), expected])
            idempotency = Idempotency(player.id, key, fingerprint, red7_runtime().settings.idempotency_ttl)

        games = game_service()
        outcome = games.act(game_id, player, body["steps"], expected_version=expected, idempotency=idempotency)
        if outcome.replayed is not None:  # a retry: the answer the first attempt got, the view of what it made
            replayed = outcome.replayed
            if replayed.version is None:  # kept whole by an older record
                version = json.loads(replayed.response)["version"]
                return json_response(replayed.response, 200, {"ETag": f'"{version}"', "Idempotent-Replayed": "true", **PRIVATE})
            then = games.as_of(game_id, replayed.version)
            headers = {"ETag": f'"{then.version}"', "Idempotent-Replayed": "true", **PRIVATE}
            return json_response(render_view(then, player.id), 200, headers)
        game = outcome.game
        assert game is not None  # not a replayed answer: the steps were appended
        rendered = render_view(game, player.id)
        RENDERED.remember(game, player.id, rendered)
        return json_response(rendered, 200, {"ETag": f'"{game.version}"', **PRIVATE})
