"""The event feeds: the paged (and long-polled) events and the Server-Sent Events stream, and their stream tickets."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from typing import Any

import redis
from flask import Response, request, stream_with_context
from flask.views import MethodView

from service.application.live import POLL_GRACE_S, STREAM_GRACE_S, LiveGames, poll_lease
from service.application.talk import TalkService
from service.domain.game import Game
from service.http.auth import bearer_token, current_player, feed_reader, waiter
from service.http.common import (
    LAST_EVENT_ID,
    NO_STORE,
    PRIVATE,
    SSE_EXAMPLE,
    SSE_STREAM,
    TOKEN,
    TOKEN_OR_NONE,
    documented_errors,
    game_service,
    json_response,
    open_waits,
    red7_runtime,
    response_headers,
    to_json,
    v1,
)
from service.http.duplicate import tournament_gate
from service.http.examples import example
from service.http.problems import ApiError
from service.http.schemas import (
    EventPageSchema,
    EventsQuerySchema,
    StreamQuerySchema,
    StreamTicketSchema,
    event_number,
)
from service.http.talk_views import message_json
from service.http.waits import OpenWaits, Wait

log = logging.getLogger("red7.api")


def _talk() -> TalkService:
    found = red7_runtime().safety
    assert found is not None, "build_runtime makes one"
    return found.talk


def _watching(game: Game, viewer: str | None, lease: str, seconds: float) -> None:
    """A spectator's feed is open ``seconds`` more: their lease on the game's watchers (listLiveGames counts them)."""
    live: LiveGames | None = red7_runtime().live
    if live is not None:
        live.watch(game, viewer, lease, seconds)


@v1.route("/games/<game_id>/events")
class Events(MethodView):
    @documented_errors(401, 403, 404, 422, 429)
    @v1.arguments(EventsQuerySchema(), location="query")
    @v1.response(200, EventPageSchema, example=example("EventPage"))
    @v1.doc(operationId="listEvents", security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Your redacted event feed, paged; ``wait`` long-polls until something happens.

        The token is optional: without one, what a spectator sees; with a player's (or a stream ticket of
        theirs, ``?ticket=``), what that player sees. With ``talk_after`` a seated player follows the table talk too:
        the page holds the messages they receive after it (``talk``, ``talk_next``), and one ends a long-poll as an
        event does; talk is no event and moves no version.
        """
        player = feed_reader(game_id, query.get("ticket"))
        tournament_gate(game_id, player.id if player else None)
        games = game_service()
        game, read = games.load_reading(game_id)  # the events the load read serve the page too, when they cover it
        games.ensure_progress(game)
        after = query["after"]
        viewer = player.id if player else None
        # A spectator's polls, one after another, renew one lease: it outlives this wait by the time to ask again.
        _watching(game, viewer, poll_lease(*waiter()), query["wait"] + POLL_GRACE_S)
        talk = _talk() if "talk_after" in query else None
        talk_after = "0-0" if query.get("talk_after", "0") == "0" else query["talk_after"]
        said, talk_next = talk.news(game, viewer, talk_after) if talk else ([], talk_after)
        # Wait only when caught up: over, nothing more will come; behind `after`, Redis lost events the
        # caller saw, and the page's version (below its cursor) tells it at once to reload.
        if game.version == after and query["wait"] > 0 and not game.over and not said:
            also = talk.follow(game_id, talk_next) if talk else None
            with open_waits().held(*waiter(), request.environ) as wait:
                # Until an event (or a message, following the talk) comes, or the wait is over; or sooner, when the
                # client left or a newer wait of its token took the slot (the page then says what there is).
                games.wait(game_id, after, min(query["wait"], red7_runtime().settings.long_poll_max), wait, also)
            game, read = games.load_reading(game_id)
            said, talk_next = talk.news(game, viewer, talk_after) if talk else ([], talk_after)
        events = games.feed(game, viewer, after, query["limit"], read)
        page: dict[str, Any] = {
            "events": events,
            "next": events[-1]["n"] if events else min(after, game.version),
            "version": game.version,
            "finished": game.over,
        }
        if talk is not None:
            page.update(talk=[message_json(m) for m in said], talk_next=talk_next)
        return json_response(page, 200, PRIVATE)


