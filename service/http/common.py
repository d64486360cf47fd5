"""What every route shares: the blueprints, JSON responses, the OpenAPI vocabulary, content negotiation
and the rendered-view cache.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from http import HTTPStatus
from typing import Any, Protocol, TypeVar

import flask
import orjson
from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, missing
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import MIMEAccept

from replays.ndjson import document_from_lines
from service.application.games import GameService
from service.application.players import PlayerService, PlayerTag
from service.domain.game import Game
from service.http.examples import problem_example
from service.http.locale import language
from service.http.problems import PROBLEM_JSON
from service.http.views import game_json, seated_ids
from service.http.waits import OpenWaits
from service.runtime import Runtime

log = logging.getLogger("red7.api")

_Resource = TypeVar("_Resource", bound=type[MethodView])
_View = TypeVar("_View", bound=Callable[..., Any])
_Result = TypeVar("_Result")


class ApiBlueprint(Protocol):
    """What the routes use of :class:`flask_smorest.Blueprint`, typed (flask-smorest ships no annotations).

    ``route`` registers a resource and returns it as it is; ``doc``, ``response`` and ``alt_response`` wrap a
    view in one that takes the same arguments; ``arguments`` wraps it in one that takes all of them but the
    parsed one, which it passes on.  A schema is a marshmallow schema (class or instance) or an OpenAPI dict.
    """

    def route(
        self,
        rule: str,
        *,
        parameters: Sequence[Mapping[str, Any]] | None = None,
        tags: Sequence[str] | None = None,
        **options: Any,
    ) -> Callable[[_Resource], _Resource]: ...

    def arguments(
        self, schema: Schema | type[Schema], *, location: str = "json", **options: Any
    ) -> Callable[[Callable[..., _Result]], Callable[..., _Result]]: ...

    def response(
        self,
        status_code: int,
        schema: Schema | type[Schema] | Mapping[str, Any] | None = None,
        *,
        content_type: str | None = None,
        description: str | None = None,
        headers: Mapping[str, Any] | None = None,
        example: Any = None,
        examples: Mapping[str, Any] | None = None,
    ) -> Callable[[_View], _View]: ...

    def alt_response(
        self,
        status_code: int,
        *,
        schema: Schema | type[Schema] | Mapping[str, Any] | None = None,
        content_type: str | None = None,
        description: str | None = None,
        headers: Mapping[str, Any] | None = None,
        example: Any = None,
        examples: Mapping[str, Any] | None = None,
    ) -> Callable[[_View], _View]: ...

    def doc(self, **documentation: Any) -> Callable[[_View], _View]: ...


NDJSON = "application/x-ndjson"


class _BodyParser(FlaskParser):
    """webargs' parser, reading a replay sent as NDJSON lines (the export's other format) as the document they hold.

    The app's body check (``_check_body``) lets NDJSON through to ``POST /v1/replays`` alone (415 elsewhere) and
    answers 400 to lines that are not a replay's, so only that route's schema ever sees such a body. An empty body
    is no body, in either format (as webargs reads an empty JSON body): the schema answers 422, never the lines'
    parser a 500."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        if req.mimetype == NDJSON:
            data = req.get_data(cache=True)
            return document_from_lines(data) if data else missing
        return super()._raw_load_json(req)


class _Blueprint(Blueprint):  # type: ignore[misc]  # flask-smorest ships no type information
    ARGUMENTS_PARSER = _BodyParser()


v1: ApiBlueprint = _Blueprint("v1", __name__, url_prefix="/v1", description="Players, games, actions and event feeds")
health: ApiBlueprint = Blueprint("health", __name__, description="Liveness and readiness")


def parsed_query(schema: Schema) -> dict[str, Any]:
    """The request's query as ``schema`` reads it, through the parser of every route's arguments (its 422s alike): for
    a query a route reads only when it holds something (the decorator would read it on every request)."""
    query: dict[str, Any] = _Blueprint.ARGUMENTS_PARSER.parse(schema, this_request(), location="query")
    return query


HTTP_REASONS = {code: HTTPStatus(code).phrase for code in (400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 429, 501, 503)}


def this_request() -> flask.Request:
    """The request itself, not its proxy: code that reads it a dozen times (the hooks around every route) asks the
    context for it once."""
    req: flask.Request = request._get_current_object()  # type: ignore[attr-defined]
    return req


def red7_runtime() -> Runtime:
    runtime: Runtime = current_app.extensions["red7"]  # put there by service.http.app.create_app
    return runtime


def open_waits() -> OpenWaits:
    waits: OpenWaits = current_app.extensions["red7_waits"]  # put there by service.http.app.create_app
    return waits


def game_service() -> GameService:
    return red7_runtime().games


def player_service() -> PlayerService:
    return red7_runtime().accounts


#: The headers of a response made for the caller's token (a view, a feed, a replay of a game in play, the caller's
#: player, games and tokens): no shared cache may hand it to anyone else, and any other cache keys it by the token.
PRIVATE = {"Vary": "Authorization", "Cache-Control": "private"}
#: The same for a response that should be kept nowhere: it holds a secret shown once (a token, a webhook secret), or
#: it is a live stream.
NO_STORE = {"Vary": "Authorization", "Cache-Control": "no-store"}


