"""Players and their tokens: sign-up, the caller's profile and games, tokens per device; players others can find
(handles, public profiles, the search by handle) and deleting an account."""

from __future__ import annotations

from typing import Any

from flask import Response, g, request
from flask.views import MethodView

from service.application.oauth import App, OAuthService
from service.application.players import Player, Profile, TokenInfo, hash_token
from service.domain.scopes import granted, ordered
from service.http.auth import (
    account_deleted_by_request,
    bearer_token,
    caller_scopes,
    current_player,
    require_api_key,
)
from service.http.common import (
    API_KEY,
    NO_STORE,
    PRIVATE,
    PUBLIC,
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
    PlayerListSchema,
    PlayerSchema,
    PlayerSearchQuerySchema,
    PlayerUpdateSchema,
    PublicPlayerSchema,
    TokenCreateSchema,
    TokenIssuedSchema,
    TokenListSchema,
)
from service.http.views import seated_ids, summary_json

#: A public profile is the same for everyone, and changes (a new handle, a game finished, an account deleted):
#: a cache may keep it only to ask again.
PROFILE_CACHE = {"Cache-Control": "no-cache"}

# --- players -----------------------------------------------------------------------------


@v1.route("/players")
class Players(MethodView):
    @documented_errors(400, 401, 409, 413, 415, 422, 429)
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
        """Create a player; the token in the answer is shown only once (and to a retry with the same Idempotency-Key).

        With a handle, others can find you by it (``getPlayer``, ``searchPlayers``); you may choose one later too
        (``updateMe``).  A handle another player has is 409 handle_taken, and nobody is created.
        """
        require_api_key()
        key = idempotency(request.remote_addr or "unknown", red7_runtime().settings.idempotency_ttl)
        terms = red7_runtime().safety.terms  # type: ignore[union-attr]  # (build_runtime makes one)
        terms.check_sign_up(body.get("accept_terms"))  # 403 terms_not_accepted: nobody made
        signed_up = player_service().sign_up(body["name"], key, handle=body.get("handle"))
        player = signed_up.player
        terms.signed_up(player.id)
        created = {
            "id": player.id,
            "name": player.name,
            "handle": player.handle,
            "token": signed_up.token,
            "created_at": player.created_at,
        }
        replayed = REPLAYED if signed_up.replayed else {}
        headers = {"Location": "/v1/players/me", **NO_STORE, **replayed}  # as the new token sees itself
        return json_response(created, 201, headers)

    @documented_errors(401, 422, 429)
    @v1.arguments(PlayerSearchQuerySchema(), location="query")
    @v1.response(200, PlayerListSchema, example=example("PlayerList"))
    @v1.doc(operationId="searchPlayers", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """Players by the start of their handle, whatever its case, in handle order, a page at a time (20 at most).

        Only players with a handle are found; a deleted account never is.
        """
        current_player()
        page = player_service().search(query.get("handle", ""), limit=query["limit"], cursor=query.get("cursor"))
        players = [{"id": p.id, "handle": p.handle, "name": p.name} for p in page.found]
        return json_response({"players": players, "next_cursor": page.next_cursor}, 200, PRIVATE)


def _player_json(player: Player, *, show_secret: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": player.id,
        "name": player.name,
        "handle": player.handle,
        "created_at": player.created_at,
        "webhook_url": player.webhook_url,
        "language": player.language,
        "live_listed": player.live_listed,
    }
    if show_secret and player.webhook_secret:
        out["webhook_secret"] = player.webhook_secret
    blocks = red7_runtime().blocks
    reach = blocks.reach(player.id) if blocks is not None else None
    if reach is not None:
        out.update(challenge_from=reach.challenge, talk_from=reach.talk)
    feeds = red7_runtime().feeds
    if feeds is not None:
        out["unread_notifications"] = feeds.unread(player.id)
    archive = red7_runtime().archive
    if archive is not None:
        out["archive_hidden"] = archive.hidden(player.id)
    return {**out, **red7_runtime().calendars.view(player.id)}


@v1.route("/players/me")
class Me(MethodView):
    @documented_errors(401, 429)
    @v1.response(200, PlayerSchema, example=example("Player"))
    @v1.doc(operationId="getMe", security=TOKEN)
    def get(self) -> Response:
        """The calling player; ``moderator`` says whether they hold the role (a client shows its screen by it)."""
        player = current_player()
        found = red7_runtime().safety
        role = {"moderator": found.moderation.holds_role(player.id)} if found is not None else {}
        return json_response({**_player_json(player), **role}, 200, PRIVATE)

    @documented_errors(400, 401, 409, 413, 415, 422, 429)
    @v1.arguments(PlayerUpdateSchema(), example=example("PlayerUpdate"))
    @v1.response(200, PlayerSchema, example=example("Player"))
    @v1.doc(operationId="updateMe", security=TOKEN)
    def patch(self, body: dict[str, Any]) -> Response:
        """Rename, choose or change your handle, set the webhook URL (the answer holds its new signing secret, once), or
        say what of your time counts on your correspondence clocks: your time zone, weekends off, a vacation; say who
        may challenge you (`challenge_from`: everyone, played, nobody) and talk to you at a table (`talk_from`); keep your games
        in play off the list of live games to watch (`live_listed`: false); hide your archive of finished games from
        everyone else (`archive_hidden`).

        A vacation declared ahead stops your correspondence clocks while it runs (the others see "on vacation until" in
        the game's view), and counts against your hours a year in hours begun (409 `vacation_limit_reached`, with
        `limit` and `left`). When a correspondence deadline passes while you have hours left, a day of vacation (or what
        is left) is taken for you, and ends when you move. Live games are never paused. A request refused (a handle
        taken, say) changes nothing; the calendar is changed last, once the rest has been.
        """
        player = current_player()
        calendar: dict[str, Any] = {k: body[k] for k in ("time_zone", "weekends_off", "vacation") if k in body}
        if calendar:
            red7_runtime().calendars.check(player.id, calendar)
        url, handle = body.get("webhook_url"), body.get("handle")
        updated = player_service().update(
            player,
            name=body.get("name"),
            webhook_url=(url or "") if "webhook_url" in body else None,
            handle=(handle or "") if "handle" in body else None,
            language=(body["language"] or "") if "language" in body else None,
            live_listed=body.get("live_listed"),
        )
        reach = {k: body[k] for k in ("challenge_from", "talk_from") if k in body}
        if reach and (blocks := red7_runtime().blocks) is not None:
            blocks.set_reach(player.id, challenge=reach.get("challenge_from"), talk=reach.get("talk_from"))
        if "archive_hidden" in body and (archive := red7_runtime().archive) is not None:
            archive.set_hidden(player.id, body["archive_hidden"])
        if calendar:
            red7_runtime().calendars.update(player.id, calendar)
        return json_response(_player_json(updated, show_secret="webhook_url" in body), 200, NO_STORE)

    @documented_errors(401, 429)
    @v1.response(204, description="Deleted: your tokens no longer work, and your id and handle answer 404")
    @v1.doc(operationId="deleteMe", security=TOKEN)
    def delete(self) -> Response:
        """Delete your account: every token revoked, the webhook dropped, name and handle erased (the handle is free).

        Games waiting that you created are called off; you leave the others still waiting, and an AI plays your seat
        to the end of every game in play; your match tickets are cancelled, the challenges you sent cancelled and
        those you received declined.  Finished games keep your seat under its pseudonymous id, shown as "deleted
        player", so their replays still verify.  Once this has answered, no token of yours works in any process; a
        request of yours still under way as it ran is answered 401 `invalid_token`, and what it made is ended.
        """
        g.erasing_account = True  # suspended, banned or behind on the terms: still theirs to delete (auth.admit)
        player_service().delete(current_player())
        account_deleted_by_request()
        return Response(status=204, mimetype=None)


@v1.route("/players/me/games")
class MyGames(MethodView):
    @documented_errors(401, 422, 429)
    @v1.arguments(MyGamesQuerySchema(), location="query")
    @v1.response(200, GameListSchema, example=example("GameList"))
    @v1.doc(operationId="listMyGames", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """The caller's games, a page at a time, most urgent first: the ones where it is their turn (the least time left
        first: the nearest deadline, then those without one), then active, waiting, finished."""
        player = current_player()
        games_ = game_service()
        page = games_.games_of(player, status=query.get("status"), limit=query["limit"], cursor=query.get("cursor"))
        tags = player_service().tags(set().union(*(seated_ids(g) for g in page.games)))
        games = [summary_json(g, player.id, tags, games_.clock_of(g) if g.status == "active" else None) for g in page.games]
        return json_response({"games": games, "next_cursor": page.next_cursor}, 200, PRIVATE)


def _profile_json(profile: Profile) -> dict[str, Any]:
    """What anyone sees of a player: never a token, a webhook or its secret."""
    player = profile.player
    return {
        "id": player.id,
        "handle": player.handle,
        "name": player.name,
        "since": player.created_at,
        "games": {"played": profile.played, "won": profile.won},
    }


@v1.route("/players/<player>")
class PlayerResource(MethodView):
    @documented_errors(404, 429)
    @v1.response(200, PublicPlayerSchema, example=example("PublicPlayer"))
    @v1.doc(operationId="getPlayer", security=PUBLIC)
    def get(self, player: str) -> Response:
        """A player's public profile, by id (``p_`` and 16 hex digits) or by handle (whatever its case).

        Anyone may read it, without a token: handle, name, since when, finished games played and won.  A deleted
        account answers 404 player_not_found.
        """
        profile = player_service().profile(player)
        body = _profile_json(profile)
        ratings = red7_runtime().ratings.ratings_of(profile.player.id)["ladders"]
        if ratings:
            body["ratings"] = ratings
        return json_response(body, 200, PROFILE_CACHE)


def _token_json(info: TokenInfo, apps: dict[str, App | None] | None = None) -> dict[str, Any]:
    current = hash_token(bearer_token() or "")
    scopes = ordered(granted(info.scopes))  # none stored: every scope (a sign-up's token, or one from before scopes)
    answer: dict[str, Any] = {
        "id": info.id,
        "label": info.label,
        "created_at": info.created_at,
        "current": info.digest == current,
        "scopes": scopes,
    }
    if apps is not None and info.id in apps:  # an app's grant (Sign in with Red7): revoking the token revokes it
        app = apps[info.id]
        answer["app"] = {"client_id": app.client_id, "name": app.name} if app is not None else None
    return answer


def _oauth() -> OAuthService:
    found = red7_runtime().oauth
    assert found is not None, "the runtime always makes the OAuth service (service/runtime.py)"
    return found


@v1.route("/players/me/tokens")
class Tokens(MethodView):
    @documented_errors(401, 429)
    @v1.response(200, TokenListSchema, example=example("TokenList"))
    @v1.doc(operationId="listTokens", security=TOKEN)
    def get(self) -> Response:
        """The caller's tokens (never the tokens themselves): one per device or app, say.  A token an app holds
        through Sign in with Red7 (docs/oauth.md) names the app in ``app``: revoke it to revoke the app's grant."""
        player = current_player()
        apps = _oauth().app_of_token(player.id)
        tokens = [_token_json(info, apps) for info in player_service().tokens(player)]
        return json_response({"tokens": tokens}, 200, PRIVATE)

    @documented_errors(400, 401, 409, 413, 415, 422, 429)
    @v1.arguments(TokenCreateSchema(), required=False, example=example("TokenCreate"))
    @v1.response(
        201, TokenIssuedSchema, headers=response_headers("Location", "Idempotent-Replayed"), example=example("TokenIssued")
    )
    @v1.doc(operationId="createToken", security=TOKEN, parameters=[idempotency_parameter("issues no second token")])
    def post(self, body: dict[str, Any]) -> Response:
        """Issue another token; the answer holds it, once (and to a retry with the same Idempotency-Key).  The tokens
        already issued keep working.

        ``scopes`` says what it may do (docs/tokens.md); without them, what the token asking may.  A token never
        issues a wider one: a scope it lacks is 403 scope_exceeds_token, naming them in ``scopes``.
        """
        player = current_player()
        key = idempotency(player.id, red7_runtime().settings.idempotency_ttl)
        holder = caller_scopes()
        issued = player_service().issue_token(player, body["label"], key, scopes=body.get("scopes"), holder=holder)
        answer = {**_token_json(issued.info), "token": issued.token}
        headers = {"Location": f"/v1/players/me/tokens/{issued.info.id}", **NO_STORE, **(REPLAYED if issued.replayed else {})}
        return json_response(answer, 201, headers)


@v1.route("/players/me/tokens/<token_id>")
class TokenResource(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(204, description="Revoked: the token no longer works (at once here, within seconds on every server)")
    @v1.doc(operationId="revokeToken", security=TOKEN)
    def delete(self, token_id: str) -> Response:
        """Revoke a token (the one this request came with too: that is how to sign out).  An app's token (``app`` in
        listTokens) takes its whole grant with it: the app's refresh token stops working too."""
        player = current_player()
        player_service().revoke_token(player, token_id)
        _oauth().revoke_grant_of_token(player.id, token_id)
        return Response(status=204, mimetype=None)