# Last-Event-ID is documented on the path: @v1.doc(parameters=...) would replace the query's parameters.
@v1.route("/games/<game_id>/stream", parameters=[LAST_EVENT_ID])
class Stream(MethodView):
    @documented_errors(401, 403, 404, 422, 429)
    @v1.arguments(StreamQuerySchema(), location="query")
    @v1.response(
        200,
        SSE_STREAM,
        content_type="text/event-stream",
        example=SSE_EXAMPLE,
        description="Server-Sent Events: the caller's redacted events (id: the event number); resume with Last-Event-ID",
    )
    @v1.doc(operationId="streamEvents", security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """The feed as Server-Sent Events; it ends when the game is over (or after a while: reconnect).

        The token is optional: without one, what a spectator sees; with a player's, what that player sees, and the
        table talk said from the moment the stream opens that they receive (`event: talk`, a message as
        `listTableTalk` gives it, with no `id`: it is no game event and changes no version). A browser's
        ``EventSource`` cannot send Authorization: it follows its player's own feed with a stream ticket in the URL
        (``?ticket=``).
        """
        player = feed_reader(game_id, query.get("ticket"))
        viewer = player.id if player else None
        tournament_gate(game_id, viewer)
        games = game_service()
        settings = red7_runtime().settings
        first = games.load(game_id)  # 404 before the stream starts
        games.ensure_progress(first)
        after = query.get("after", 0)
        if "Last-Event-ID" in request.headers:
            last_event = event_number(request.headers["Last-Event-ID"])
            if last_event is None:
                error = {"field": "Last-Event-ID", "message": "must be an event number", "location": "headers"}
                raise ApiError("invalid_request", "Last-Event-ID must be an event number.", errors=[error])
            after = last_event

        talk = _talk()
        heard = talk.start(game_id)  # the table talk said from now on comes down this stream too (event: talk)

        waits = open_waits()
        wait = waits.take(*waiter(), request.environ)
        # A spectator's stream holds a lease of its own, renewed at every beat, given back when the stream closes; a
        # stream whose process dies stops counting when its lease runs out.
        lease, lease_for = "stream:" + secrets.token_hex(12), settings.stream_heartbeat + STREAM_GRACE_S
        _watching(first, viewer, lease, lease_for)

        def events() -> Iterator[str]:
            nonlocal after, heard
            started = time.monotonic()
            try:
                yield "retry: 2000\n\n"
                while True:
                    if wait.replaced:  # a newer wait of this token took the slot: say so, so the client can tell
                        yield "event: replaced\ndata: {}\n\n"
                        return
                    game, read = games.load_reading(game_id)
                    _watching(game, viewer, lease, lease_for)
                    if game.version < after:  # Redis lost events this client was sent: it reloads, then goes on
                        after = game.version
                        yield f"id: {after}\nevent: reset\ndata: {to_json({'version': after})}\n\n"
                    for event in games.feed(game, viewer, after, 500, read):
                        after = event["n"]
                        yield f"id: {event['n']}\nevent: {event['type']}\ndata: {to_json(event)}\n\n"
                    said, heard = talk.news(game, viewer, heard)
                    for message in said:  # no id: Last-Event-ID stays the game's event number
                        yield f"event: talk\ndata: {to_json(message_json(message))}\n\n"
                    if game.over and after >= game.version:
                        yield "event: end\ndata: {}\n\n"
                        return
                    left = settings.stream_max_seconds - (time.monotonic() - started)
                    if left <= 0:
                        return
                    # The wait ends too when the client leaves (a write to a closed socket fails only on the
                    # second keep-alive: the first goes into the kernel's buffer), or when it is replaced.
                    if not games.wait(game_id, after, min(settings.stream_heartbeat, left), wait, talk.follow(game_id, heard)):
                        if wait.gone:
                            return
                        if wait.replaced:
                            continue  # said at the top of the loop
                        games.ensure_progress(game)
                        yield ": keep-alive\n\n"
            except redis.RedisError as error:  # the status line is long gone: end the stream, the client resumes
                log.warning("stream of game %s ended: the event store is unreachable (%s)", game_id, error)

        response = Response(stream_with_context(events()), mimetype="text/event-stream")
        live = red7_runtime().live
        # However the stream ends, the client gone included:
        response.call_on_close(lambda: _closed(waits, wait, live, game_id, lease))
        response.headers.update(NO_STORE)
        response.headers["X-Accel-Buffering"] = "no"
        return response


def _closed(waits: OpenWaits, wait: Wait, live: LiveGames | None, game_id: str, lease: str) -> None:
    """A stream ended: its slot among the open waits and its watcher's lease are given back."""
    waits.give_back(wait)
    if live is not None:
        try:
            live.unwatch(game_id, lease)
        except redis.RedisError as error:  # the lease runs out by itself
            log.warning("a watcher's lease on game %s not given back (%s): it runs out", game_id, error)


@v1.route("/games/<game_id>/stream-tickets")
class StreamTickets(MethodView):
    @documented_errors(400, 401, 404, 429)
    @v1.response(201, StreamTicketSchema, headers=response_headers("Location"), example=example("StreamTicket"))
    @v1.doc(operationId="createStreamTicket", security=TOKEN)
    def post(self, game_id: str) -> Response:
        """A ticket to follow your own feed of this game from a browser: ``/stream?ticket=`` (or ``/events?ticket=``).

        ``EventSource`` cannot send Authorization, and a token must never sit in a URL: a ticket reads this one
        game's feeds as you, writes nothing, and is good for connecting (reconnections included) for a minute.

        Idempotency-Key is refused here (400 `idempotency_key_not_supported`): asking again is as safe as asking
        once, and an answer kept for a day would hold a ticket long dead.
        """
        player = current_player()
        token = bearer_token()
        assert token is not None  # current_player() found it
        issued = red7_runtime().tickets.issue(player, game_id, token)  # 404 for a game that does not exist
        body = {"ticket": issued.ticket, "expires_at": issued.expires_at}
        # Location: the stream it opens, ready for `new EventSource(base + location)`.
        return json_response(body, 201, {"Location": f"/v1/games/{game_id}/stream?ticket={issued.ticket}", **NO_STORE})