def to_json(value: Any) -> str:
    """An answer's body as compact JSON text, by orjson: it writes a view in a tenth of the time ``json.dumps`` takes
    (2-3 µs against 30 for a mover's view of an advanced game), and a view is rendered at every move.  Text that is not
    ASCII is written as UTF-8, not as ``\\u`` escapes (RFC 8259: JSON is UTF-8); keys that are not strings are written
    as ``json.dumps`` writes them."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None, content_type: str = "application/json"
) -> Response:
    text = body if isinstance(body, str) else to_json(body)
    # Every header given to the constructor, its Content-Type last as werkzeug puts it: a new response has none of
    # them, so none is looked for and replaced one at a time.
    given = [*headers.items(), ("Content-Type", content_type)] if headers else [("Content-Type", content_type)]
    return Response(text, status=status, headers=given)


# --- what the OpenAPI document says beyond the schemas -------------------------------------

#: The response headers of the API, described once (``service.http.app`` registers them as components.headers).
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
    "WWW-Authenticate": {
        "description": 'On a token without the scope the operation needs: Bearer error="insufficient_scope", '
        'scope="<scope>" (RFC 6750 3.1)',
        "schema": {"type": "string"},
    },
}
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def response_headers(*names: str) -> dict[str, str]:
    """Response headers by name, for ``headers=``: apispec turns each into a $ref to components.headers."""
    return {name: name for name in names if name in RESPONSE_HEADERS}


#: The schema of a body that is text, not JSON (an HTML page).
TEXT = {"type": "string"}
#: A text/event-stream body: text, framed as Server-Sent Events (a generator's stream function hands it over as text;
#: an EventSource or an SSE parser reads it event by event).
SSE_STREAM: dict[str, Any] = {
    "type": "string",
    "description": "Server-Sent Events (text/event-stream), one event per block ended by a blank line. It opens with "
    "`retry: 2000` (the reconnection delay, in ms). Each event of the game is `id: <n>` (send it back as Last-Event-ID to "
    "resume), `event: <type>` and `data: <the event as JSON>`, exactly as an item of the events feed (an `Event`). "
    "While nothing happens a `: keep-alive` comment comes every 15 s. `event: end` (data `{}`) says the game is over and "
    'every event was sent: close the stream, or an EventSource reconnects. `event: reset` (data `{"version": v}`) '
    "says the store lost events this stream had sent: reload the view; the stream goes on after version v. "
    "`event: replaced` (data `{}`) says the token opened more long-polls and streams than it may hold open and this "
    "one, its oldest, gave its place to the newest: the stream closes.",
}


#: What such a stream sends, for the document's example.
SSE_EXAMPLE = (
    "retry: 2000\n\n"
    'id: 7\nevent: turn_started\ndata: {"n":7,"type":"turn_started","seat":1,"at":"2026-05-01T12:00:03.000Z",'
    '"by":"system:scoring","v":1}\n\n'
    ": keep-alive\n\n"
    'id: 8\nevent: card_played\ndata: {"n":8,"type":"card_played","seat":1,"card":"G5","effect":null,'
    '"at":"2026-05-01T12:00:09.000Z","by":"ai:1","v":1}\n\n'
    "event: end\ndata: {}\n\n"
)

#: One event of that stream as an SSE parser reads it (not in the document: OpenAPI 3.0 has no way to say "each item
#: of this stream is"; 3.2's ``itemSchema`` would).  tests/service/http/test_fuzz.py checks every event streamed against it.
SSE_FRAME: dict[str, Any] = {
    "type": "object",
    "required": ["event", "data"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$"},
        "event": {"type": "string", "pattern": "^[a-z_]+$"},
        "data": {"type": "string", "pattern": "^\\{"},
        "retry": {"type": "integer"},
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

#: Who may call an operation (the schemes are the spec's components.securitySchemes, declared in service.http.app).
#: A requirement is what the route itself checks; ``service.http.openapi`` drops ``apiKey`` on a server without keys.
TOKEN: list[dict[str, list[str]]] = [{"bearer": []}]
#: A token is optional (without one, the spectator's view: no hands), so nothing is *required*: ``[{"bearer": []},
#: {}]`` would say the same to a reader, but generators (openapi-python-client) make any requirement mandatory and
#: would refuse a spectator's client.  The operation's description says what a token adds.
TOKEN_OR_NONE: list[dict[str, list[str]]] = []
#: X-Api-Key, asked for only when the server has keys (RED7_API_KEYS).
API_KEY: list[dict[str, list[str]]] = [{"apiKey": []}]
TOKEN_AND_API_KEY: list[dict[str, list[str]]] = [{"bearer": [], "apiKey": []}]
PUBLIC: list[dict[str, list[str]]] = []


def best_offer(offers: Sequence[str]) -> str | None:
    """The media type of ``offers`` the Accept header prefers (the first if it names none), or ``None``.

    Media-type parameters other than q are ignored: werkzeug would match them
    exactly, so ``application/json; charset=utf-8`` would take no JSON at all.
    """
    return best_offer_of(this_request(), offers)


def best_offer_of(req: flask.Request, offers: Sequence[str]) -> str | None:
    """:func:`best_offer` for ``req``."""
    header = req.headers.get("Accept", "")
    if not header.strip():  # none, or blank as some clients send: anything goes
        return offers[0]
    if header in offers:  # the usual case: one type, exactly one of ours
        return header
    if ";" not in header:  # no parameters to drop: werkzeug's parse, cached on the request
        return req.accept_mimetypes.best_match(offers)
    ranges = MIMEAccept([(value.split(";", 1)[0].strip(), quality) for value, quality in req.accept_mimetypes])
    return ranges.best_match(offers)


def documented_errors(*codes: int, store: bool = True, rated_seat: bool = False) -> Callable[[_View], _View]:
    """Document the problem responses of a route (every route may also meet 406, an Accept header it cannot
    satisfy, and, if it reads the ``store``, 503: the store is down).  ``rated_seat``: the route may seat a player in
    a rated game, so its 403 may be ``rated_play_needs_history`` or ``rated_play_suspended``, which say in
    Retry-After when they end (service/application/rated_play.py).

    A route that may answer 429 is rate limited: every one of its responses may carry X-RateLimit-*
    (``RateBudgets.after_request``, :mod:`service.http.budgets`), so this decorator goes above the others of the route, to see
    the responses they document.  429 and 503 also carry Retry-After.

    The documentation goes straight into the view's ``_apidoc``, which is what
    ``alt_response`` records too, but without wrapping the view once per code.
    """
    limited = 429 in codes

    def decorate(func: _View) -> _View:
        responses = func.__dict__.setdefault("_apidoc", {}).setdefault("response", {}).setdefault("responses", {})
        if limited:
            for documented in responses.values():
                for response in documented:
                    if isinstance(response, dict):
                        response.setdefault("headers", {}).update(response_headers(*RATE_LIMIT_HEADERS))
        for code in sorted({*codes, 406, *((503,) if store else ())}):
            description = f"{HTTP_REASONS[code]}: problem details (RFC 9457)"
            problem: dict[str, Any] = {
                "schema": "Problem",
                "description": description,
                "content_type": PROBLEM_JSON,
                "example": problem_example(code),
            }
            retry = ("Retry-After",) if code in (429, 503) or (rated_seat and code == 403) else ()
            headers = response_headers(*retry, *(RATE_LIMIT_HEADERS if limited else ()))
            if headers:
                problem["headers"] = headers
            responses.setdefault(code, []).append(problem)
        return func

    return decorate


class RenderCache:
    """Rendered views by (game, version, head, viewer, what is shown of the seated players): a view of a stored game
    never changes but for a seated player's handle or account, and clients poll.

    The head (the last event itself) is in the key because a version number names one game only as long as
    Redis keeps its history (see :mod:`service.storage.events`).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._views: OrderedDict[tuple[object, ...], str] = OrderedDict()
        self._lock = threading.Lock()

    def render(self, game: Game, player_id: str | None) -> str:
        """The view of a stored version of the game (only those: a version number names one game state only once stored)."""
        runtime = red7_runtime()  # once: each of the app's services asked for again is a lookup through its proxy
        tags, clock = runtime.accounts.tags(seated_ids(game)), runtime.games.clock_of(game)
        lang = language()
        key = (game.id, game.version, game.head, player_id, tuple(sorted(tags.items())), clock.key(), lang)
        with self._lock:
            text = self._views.get(key)
        if text is None:
            text = to_json(game_json(game, player_id, tags, clock, lang))
            self._remember(key, text)
        return text

    def _remember(self, key: tuple[object, ...], text: str) -> None:
        with self._lock:
            self._views[key] = text
            while len(self._views) > self.size:
                self._views.popitem(last=False)


def seat_tags(game: Game) -> dict[str, PlayerTag]:
    """What the game's view shows of its seated players (their handles; deleted accounts)."""
    return player_service().tags(seated_ids(game))


def render_view(game: Game, player_id: str | None) -> str:
    view = game_json(game, player_id, seat_tags(game), game_service().clock_of(game), language())
    return to_json(view)


RENDERED = RenderCache()


def game_response(game: Game, player_id: str | None, status: int = 200) -> Response:
    """A game's view; a rated game's carries its seats' ratings (``ratings``), read now: they change without the game
    (another game of a player ends; this one is applied to its ladder after its last event), so they are added to
    the rendered view, never kept in it."""
    text = RENDERED.render(game, player_id)
    if game.rated:
        ratings = red7_runtime().ratings.of_game(game)
        if ratings is not None:
            text = f'{text[:-1]},"ratings":{to_json(ratings)}}}'
    return json_response(text, status, {"ETag": f'"{game.version}"', **PRIVATE})


def answers_not_modified(game: Game) -> bool:
    """Whether an If-None-Match holding the game's version may be answered 304: not for a finished rated game, whose
    view changes at the same version when its ladder takes it (its rating changes appear)."""
    return not (game.rated and game.status == "finished")
