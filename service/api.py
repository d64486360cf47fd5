"""The HTTP routes of ``/v1``: parse (schemas), call the application layer, render.

Responses are rendered straight to JSON (``service.views``); the
``@blp.response`` declarations document them in the OpenAPI spec.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from http import HTTPStatus
from typing import Any

import redis
from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint
from werkzeug.datastructures import MIMEAccept

from replays.build import state_at
from replays.ndjson import iter_lines
from replays.verify import verify_replay
from replays.viewer import render_viewer
from service.auth import bearer_token, current_player, require_api_key
from service.errors import PROBLEM_JSON, ApiError, catalogue
from service.games import GameService, NewGame
from service.players import PlayerStore, TokenInfo, TooManyTokens, hash_token
from service.schemas import (
    ActionSchema,
    EventPageSchema,
    EventsQuerySchema,
    GameCreateSchema,
    GameListSchema,
    GameViewSchema,
    HealthSchema,
    ImportedSchema,
    JoinSchema,
    MyGamesQuerySchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    PlayerUpdateSchema,
    ProblemListSchema,
    ReplayQuerySchema,
    ReplaySchema,
    StreamQuerySchema,
    TokenCreateSchema,
    TokenIssuedSchema,
    TokenListSchema,
    event_number,
)
from service.store import Idempotency
from service.views import game_json, summary_json

log = logging.getLogger("red7.api")

v1 = Blueprint("v1", __name__, url_prefix="/v1", description="Players, games, actions and event feeds")
health = Blueprint("health", __name__, description="Liveness and readiness")

HTTP_REASONS = {code: HTTPStatus(code).phrase for code in (400, 401, 403, 404, 406, 409, 413, 415, 422, 429, 503)}


def _red7() -> Any:
    return current_app.extensions["red7"]


def _games() -> GameService:
    return _red7().games


def _players() -> PlayerStore:
    return _red7().players


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
    response = Response(text, status=status, mimetype="application/json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


# --- what the OpenAPI document says beyond the schemas -------------------------------------

#: The response headers of the API, described once (``service.app`` registers them as components.headers).
RESPONSE_HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {
        "description": 'The game version, quoted ("12"): send it back as If-None-Match to poll, or as If-Match to act',
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
        "required": True,
    },
    "Location": {"description": "Where what was created can be found", "schema": {"type": "string"}, "required": True},
    "Idempotent-Replayed": {
        "description": "`true`: the stored answer to an earlier request with this Idempotency-Key (nothing was done again)",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Retry-After": {"description": "Seconds to wait before trying again", "schema": {"type": "integer", "minimum": 1}},
    "X-RateLimit-Limit": {
        "description": "Requests allowed in the window of the rate limit nearest to running out (sent while limits are on)",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Remaining": {"description": "Requests left in that window", "schema": {"type": "integer", "minimum": 0}},
    "X-RateLimit-Reset": {"description": "When that window resets, in Unix seconds", "schema": {"type": "integer"}},
}
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def _headers(*names: str) -> dict[str, str]:
    """Response headers by name, for ``headers=``: apispec turns each into a $ref to components.headers."""
    return {name: name for name in names if name in RESPONSE_HEADERS}


#: The schema of a body that is text, not JSON (an HTML page).
TEXT = {"type": "string"}
#: One event of a text/event-stream body (as OpenAPI 3.2's ``itemSchema`` would put it, and schemathesis reads it).
SSE_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event number: send it back as Last-Event-ID"},
        "event": {"type": "string", "description": "The event's type; `end` when the game is over and every event was sent"},
        "data": {"type": "string", "description": "The event as JSON, as in the events feed (`{}` for `end`)"},
        "retry": {"type": "integer", "description": "How long to wait before reconnecting, in milliseconds"},
    },
}


#: Request headers read by the views themselves (not by a schema).
IF_NONE_MATCH = {
    "in": "header",
    "name": "If-None-Match",
    "schema": {"type": "string"},
    "description": 'The ETag of the view you hold ("12"): the answer is 304 Not Modified while it is current',
}
LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "schema": {"type": "string"},
    "description": "The id of the last event received (an event number): the stream resumes after it; overrides `after`",
}

#: Who may call an operation (the schemes are the spec's components.securitySchemes, declared in service.app).
TOKEN = [{"bearer": []}]
#: Without a token, the spectator's view (no hands).
TOKEN_OR_NONE = [{"bearer": []}, {}]
#: X-Api-Key, needed only when the server has keys (RED7_API_KEYS).
API_KEY = [{"apiKey": []}, {}]
TOKEN_AND_API_KEY = [{"bearer": [], "apiKey": []}, {"bearer": []}]
PUBLIC: list[dict[str, list[str]]] = []


def best_offer(offers: Sequence[str]) -> str | None:
    """The media type of ``offers`` the Accept header prefers (the first if it names none), or ``None``.

    Media-type parameters other than q are ignored: werkzeug would match them
    exactly, so ``application/json; charset=utf-8`` would take no JSON at all.
    """
    header = request.headers.get("Accept", "")
    if not header.strip():  # none, or blank as some clients send: anything goes
        return offers[0]
    if header in offers:  # the usual case: one type, exactly one of ours
        return header
    if ";" not in header:  # no parameters to drop: werkzeug's parse, cached on the request
        return request.accept_mimetypes.best_match(offers)
    ranges = MIMEAccept([(value.split(";", 1)[0].strip(), quality) for value, quality in request.accept_mimetypes])
    return ranges.best_match(offers)


def _errors(*codes: int) -> Any:
    """Document the problem responses of a route (every route may also meet 406, an Accept header it cannot
    satisfy, and 503: the store is down).

    A route that may answer 429 is rate limited: every one of its responses may carry X-RateLimit-*
    (``service.app._rate_limit_headers``), so this decorator goes above the others of the route, to see
    the responses they document.  429 and 503 also carry Retry-After.

    The documentation goes straight into the view's ``_apidoc``, which is what
    ``alt_response`` records too, but without wrapping the view once per code.
    """
    limited = 429 in codes

    def decorate(func: Any) -> Any:
        responses = func.__dict__.setdefault("_apidoc", {}).setdefault("response", {}).setdefault("responses", {})
        if limited:
            for documented in responses.values():
                for response in documented:
                    if isinstance(response, dict):
                        response.setdefault("headers", {}).update(_headers(*RATE_LIMIT_HEADERS))
        for code in sorted({*codes, 406, 503}):
            description = f"{HTTP_REASONS[code]}: problem details (RFC 9457)"
            problem: dict[str, Any] = {"schema": "Problem", "description": description, "content_type": PROBLEM_JSON}
            headers = _headers(*(("Retry-After",) if code in (429, 503) else ()), *(RATE_LIMIT_HEADERS if limited else ()))
            if headers:
                problem["headers"] = headers
            responses.setdefault(code, []).append(problem)
        return func

    return decorate


class RenderCache:
    """Rendered views by (game, version, head, viewer): a view of a stored game never changes, and clients poll.

    The head (the last event itself) is in the key because a version number names one game only as long as
    Redis keeps its history (see :mod:`service.store`).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._views: OrderedDict[tuple[str, int, str, str | None], str] = OrderedDict()
        self._lock = threading.Lock()

    def render(self, game: Any, player_id: str | None) -> str:
        """The view of a stored version of the game (only those: a version number names one game state only once stored)."""
        key = (game.id, game.version, game.head, player_id)
        with self._lock:
            text = self._views.get(key)
        if text is None:
            text = render_view(game, player_id)
            self.remember(game, player_id, text)
        return text

    def remember(self, game: Any, player_id: str | None, text: str) -> None:
        with self._lock:
            self._views[(game.id, game.version, game.head, player_id)] = text
            while len(self._views) > self.size:
                self._views.popitem(last=False)


