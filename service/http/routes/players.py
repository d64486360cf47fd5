"""Players and their tokens: sign-up, the caller's profile and games, tokens per device."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.application.players import Player, TokenInfo, hash_token
from service.http.auth import bearer_token, current_player, require_api_key
from service.http.common import (
    API_KEY,
    NO_STORE,
    PRIVATE,
    TOKEN,
    documented_errors,
    game_service,
    json_response,
    player_service,
    red7_runtime,
    response_headers,
    v1,
)
from service.http.examples import example
from service.http.idempotency import REPLAYED, idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.schemas import (
    GameListSchema,
    MyGamesQuerySchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    PlayerUpdateSchema,
    TokenCreateSchema,
    TokenIssuedSchema,
    TokenListSchema,
)
from service.http.views import summary_json

# --- players -----------------------------------------------------------------------------


@v1.route("/players")
class Players(MethodView):
    @documented_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(PlayerCreateSchema(), example=example("PlayerCreate"))
    @v1.response(
        201, PlayerCreatedSchema, headers=response_headers("Location", "Idempotent-Replayed"), example=example("PlayerCreated")
    )
    @v1.doc(
        operationId="createPlayer",
        security=API_KEY,
        parameters=[idempotency_parameter("makes no second player (keyed by your address: there is no token yet)")],
    )
    def post(self, body: dict[str, Any]) -> Response:
        """Create a player; the token in the answer is shown only once (and to a retry with the same Idempotency-Key)."""
        require_api_key()
        key = idempotency(request.remote_addr or "unknown", red7_runtime().settings.idempotency_ttl)
        signed_up = player_service().sign_up(body["name"], key)
        player = signed_up.player
        created = {"id": player.id, "name": player.name, "token": signed_up.token, "created_at": player.created_at}
        replayed = REPLAYED if signed_up.replayed else {}
        headers = {"Location": "/v1/players/me", **NO_STORE, **replayed}  # as the new token sees itself
        return json_response(created, 201, headers)


def _player_json(player: Player, *, show_secret: bool = False) -> dict[str, Any]:
    out = {"id": player.id, "name": player.name, "created_at": player.created_at, "webhook_url": player.webhook_url}
    if show_secret and player.webhook_secret:
        out["webhook_secret"] = player.webhook_secret
    return out


@v1.route("/players/me")
class Me(MethodView):
    @documented_errors(401, 429)
    @v1.response(200, PlayerSchema, example=example("Player"))
    @v1.doc(operationId="getMe", security=TOKEN)
    def get(self) -> Response:
        """The calling player."""
        return json_response(_player_json(current_player()), 200, PRIVATE)

    @documented_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(PlayerUpdateSchema(), example=example("PlayerUpdate"))
    @v1.response(200, PlayerSchema, example=example("Player"))
    @v1.doc(operationId="updateMe", security=TOKEN)
    def patch(self, body: dict[str, Any]) -> Response:
        """Rename, or set the webhook URL (the answer holds its new signing secret, once)."""
        player = current_player()
        url = body.get("webhook_url")
        updated = player_service().update(
            player, name=body.get("name"), webhook_url=(url or "") if "webhook_url" in body else None
        )
        return json_response(_player_json(updated, show_secret="webhook_url" in body), 200, NO_STORE)


@v1.route("/players/me/games")
class MyGames(MethodView):
    @documented_errors(401, 422, 429)
    @v1.arguments(MyGamesQuerySchema(), location="query")
    @v1.response(200, GameListSchema, example=example("GameList"))
    @v1.doc(operationId="listMyGames", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """The caller's games, a page at a time: the ones where it is their turn first, then active, waiting, finished."""
        player = current_player()
        page = game_service().games_of(player, status=query.get("status"), limit=query["limit"], cursor=query.get("cursor"))
        games = [summary_json(g, player.id) for g in page.games]
        return json_response({"games": games, "next_cursor": page.next_cursor}, 200, PRIVATE)


def _token_json(info: TokenInfo) -> dict[str, Any]:
    current = hash_token(bearer_token() or "")
    return {"id": info.id, "label": info.label, "created_at": info.created_at, "current": info.digest == current}


@v1.route("/players/me/tokens")
class Tokens(MethodView):
    @documented_errors(401, 429)
    @v1.response(200, TokenListSchema, example=example("TokenList"))
    @v1.doc(operationId="listTokens", security=TOKEN)
    def get(self) -> Response:
        """The caller's tokens (never the tokens themselves): one per device or app, say."""
        player = current_player()
        return json_response({"tokens": [_token_json(info) for info in player_service().tokens(player)]}, 200, PRIVATE)

    @documented_errors(400, 401, 409, 413, 415, 422, 429)
    @v1.arguments(TokenCreateSchema(), example=example("TokenCreate"))
    @v1.response(
        201, TokenIssuedSchema, headers=response_headers("Location", "Idempotent-Replayed"), example=example("TokenIssued")
    )
    @v1.doc(operationId="createToken", security=TOKEN, parameters=[idempotency_parameter("issues no second token")])
    def post(self, body: dict[str, Any]) -> Response:
        """Issue another token; the answer holds it, once (and to a retry with the same Idempotency-Key).  The tokens
        already issued keep working."""
        player = current_player()
        key = idempotency(player.id, red7_runtime().settings.idempotency_ttl)
        issued = player_service().issue_token(player, body["label"], key)
        answer = {**_token_json(issued.info), "token": issued.token}
        headers = {"Location": f"/v1/players/me/tokens/{issued.info.id}", **NO_STORE, **(REPLAYED if issued.replayed else {})}
        return json_response(answer, 201, headers)


@v1.route("/players/me/tokens/<token_id>")
class TokenResource(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(204, description="Revoked: the token no longer works (at once here, within seconds on every server)")
    @v1.doc(operationId="revokeToken", security=TOKEN)
    def delete(self, token_id: str) -> Response:
        """Revoke a token (the one this request came with too: that is how to sign out)."""
        player_service().revoke_token(current_player(), token_id)
        return Response(status=204, mimetype=None)
