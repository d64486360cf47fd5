"""Games and actions: create, list the open tables, view, join, leave, call off or abort, a rematch, a player's steps."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.application.commands import Idempotency, NewGame, Outcome
from service.application.players import Player
from service.application.tables import TableFilter
from service.http.auth import current_player, require_api_key, waiter
from service.http.common import (
    IF_NONE_MATCH,
    PRIVATE,
    RENDERED,
    TOKEN,
    TOKEN_AND_API_KEY,
    TOKEN_OR_NONE,
    answers_not_modified,
    documented_errors,
    game_response,
    game_service,
    json_response,
    open_waits,
    parsed_query,
    red7_runtime,
    render_view,
    response_headers,
    this_request,
    v1,
)
from service.http.duplicate import tournament_gate
from service.http.examples import example
from service.http.headers import request_id
from service.http.idempotency import idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.problems import ApiError
from service.http.schemas import (
    LONG_POLL_MOST,
    ActionSchema,
    GameCreateSchema,
    GameViewQuerySchema,
    GameViewSchema,
    GiveTimeSchema,
    JoinSchema,
    OpenGameListSchema,
    OpenGamesQuerySchema,
    event_number,
)
from service.http.views import open_table_json

# --- games -------------------------------------------------------------------------------

#: ``GET /v1/games/{game_id}``'s ``wait``, documented by hand: the query is parsed only when it holds it
#: (:func:`_view_wait`), so a plain poll, the API's most frequent request, pays nothing for it.
VIEW_WAIT = {
    "in": "query",
    "name": "wait",
    "required": False,
    "schema": {"type": "number", "minimum": 0, "maximum": LONG_POLL_MOST, "default": 0},
    "description": GameViewQuerySchema().fields["wait"].metadata["description"],
}


def _view_wait() -> float:
    """``?wait=`` in seconds (0 without it): 422 as any query's field, through the same parser, when it is no number
    of seconds from 0 to 60.  A request without a query, the usual poll, is not parsed at all: werkzeug builds
    an empty query's MultiDict all the same, some 8 µs of a view's 115 served in-process."""
    req = this_request()
    if not req.environ.get("QUERY_STRING") or "wait" not in req.args:
        return 0.0
    return float(parsed_query(GameViewQuerySchema())["wait"])


def _answer(outcome: Outcome, player: Player, status: int = 200) -> Response:
    """The view of the game a write left (a retry's: as its first attempt left it, saying so)."""
    game = outcome.game
    assert game is not None  # every write but an action's answers with its game
    response = game_response(game, player.id, status)
    if outcome.replayed is not None:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _idempotency(player: Player) -> Idempotency | None:
    return idempotency(player.id, red7_runtime().settings.idempotency_ttl)


@v1.route("/games")
class Games(MethodView):
    @documented_errors(401, 422, 429)
    @v1.arguments(OpenGamesQuerySchema(), location="query")
    @v1.response(200, OpenGameListSchema, example=example("OpenGameList"))
    @v1.doc(operationId="listOpenGames", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """The open tables: listed games with a human seat open, newest first, a page at a time; join one without a code.

        Every filter left out matches any table. Time control: `turn_timeout` picks live games with that many
        seconds a turn, `days_per_turn` correspondence games with that many days. `min_rating` and `max_rating` hold
        a table's rating (its seated players' mean on the table's ladder; a new player has 1000) to a range. A table
        whose players and you are kept apart by a block (either way) is not shown to you.
        """
        player = current_player()
        filters = TableFilter(**{k: v for k, v in query.items() if k not in ("limit", "cursor")})
        page = game_service().open_tables(filters, limit=query["limit"], cursor=query.get("cursor"), viewer=player.id)
        games = [open_table_json(table.game, table.rating, player.id) for table in page.tables]
        return json_response({"games": games, "next_cursor": page.next_cursor}, 200, PRIVATE)

    @documented_errors(400, 401, 403, 409, 413, 415, 422, 429, rated_seat=True)
    @v1.arguments(GameCreateSchema(), example=example("GameCreate"))
    @v1.response(
        201, GameViewSchema, headers=response_headers("ETag", "Location", "Idempotent-Replayed"), example=example("GameView")
    )
    @v1.doc(operationId="createGame", security=TOKEN_AND_API_KEY, parameters=[idempotency_parameter("makes no second game")])
    def post(self, new_game: NewGame) -> Response:
        """Create a game; the creator takes the first human seat (or only watches if there is none)."""
        require_api_key()
        player = current_player()
        outcome = game_service().create(player, new_game, _idempotency(player))
        response = _answer(outcome, player, 201)
        assert outcome.game is not None
        response.headers["Location"] = f"/v1/games/{outcome.game.id}"
        return response


@v1.route("/games/<game_id>")
class GameResource(MethodView):
    @documented_errors(401, 403, 404, 422, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag"), example=example("GameView"))
    @v1.alt_response(304, description="Not Modified: the version in If-None-Match is current", headers=response_headers("ETag"))
    @v1.doc(operationId="getGame", security=TOKEN_OR_NONE, parameters=[IF_NONE_MATCH, VIEW_WAIT])
    def get(self, game_id: str) -> Response:
        """The caller's view of a game (without a token: the spectator view, no hands).

        The token is optional: without one, what a spectator sees; with a player's, what that player sees.
        With If-None-Match holding the current version and ``?wait=``, a long-poll of the view: the new view as soon
        as the game moves on (one request where the events' long-poll and a view are two), or 304 when the wait is
        over. A game that is over answers at once.
        """
        seconds = _view_wait()
        player = current_player(required=False)
        tournament_gate(game_id, player.id if player else None)
        games = game_service()
        game = games.load(game_id)
        games.ensure_progress(game)
        held = request.if_none_match
        if held and held.contains_weak(str(game.version)):
            if seconds > 0 and not game.over:
                with open_waits().held(*waiter(), request.environ) as wait:
                    # Until an event comes, the wait is over, the client left or a newer wait of its token took the slot.
                    games.wait(game_id, game.version, min(seconds, red7_runtime().settings.long_poll_max), wait)
                game = games.load(game_id)
            if held.contains_weak(str(game.version)) and answers_not_modified(game):
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
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="leaveGame", security=TOKEN, parameters=[idempotency_parameter("does not leave again")])
    def post(self, game_id: str) -> Response:
        """Give up your seat: before the start it opens again; in play a greedy AI takes it and the others play on."""
        player = current_player()
        return _answer(game_service().leave(game_id, player, idempotency=_idempotency(player)), player)


@v1.route("/games/<game_id>/join")
class Join(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429, rated_seat=True)
    @v1.arguments(JoinSchema(), required=False, example=example("Join"))
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="joinGame", security=TOKEN, parameters=[idempotency_parameter("takes no second seat")])
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Take an open seat with the join code (a listed game needs none); the game starts when every seat is taken."""
        player = current_player()
        outcome = game_service().join(game_id, player, body.get("code", ""), body.get("seat"), idempotency=_idempotency(player))
        return _answer(outcome, player)


@v1.route("/games/<game_id>/abort")
class Abort(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="abortGame", security=TOKEN, parameters=[idempotency_parameter("does not abort again")])
    def post(self, game_id: str) -> Response:
        """Abort a game in play before every seat has moved once: it ends with no winner and leaves every list.

        Any seated player may, until every seat has ended a turn (409 `abort_too_late` after: leave the game
        instead, and an AI plays your seat). A game still waiting is its creator's to call off (cancelGame). An
        aborted game is never rated; its view and feeds say `aborted`, and show what they showed when it stopped.
        """
        player = current_player()
        return _answer(game_service().abort(game_id, player, idempotency=_idempotency(player)), player)


@v1.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429, rated_seat=True)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="offerRematch", security=TOKEN, parameters=[idempotency_parameter("makes no second offer")])
    def post(self, game_id: str) -> Response:
        """Offer a rematch at a finished game's end, or accept the one offered; the finished game's view answers.

        When every player still seated wants one, the rematch starts: the same seats and settings, dealt afresh,
        every player moved one seat round (seat 1 sits first, seat 0 last), and the view's `rematch` is its id. The
        other players are told by webhook (`rematch_offered`). Each player needs room for another game in play (409
        `game_limit_reached`, naming `player_id` when it is another's); offering again changes nothing.
        """
        player = current_player()
        return _answer(game_service().offer_rematch(game_id, player, idempotency=_idempotency(player)), player)


@v1.route("/games/<game_id>/rematch/decline")
class RematchDecline(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="declineRematch", security=TOKEN, parameters=[idempotency_parameter("does not decline again")])
    def post(self, game_id: str) -> Response:
        """Decline a rematch of a finished game (withdrawing your own offer): there will be none of it.

        The other players are told by webhook (`rematch_declined`); further offers are 409 `rematch_declined`.
        Once every player wanted the rematch it has started: declining is 409 `rematch_started`.
        """
        player = current_player()
        return _answer(game_service().decline_rematch(game_id, player, idempotency=_idempotency(player)), player)


@v1.route("/games/<game_id>/time")
class GiveTime(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(GiveTimeSchema(), example=example("GiveTime"))
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="giveTime", security=TOKEN, parameters=[idempotency_parameter("gives no time twice")])
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Give time to the player whose turn it is: their deadline moves that many seconds of running clock later.

        Limits: a seated player (not resigned) gives to another human seat, to move now (409 `not_their_turn`); the game
        has a turn limit (409 `no_turn_limit`); each turn may be given, in all, as much as its own limit (a turn at most
        doubles: 409 `give_time_limit_reached`, with `limit` and `left`), so that giving time never keeps a game from
        ending. The stream records it (`time_given`), and the view's `turn.deadline` and `turn.time_left` say it.

        Time given adds up, so a retry after a lost answer would give it twice: send an Idempotency-Key and the retry
        is answered as the first attempt was, without giving more.
        """
        player = current_player()
        return _answer(game_service().give_time(game_id, player, body["seconds"], _idempotency(player)), player)


#: What If-Match may hold, as the document states it: ``*``, or a list of game versions as entity-tags (``"12"``,
#: ``W/"12"``), each of at most 12 digits (a version is at most 2**40).  Anything else (an empty value, a version
#: without quotes, a tag that is no version) is outside it, and answered 400 ``invalid_precondition``.
IF_MATCH_PATTERN = r'^[ \t]*(?:\*|(?:W/)?"[0-9]{1,12}"(?:[ \t]*,[ \t]*(?:W/)?"[0-9]{1,12}")*)[ \t]*$'

IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "schema": {"type": "string", "minLength": 1, "pattern": IF_MATCH_PATTERN},
    "description": 'The ETag of the view you acted on, as received ("12"). Compared strongly (RFC 9110 13.1.1): a weak '
    'tag (W/"12") never matches (412 `precondition_failed`); a version that is not quoted is no entity-tag (400 '
    '`invalid_precondition`); a list ("11", "12") matches if any of its tags does; `*` matches any version of the '
    "game (the steps apply to the game as it is). A quoted version that is not the game's is 409 `version_conflict`, "
    "with `current_version` and the ETag. Sent with the body's `expected_version`, the two must agree: a request whose "
    "`expected_version` is none of the header's versions contradicts itself (400 `invalid_precondition`).",
}

#: RFC 9110's entity-tags, as a list: ``[W/]"opaque"`` (etagc: any visible character but the quote).
_ENTITY_TAG = r'[ \t]*(W/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*'
_ENTITY_TAGS = re.compile(rf"{_ENTITY_TAG}(?:,{_ENTITY_TAG})*")


def _expected_versions(body: dict[str, Any]) -> frozenset[int] | None:
    """The versions the If-Match header (or ``expected_version``) accepts; ``None``: any (none sent, or ``*``).

    RFC 9110 13.1.1: If-Match compares strongly, so a weak tag never matches; the ETag is a version in quotes.
    """
    in_body = body.get("expected_version")
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":  # "*": true while the game exists (a missing game is a 404)
        return frozenset({in_body}) if in_body is not None else None
    if _ENTITY_TAGS.fullmatch(header) is None:
        raise ApiError(
            "invalid_precondition", f'If-Match holds entity-tags, the game version in quotes like "12", not {header[:40]!r}.'
        )
    tags = re.findall(_ENTITY_TAG, header)
    versions = {event_number(opaque) for weak, opaque in tags if not weak}
    if None in versions:
        raise ApiError("invalid_precondition", f'If-Match should hold game versions, like "12", not {header[:40]!r}.')
    if not versions:
        raise ApiError(
            "precondition_failed",
            "If-Match compares entity-tags strongly (RFC 9110 13.1.1), so a weak one "
            '(W/"12") never matches: send the ETag as you received it, "12".',
        )
    strong = frozenset(v for v in versions if v is not None)
    if in_body is not None and in_body not in strong:
        raise ApiError("invalid_precondition", "If-Match and expected_version disagree.")
    return strong


@v1.route("/games/<game_id>/actions")
class Actions(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 412, 413, 415, 422, 429)
    @v1.arguments(ActionSchema(), example=example("Action"))
    @v1.response(200, GameViewSchema, headers=response_headers("ETag", "Idempotent-Replayed"), example=example("GameView"))
    @v1.doc(operationId="act", security=TOKEN, parameters=[IF_MATCH, idempotency_parameter("takes no step twice")])
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Steps of your turn, all or nothing, in one atomic append."""
        player = current_player()
        expected = _expected_versions(body)
        idempotency = _idempotency(player)
        if idempotency is not None:  # records from before fingerprinted the precondition too
            single = next(iter(expected)) if expected is not None and len(expected) == 1 else None
            before = Idempotency.fingerprint_of("POST", request.path, [request.get_json(silent=True), single])
            idempotency = replace(idempotency, earlier=(before,))

        games = game_service()
        rid = request_id()  # to the jobs the steps cause: an AI's turn logs the request that made it due
        outcome = games.act(game_id, player, body["steps"], expected_version=expected, idempotency=idempotency, request_id=rid)
        if outcome.replayed is not None:  # a retry: the answer the first attempt got, the view of what it made
            then = games.as_of(game_id, outcome.replayed.version)
            headers = {"ETag": f'"{then.version}"', "Idempotent-Replayed": "true", **PRIVATE}
            return json_response(render_view(then, player.id), 200, headers)
        game = outcome.game
        assert game is not None  # not a replayed answer: the steps were appended
        rendered = RENDERED.render(game, player.id)  # rendered once, and kept for the polls of this version
        return json_response(rendered, 200, {"ETag": f'"{game.version}"', **PRIVATE})