def render_view(game: Any, player_id: str | None) -> str:
    return json.dumps(game_json(game, player_id), separators=(",", ":"))


RENDERED = RenderCache()


def _game_response(game: Any, player_id: str | None, status: int = 200) -> Response:
    return json_response(RENDERED.render(game, player_id), status, {"ETag": f'"{game.version}"', "Vary": "Authorization"})


# --- players -----------------------------------------------------------------------------


@v1.route("/players")
class Players(MethodView):
    @_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(PlayerCreateSchema())
    @v1.response(201, PlayerCreatedSchema, headers=_headers("Location"))
    @v1.doc(security=API_KEY)
    def post(self, body: dict[str, Any]) -> Response:
        """Create a player; the token in the answer is shown only once."""
        require_api_key()
        player, token = _players().create(body["name"], _games().clock())
        created = {"id": player.id, "name": player.name, "token": token, "created_at": player.created_at}
        return json_response(created, 201, {"Location": "/v1/players/me"})  # as the new token sees itself


def _player_json(player: Any, *, show_secret: bool = False) -> dict[str, Any]:
    out = {"id": player.id, "name": player.name, "created_at": player.created_at, "webhook_url": player.webhook_url}
    if show_secret and player.webhook_secret:
        out["webhook_secret"] = player.webhook_secret
    return out


