"""The event feeds: the paged (and long-polled) events and the Server-Sent Events stream, and their stream tickets."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import redis
from flask import Response, request, stream_with_context
from flask.views import MethodView

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
from service.http.examples import example
from service.http.problems import ApiError
from service.http.schemas import (
    EventPageSchema,
    EventsQuerySchema,
    StreamQuerySchema,
    StreamTicketSchema,
    event_number,
)

log = logging.getLogger("red7.api")


@v1.route("/games/<game_id>/events")
class Events(MethodView):
    @documented_errors(401, 404, 422, 429)
    @v1.arguments(EventsQuerySchema(), location="query")
    @v1.response(200, EventPageSchema, example=example("EventPage"))
    @v1.doc(operationId="listEvents", security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Your redacted event feed, paged; ``wait`` long-polls until something happens.

        The token is optional: without one, what a spectator sees; with a player's (or a stream ticket of
        theirs, ``?ticket=``), what that player sees.
        """
        player = feed_reader(game_id, query.get("ticket"))
        games = game_service()
        game, read = games.load_reading(game_id)  # the events the load read serve the page too, when they cover it
        games.ensure_progress(game)
        after = query["after"]
        # Wait only when caught up: over, nothing more will come; behind `after`, Redis lost events the
        # caller saw, and the page's version (below its cursor) tells it at once to reload.
        if game.version == after and query["wait"] > 0 and not game.over:
            with open_waits().held(*waiter(), request.environ) as wait:
                # Until an event comes, or the wait is over; or sooner, when the client left or a newer wait of its
                # token took the slot (the page then says what there is).
                games.wait(game_id, after, min(query["wait"], red7_runtime().settings.long_poll_max), wait)
            game, read = games.load_reading(game_id)
        events = games.feed(game, player.id if player else None, after, query["limit"], read)
        page = {
            "events": events,
            "next": events[-1]["n"] if events else min(after, game.version),
            "version": game.version,
            "finished": game.over,
        }
        return json_response(page, 200, PRIVATE)


# Last-Event-ID is documented on the path: @v1.doc(parameters=...) would replace the query's parameters.
@v1.route("/games/<game_id>/stream", parameters=[LAST_EVENT_ID])
class Stream(MethodView):
    @documented_errors(401, 404, 422, 429)
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

        The token is optional: without one, what a spectator sees; with a player's, what that player sees.
        A browser's ``EventSource`` cannot send Authorization: it follows its player's own feed with a stream
        ticket in the URL (``?ticket=``).
        """
        player = feed_reader(game_id, query.get("ticket"))
        viewer = player.id if player else None
        games = game_service()
        settings = red7_runtime().settings
        games.ensure_progress(games.load(game_id))  # 404 before the stream starts
        after = query.get("after", 0)
        if "Last-Event-ID" in request.headers:
            last_event = event_number(request.headers["Last-Event-ID"])
            if last_event is None:
                error = {"field": "Last-Event-ID", "message": "must be an event number", "location": "headers"}
                raise ApiError("invalid_request", "Last-Event-ID must be an event number.", errors=[error])
            after = last_event

        waits = open_waits()
        wait = waits.take(*waiter(), request.environ)

        def events() -> Iterator[str]:
            nonlocal after
            started = time.monotonic()
            try:
                yield "retry: 2000\n\n"
                while True:
                    if wait.replaced:  # a newer wait of this token took the slot: say so, so the client can tell
                        yield "event: replaced\ndata: {}\n\n"
                        return
                    game, read = games.load_reading(game_id)
                    if game.version < after:  # Redis lost events this client was sent: it reloads, then goes on
                        after = game.version
                        yield f"id: {after}\nevent: reset\ndata: {to_json({'version': after})}\n\n"
                    for event in games.feed(game, viewer, after, 500, read):
                        after = event["n"]
                        yield f"id: {event['n']}\nevent: {event['type']}\ndata: {to_json(event)}\n\n"
                    if game.over and after >= game.version:
                        yield "event: end\ndata: {}\n\n"
                        return
                    left = settings.stream_max_seconds - (time.monotonic() - started)
                    if left <= 0:
                        return
                    # The wait ends too when the client leaves (a write to a closed socket fails only on the
                    # second keep-alive: the first goes into the kernel's buffer), or when it is replaced.
                    if not games.wait(game_id, after, min(settings.stream_heartbeat, left), wait):
                        if wait.gone:
                            return
                        if wait.replaced:
                            continue  # said at the top of the loop
                        games.ensure_progress(game)
                        yield ": keep-alive\n\n"
            except redis.RedisError as error:  # the status line is long gone: end the stream, the client resumes
                log.warning("stream of game %s ended: the event store is unreachable (%s)", game_id, error)

        response = Response(stream_with_context(events()), mimetype="text/event-stream")
        response.call_on_close(lambda: waits.give_back(wait))  # however the stream ends, the client gone included
        response.headers.update(NO_STORE)
        response.headers["X-Accel-Buffering"] = "no"
        return response


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