@v1.route("/players/me")
class Me(MethodView):
    @_errors(401, 429)
    @v1.response(200, PlayerSchema)
    @v1.doc(security=TOKEN)
    def get(self) -> Response:
        """The calling player."""
        return json_response(_player_json(current_player()))

    @_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(PlayerUpdateSchema())
    @v1.response(200, PlayerSchema)
    @v1.doc(security=TOKEN)
    def patch(self, body: dict[str, Any]) -> Response:
        """Rename, or set the webhook URL (the answer holds its new signing secret, once)."""
        player = current_player()
        url = body.get("webhook_url")
        updated = _players().update(
            player.id, name=body.get("name"), webhook_url=(url or "") if "webhook_url" in body else None
        )
        return json_response(_player_json(updated, show_secret="webhook_url" in body))


@v1.route("/players/me/games")
class MyGames(MethodView):
    @_errors(401, 422, 429)
    @v1.arguments(MyGamesQuerySchema(), location="query")
    @v1.response(200, GameListSchema)
    @v1.doc(security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """The caller's games, a page at a time: the ones where it is their turn first, then active, waiting, finished."""
        player = current_player()
        page = _games().games_of(player, status=query.get("status"), limit=query["limit"], cursor=query.get("cursor"))
        return json_response({"games": [summary_json(g, player.id) for g in page.games], "next_cursor": page.next_cursor})


def _token_json(info: TokenInfo) -> dict[str, Any]:
    current = hash_token(bearer_token() or "")
    return {"id": info.id, "label": info.label, "created_at": info.created_at, "current": info.digest == current}


@v1.route("/players/me/tokens")
class Tokens(MethodView):
    @_errors(401, 429)
    @v1.response(200, TokenListSchema)
    @v1.doc(security=TOKEN)
    def get(self) -> Response:
        """The caller's tokens (never the tokens themselves): one per device or app, say."""
        player = current_player()
        return json_response({"tokens": [_token_json(info) for info in _players().tokens(player.id)]})

    @_errors(400, 401, 409, 413, 415, 422, 429)
    @v1.arguments(TokenCreateSchema())
    @v1.response(201, TokenIssuedSchema, headers=_headers("Location"))
    @v1.doc(security=TOKEN)
    def post(self, body: dict[str, Any]) -> Response:
        """Issue another token; the answer holds it, once.  The tokens already issued keep working."""
        player = current_player()
        try:
            info, token = _players().issue_token(player.id, body["label"], _games().clock())
        except TooManyTokens:
            raise ApiError("token_limit_reached", "Revoke a token you no longer use first.") from None
        issued = {**_token_json(info), "token": token}
        return json_response(issued, 201, {"Location": f"/v1/players/me/tokens/{info.id}"})


@v1.route("/players/me/tokens/<token_id>")
class TokenResource(MethodView):
    @_errors(401, 404, 429)
    @v1.response(204, description="Revoked: the token no longer works (at once here, within seconds on every server)")
    @v1.doc(security=TOKEN)
    def delete(self, token_id: str) -> Response:
        """Revoke a token (the one this request came with too: that is how to sign out)."""
        player = current_player()
        if not _players().revoke_token(player.id, token_id):
            raise ApiError("token_not_found")
        return Response(status=204, mimetype=None)


# --- games -------------------------------------------------------------------------------


@v1.route("/games")
class Games(MethodView):
    @_errors(400, 401, 403, 413, 415, 422, 429)
    @v1.arguments(GameCreateSchema())
    @v1.response(201, GameViewSchema, headers=_headers("ETag", "Location"))
    @v1.doc(security=TOKEN_AND_API_KEY)
    def post(self, new_game: NewGame) -> Response:
        """Create a game; the creator takes the first human seat (or only watches if there is none)."""
        require_api_key()
        player = current_player()
        game = _games().create(player, new_game)
        response = _game_response(game, player.id, 201)
        response.headers["Location"] = f"/v1/games/{game.id}"
        return response


@v1.route("/games/<game_id>")
class GameResource(MethodView):
    @_errors(401, 404, 429)
    @v1.response(200, GameViewSchema, headers=_headers("ETag"))
    @v1.alt_response(304, description="Not Modified: the version in If-None-Match is current", headers=_headers("ETag"))
    @v1.doc(security=TOKEN_OR_NONE, parameters=[IF_NONE_MATCH])
    def get(self, game_id: str) -> Response:
        """The caller's view of a game (without a token: the spectator view, no hands)."""
        player = current_player(required=False)
        game = _games().load(game_id)
        _games().ensure_progress(game)
        if request.if_none_match and request.if_none_match.contains_weak(str(game.version)):
            return Response(status=304, headers={"ETag": f'"{game.version}"', "Vary": "Authorization"})
        return _game_response(game, player.id if player else None)

    @_errors(401, 403, 404, 409, 429)
    @v1.response(200, GameViewSchema, headers=_headers("ETag"))
    @v1.doc(security=TOKEN)
    def delete(self, game_id: str) -> Response:
        """Call off a game that has not started (its creator only); it leaves everyone's list of games."""
        player = current_player()
        return _game_response(_games().cancel(game_id, player), player.id)


@v1.route("/games/<game_id>/leave")
class Leave(MethodView):
    @_errors(400, 401, 403, 404, 409, 413, 415, 429)
    @v1.response(200, GameViewSchema, headers=_headers("ETag"))
    @v1.doc(security=TOKEN)
    def post(self, game_id: str) -> Response:
        """Give up your seat: before the start it opens again; in play a greedy AI takes it and the others play on."""
        player = current_player()
        return _game_response(_games().leave(game_id, player), player.id)


@v1.route("/games/<game_id>/join")
class Join(MethodView):
    @_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(JoinSchema())
    @v1.response(200, GameViewSchema, headers=_headers("ETag"))
    @v1.doc(security=TOKEN)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Take an open seat with the join code; the game starts when every seat is taken."""
        player = current_player()
        game = _games().join(game_id, player, body["code"], body.get("seat"))
        return _game_response(game, player.id)


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
    @_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(ActionSchema())
    @v1.response(200, GameViewSchema, headers=_headers("ETag", "Idempotent-Replayed"))
    @v1.doc(
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
            idempotency = Idempotency(player.id, key, fingerprint, _red7().settings.idempotency_ttl)

        rendered: list[str] = []

        def respond(game: Any) -> str:
            # Rendered before the append, which may still lose a race: not cached until it is stored.
            rendered.append(render_view(game, player.id))
            return rendered[-1]

        outcome = _games().act(
            game_id, player, body["steps"], expected_version=expected, idempotency=idempotency, respond=respond
        )
        if outcome.replayed is not None:
            version = json.loads(outcome.replayed)["version"]
            return json_response(outcome.replayed, 200, {"ETag": f'"{version}"', "Idempotent-Replayed": "true"})
        game = outcome.game
        RENDERED.remember(game, player.id, rendered[-1])  # the last rendering is of the game that was stored
        return json_response(rendered[-1], 200, {"ETag": f'"{game.version}"'})


@v1.route("/games/<game_id>/events")
class Events(MethodView):
    @_errors(401, 404, 422, 429)
    @v1.arguments(EventsQuerySchema(), location="query")
    @v1.response(200, EventPageSchema)
    @v1.doc(security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Your redacted event feed, paged; ``wait`` long-polls until something happens."""
        player = current_player(required=False)
        games = _games()
        game = games.load(game_id)
        games.ensure_progress(game)
        after = query["after"]
        if game.version <= after and query["wait"] > 0 and not game.over:  # nothing more will come
            games.store.wait(game_id, after, min(query["wait"], _red7().settings.long_poll_max))
            game = games.load(game_id)
        events = games.feed(game, player.id if player else None, after, query["limit"])
        page = {
            "events": events,
            "next": events[-1]["n"] if events else min(after, game.version),
            "version": game.version,
            "finished": game.over,
        }
        return json_response(page)


# Last-Event-ID is documented on the path: @v1.doc(parameters=...) would replace the query's parameters.
@v1.route("/games/<game_id>/stream", parameters=[LAST_EVENT_ID])
class Stream(MethodView):
    @_errors(401, 404, 422, 429)
    @v1.arguments(StreamQuerySchema(), location="query")
    @v1.response(
        200,
        SSE_EVENT,
        content_type="text/event-stream",
        description="Server-Sent Events: the caller's redacted events (id: the event number); resume with Last-Event-ID",
    )
    @v1.doc(security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The feed as Server-Sent Events; it ends when the game is over (or after a while: reconnect)."""
        player = current_player(required=False)
        viewer = player.id if player else None
        games = _games()
        settings = _red7().settings
        games.ensure_progress(games.load(game_id))  # 404 before the stream starts
        after = query.get("after", 0)
        if "Last-Event-ID" in request.headers:
            last_event = event_number(request.headers["Last-Event-ID"])
            if last_event is None:
                error = {"field": "Last-Event-ID", "message": "must be an event number", "location": "headers"}
                raise ApiError("invalid_request", "Last-Event-ID must be an event number.", errors=[error])
            after = last_event

        def events() -> Iterator[str]:
            nonlocal after
            started = time.monotonic()
            yield "retry: 2000\n\n"
            try:
                while True:
                    game = games.load(game_id)
                    for event in games.feed(game, viewer, after, 500):
                        after = event["n"]
                        yield f"id: {event['n']}\nevent: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n"
                    if game.over and after >= game.version:
                        yield "event: end\ndata: {}\n\n"
                        return
                    left = settings.stream_max_seconds - (time.monotonic() - started)
                    if left <= 0:
                        return
                    if not games.store.wait(game_id, after, min(settings.stream_heartbeat, left)):
                        games.ensure_progress(game)
                        yield ": keep-alive\n\n"
            except redis.RedisError as error:  # the status line is long gone: end the stream, the client resumes
                log.warning("stream of game %s ended: the event store is unreachable (%s)", game_id, error)

        response = Response(stream_with_context(events()), mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"
        return response


# --- replays ------------------------------------------------------------------------------

NDJSON = "application/x-ndjson"
#: What a route answers with, where it is not JSON only: an Accept header that takes none of it gets a 406.
PRODUCES: dict[str, tuple[str, ...]] = {
    "v1.TokenResource": (),  # 204: no body to negotiate
    "v1.Stream": ("text/event-stream",),
    "v1.GameReplay": ("application/json", NDJSON),
    "v1.ImportedReplay": ("application/json", NDJSON),
    "v1.GameReplayView": ("text/html",),
    "v1.ImportedReplayView": ("text/html",),
}
REPLAY_ETAG = {"description": "The replay's hash, quoted (with the whole document as JSON only)", "schema": {"type": "string"}}
REPLAY_RESPONSE = {
    "description": "the replay document; one step with at=N; one step per line with Accept: application/x-ndjson",
    "headers": {"ETag": REPLAY_ETAG, **_headers(*RATE_LIMIT_HEADERS)},
    "content": {
        "application/json": {
            "schema": {"oneOf": [{"$ref": "#/components/schemas/Replay"}, {"$ref": "#/components/schemas/ReplayAt"}]}
        },
        NDJSON: {"schema": {"type": "string"}},
    },
}


def _replay_response(document: dict[str, Any], query: dict[str, Any], filename: str | None = None) -> Response:
    """The replay as JSON (one step with ``at``), as NDJSON (one step per line), or as a download."""
    if "at" in query:
        try:
            step = state_at(document, query["at"])
        except IndexError as exc:
            error = {"field": "at", "message": str(exc), "location": "query"}
            raise ApiError("invalid_request", str(exc), errors=[error]) from None
        return json_response({"game_id": document["game_id"], "steps": len(document["steps"]), "step": step})
    if filename is None and best_offer(["application/json", NDJSON]) == NDJSON:
        lines = iter_lines(document)
        return Response(stream_with_context(lines), mimetype=NDJSON)
    headers = {"ETag": f'"{document["hash"]}"'}
    if filename:
        headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return json_response(document, 200, headers)


def _viewer_response(document: dict[str, Any], title: str) -> Response:
    response = Response(render_viewer(document, title), mimetype="text/html")
    response.headers["Content-Security-Policy"] = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
    return response


@v1.route("/games/<game_id>/replay")
class GameReplay(MethodView):
    @_errors(401, 404, 422, 429)
    @v1.arguments(ReplayQuerySchema(), location="query")
    @v1.doc(responses={200: REPLAY_RESPONSE}, security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """A finished game's full replay; a game in progress as far as the caller has seen it (no hidden card)."""
        player = current_player(required=False)
        game = _games().load(game_id)
        return _replay_response(_games().replay(game, player.id if player else None), query)


@v1.route("/games/<game_id>/replay/export")
class GameReplayExport(MethodView):
    @_errors(404, 409, 429)
    @v1.response(
        200,
        ReplaySchema,
        description="the replay as a file to keep",
        headers={
            "ETag": {**REPLAY_ETAG, "required": True},
            "Content-Disposition": {
                "description": 'attachment; filename="red7-<game_id>.json"',
                "schema": {"type": "string"},
                "required": True,
            },
        },
    )
    @v1.doc(security=PUBLIC)
    def get(self, game_id: str) -> Response:
        """Download a finished game's replay, to keep or to import elsewhere (POST /v1/replays)."""
        game = _games().load(game_id)
        if game.status != "finished":
            raise ApiError("game_not_finished", "Only a finished game can be exported; its replay would give away hidden cards.")
        return _replay_response(_games().replay(game, None), {}, f"red7-{game_id}.json")


@v1.route("/games/<game_id>/replay/view")
class GameReplayView(MethodView):
    @_errors(404, 429)
    @v1.response(200, TEXT, description="a self-contained HTML page that steps through the replay", content_type="text/html")
    @v1.doc(security=PUBLIC)
    def get(self, game_id: str) -> Response:
        """The replay viewer (a finished game in full; a game in progress as a spectator sees it)."""
        game = _games().load(game_id)
        return _viewer_response(_games().replay(game, None), f"Red7 replay {game_id}")


@v1.route("/replays")
class Replays(MethodView):
    @_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(ReplaySchema())
    @v1.response(201, ImportedSchema, headers=_headers("Location"))
    @v1.doc(security=TOKEN)
    def post(self, document: dict[str, Any]) -> Response:
        """Import a replay file: it is verified (hash, every state, the deals) and made viewable."""
        current_player()
        verdict = verify_replay(document)
        if not verdict.ok:
            detail = "The replay does not verify: " + "; ".join(verdict.problems[:5])
            raise ApiError("invalid_replay", detail, problems=verdict.problems)
        replay_id = _red7().replays.save(document)
        body = {
            "id": replay_id,
            "game_id": document["game_id"],
            "steps": verdict.steps,
            "hash": document["hash"],
            "url": f"/v1/replays/{replay_id}",
            "view_url": f"/v1/replays/{replay_id}/view",
        }
        return json_response(body, 201, {"Location": body["url"]})


def _imported(replay_id: str) -> dict[str, Any]:
    document = _red7().replays.get(replay_id)
    if document is None:
        raise ApiError("not_found", f"There is no imported replay {replay_id!r}.")
    return document


@v1.route("/replays/<replay_id>")
class ImportedReplay(MethodView):
    @_errors(404, 422, 429)
    @v1.arguments(ReplayQuerySchema(), location="query")
    @v1.doc(responses={200: REPLAY_RESPONSE}, security=PUBLIC)
    def get(self, query: dict[str, Any], replay_id: str) -> Response:
        """An imported replay."""
        return _replay_response(_imported(replay_id), query)


@v1.route("/replays/<replay_id>/view")
class ImportedReplayView(MethodView):
    @_errors(404, 429)
    @v1.response(200, TEXT, description="a self-contained HTML page that steps through the replay", content_type="text/html")
    @v1.doc(security=PUBLIC)
    def get(self, replay_id: str) -> Response:
        """The viewer for an imported replay."""
        return _viewer_response(_imported(replay_id), f"Red7 replay {replay_id}")


@v1.route("/problems")
class Problems(MethodView):
    @v1.response(200, ProblemListSchema)
    @v1.doc(security=PUBLIC)
    def get(self) -> Response:
        """Every problem ``code`` this API answers with."""
        return json_response({"problems": catalogue()})


# --- health ------------------------------------------------------------------------------


@health.route("/healthz")
class Healthz(MethodView):
    @health.response(200, HealthSchema)
    @health.doc(security=PUBLIC)
    def get(self) -> Response:
        """The process is up."""
        return json_response({"status": "ok"})


@health.route("/readyz")
class Readyz(MethodView):
    @_errors()
    @health.response(200, HealthSchema)
    @health.doc(security=PUBLIC)
    def get(self) -> Response:
        """The event store (Redis) answers."""
        _games().store.redis.ping()
        return json_response({"status": "ready"})
