"""A player's own feed (``followMyEvents``: a page long-polled, NDJSON or Server-Sent Events) and inbox of notices.

One path, three forms, chosen by Accept, with what the games' feeds have: stream tickets for a browser's
EventSource, the caps on open waits (``service.http.waits``), waits in slices inside Redis's socket timeout.  The feed
opens with what stands now, then carries every notice as it is written (``service.application.player_feeds``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import redis
from flask import Response, g, request, stream_with_context
from flask.views import MethodView

from service.application.player_feeds import FeedState, PlayerFeeds, notice_json, valid_id
from service.application.players import Player
from service.http.auth import admit, bearer_token, current_player, waiter
from service.http.common import (
    NDJSON,
    NO_STORE,
    PRIVATE,
    TOKEN,
    best_offer,
    documented_errors,
    game_service,
    json_response,
    open_waits,
    player_service,
    red7_runtime,
    response_headers,
    to_json,
    v1,
)
from service.http.examples import example
from service.http.locale import language
from service.http.problems import ApiError
from service.http.routes.challenges import challenge_json
from service.http.routes.matchmaking import ticket_json
from service.http.schemas.feeds import StreamTicketSchema
from service.http.schemas.player_feeds import (
    MyEventsPageSchema,
    MyEventsQuerySchema,
    NotificationListSchema,
    NotificationsQuerySchema,
    NotificationsReadResultSchema,
    NotificationsReadSchema,
)
from service.http.views import seated_ids, summary_json

log = logging.getLogger("red7.api")

#: The scope a stream ticket for the player's own feed is issued for (a game's id is never this).
MY_FEED = "players/me"
SSE = "text/event-stream"

MY_LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "schema": {"type": "string"},
    "description": "The id of the last notice received (the stream's `id:`): the stream resumes after it; overrides `after`",
}
FEED_FORMS = {
    200: {
        "content": {
            SSE: {
                "schema": {
                    "type": "string",
                    "description": "Server-Sent Events: `retry: 2000`, then `event: state` (data: a FeedState, no id), "
                    "then each notice as `id: <notification_id>`, `event: notice`, `data: <a Notice>`, each batch "
                    'followed by `event: unread` (data `{"unread": n}`); `: keep-alive` every 15 s; '
                    "`event: replaced` when a newer wait of the token took its place. Resume with Last-Event-ID.",
                },
                "example": 'retry: 2000\n\nevent: state\ndata: {"your_turn":[],"challenges":[],"tickets":[],'
                '"rematch_offers":[],"unread":0}\n\nid: 1764300000000-0\nevent: notice\ndata: {"event":"your_turn",'
                '"game_id":"g_1","version":7,"lang":"en","title":"Your turn","body":"It is your turn to play.",'
                '"title_code":"push.your_turn.title","body_code":"push.your_turn.body",'
                '"notification_id":"1764300000000-0","at":"2026-11-28T03:20:00.000Z"}\n\n',
            },
            NDJSON: {
                "schema": {
                    "type": "string",
                    "description": 'one JSON object a line: {"type":"state",…a FeedState}, then {"type":"notice",…a Notice} '
                    'and {"type":"unread","unread":n}; an empty line every 15 s; resume with after=',
                },
                "example": '{"type":"state","your_turn":[],"challenges":[],"tickets":[],"rematch_offers":[],"unread":0}\n',
            },
        }
    }
}


def _feeds() -> PlayerFeeds:
    found = red7_runtime().feeds
    assert found is not None, "build_runtime makes one"
    return found


def _reader(ticket: str | None) -> Player:
    """The feed's player: a stream ticket's for the player's own feed, else the bearer token's."""
    if ticket is None:
        return current_player()
    if request.headers.get("Authorization"):
        raise ApiError("invalid_request", "Send a stream ticket or a bearer token, not both.")
    holder = red7_runtime().tickets.redeem(ticket, MY_FEED)
    if holder is None:
        raise ApiError("invalid_ticket", "Ask for a new one: POST /v1/players/me/stream-tickets with your token.")
    admit(holder.player.id, write=False)
    g.player = holder.player
    g.token_digest = holder.token_digest  # the token it stands for, for the caps on open waits
    return holder.player


def state_json(state: FeedState, player: Player) -> dict[str, Any]:
    """What stands for the player, in the shapes their own reads give (a game's summary, a challenge, a ticket)."""
    games = game_service()
    tags = player_service().tags(set().union(*(seated_ids(game) for game in state.your_turn)))
    now = red7_runtime().challenges.now()
    return {
        "your_turn": [summary_json(game, player.id, tags, games.clock_of(game)) for game in state.your_turn],
        "challenges": [challenge_json(challenge, player.id, now) for challenge in state.challenges],
        "tickets": [ticket_json(ticket) for ticket in state.tickets],
        "rematch_offers": [{"game_id": game.id, "offered_by": list(game.rematch_offers)} for game in state.rematch_offers],
        "unread": state.unread,
    }


def _after(query: dict[str, Any]) -> str | None:
    """Where the feed resumes: Last-Event-ID (a stream's reconnection), else ``after``."""
    if "Last-Event-ID" not in request.headers:
        return query.get("after")
    given = request.headers["Last-Event-ID"].strip()
    if not valid_id(given):
        error = {"field": "Last-Event-ID", "message": "must be a notice's id", "location": "headers"}
        raise ApiError("invalid_request", "Last-Event-ID must be a notice's id (1764300000000-0).", errors=[error])
    return given


@v1.route("/players/me/events", parameters=[MY_LAST_EVENT_ID])
class MyEvents(MethodView):
    @documented_errors(401, 403, 406, 422, 429)
    @v1.arguments(MyEventsQuerySchema(), location="query")
    @v1.response(200, MyEventsPageSchema, example=example("MyEventsPage"))
    @v1.doc(operationId="followMyEvents", security=TOKEN, responses=FEED_FORMS)
    def get(self, query: dict[str, Any]) -> Response:
        """Your own feed: what stands for you now, then every notice a webhook or a push carries, as it comes.

        Three forms, by Accept: a page (JSON; `wait` long-polls for the notices after `after`), NDJSON and
        Server-Sent Events (both open until `stream_max_seconds`, then reconnect). Without `after` (or
        Last-Event-ID) it opens with the state: your games where it is your move, nearest deadline first; open
        challenges to and from you; your waiting match tickets; rematches offered to you; your unread count. Then
        each notice, in your language, with its `notification_id` (the same id its webhook and push carry: keep one
        of each). A feed keeps your last 500 notices, 30 days at most. A browser's EventSource follows it with a
        stream ticket (`?ticket=`, POST /v1/players/me/stream-tickets).
        """
        player = _reader(query.get("ticket"))
        feeds, lang = _feeds(), language()
        after = _after(query)
        form = best_offer(["application/json", NDJSON, SSE])
        if form == "application/json":
            return _page(player, feeds, lang, query, after)
        return _stream(player, feeds, lang, after, sse=form == SSE)


def _page(player: Player, feeds: PlayerFeeds, lang: str, query: dict[str, Any], after: str | None) -> Response:
    body: dict[str, Any] = {}
    if after is None:
        state = feeds.state(player)
        body["state"] = state_json(state, player)
        after = state.last_id
    notices = feeds.after(player, after, query["limit"])
    if not notices and "state" not in body and query["wait"] > 0:
        with open_waits().held(*waiter(), request.environ) as wait:
            feeds.wait(player, after, min(query["wait"], red7_runtime().settings.long_poll_max), wait)
        notices = feeds.after(player, after, query["limit"])
    body.update(
        notices=[notice_json(n, lang) for n in notices],
        next=notices[-1].id if notices else after,
        unread=feeds.unread(player.id),
    )
    return json_response(body, 200, PRIVATE)


def _stream(player: Player, feeds: PlayerFeeds, lang: str, after: str | None, *, sse: bool) -> Response:
    settings = red7_runtime().settings
    state = feeds.state(player) if after is None else None
    opening = state_json(state, player) if state is not None else None
    cursor: str = state.last_id if state is not None else after or "0-0"
    waits = open_waits()
    wait = waits.take(*waiter(), request.environ)

    def frame(kind: str, data: dict[str, Any], ident: str | None = None) -> str:
        if sse:
            return (f"id: {ident}\n" if ident else "") + f"event: {kind}\ndata: {to_json(data)}\n\n"
        return to_json({"type": kind, **data}) + "\n"

    def frames() -> Iterator[str]:
        nonlocal cursor
        started = time.monotonic()
        try:
            if sse:
                yield "retry: 2000\n\n"
            if opening is not None:
                yield frame("state", opening)
            came = True  # read the feed after the cursor: at first, and whenever a wait saw a notice come
            while True:
                if wait.replaced:  # a newer wait of this token took the slot: say so, so the client can tell
                    yield frame("replaced", {})
                    return
                notices = feeds.after(player, cursor, 500) if came else []  # an idle heartbeat asks Redis nothing more
                for notice in notices:
                    cursor = notice.id
                    yield frame("notice", notice_json(notice, lang), notice.id)
                if notices:
                    yield frame("unread", {"unread": feeds.unread(player.id)})
                left = settings.stream_max_seconds - (time.monotonic() - started)
                if left <= 0:
                    return
                came = feeds.wait(player, cursor, min(settings.stream_heartbeat, left), wait)
                if not came:
                    if wait.gone:
                        return
                    if not wait.replaced:
                        yield ": keep-alive\n\n" if sse else "\n"
        except redis.RedisError as error:  # the status line is long gone: end the stream, the client resumes
            log.warning("feed of player %s ended: Redis is unreachable (%s)", player.id, error)

    response = Response(stream_with_context(frames()), mimetype=SSE if sse else NDJSON)
    response.call_on_close(lambda: waits.give_back(wait))  # however the stream ends, the client gone included
    response.headers.update(NO_STORE)
    response.headers["X-Accel-Buffering"] = "no"
    return response


@v1.route("/players/me/stream-tickets")
class MyStreamTickets(MethodView):
    @documented_errors(400, 401, 429)
    @v1.response(201, StreamTicketSchema, headers=response_headers("Location"), example=example("StreamTicket"))
    @v1.doc(operationId="createMyStreamTicket", security=TOKEN)
    def post(self) -> Response:
        """A ticket to follow your own feed from a browser: ``/v1/players/me/events?ticket=`` (EventSource cannot send
        Authorization, and a token must never sit in a URL): it reads your feed only, and is good for connecting
        (reconnections included) for a minute."""
        player = current_player()
        token = bearer_token()
        assert token is not None  # current_player() found it
        issued = red7_runtime().tickets.issue_for(player, MY_FEED, token)
        body = {"ticket": issued.ticket, "expires_at": issued.expires_at}
        return json_response(body, 201, {"Location": f"/v1/players/me/events?ticket={issued.ticket}", **NO_STORE})


@v1.route("/players/me/notifications")
class Notifications(MethodView):
    @documented_errors(401, 422, 429)
    @v1.arguments(NotificationsQuerySchema(), location="query")
    @v1.response(200, NotificationListSchema, example=example("NotificationList"))
    @v1.doc(operationId="listNotifications", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """Your inbox: the notices of your feed, newest first, a page at a time, with what you have read (on any of
        your devices) and how many you have not."""
        player = current_player()
        feeds = _feeds()
        found, cursor = feeds.inbox(player, query.get("cursor"), query["limit"])
        lang = language()
        body = {
            "notifications": [notice_json(n, lang) for n in found],
            "next_cursor": cursor,
            "read_up_to": feeds.read_up_to(player.id),
            "unread": feeds.unread(player.id),
        }
        return json_response(body, 200, PRIVATE)


@v1.route("/players/me/notifications/read")
class NotificationsRead(MethodView):
    @documented_errors(400, 401, 413, 415, 422, 429)
    @v1.arguments(NotificationsReadSchema(), example=example("NotificationsRead"))
    @v1.response(200, NotificationsReadResultSchema, example=example("NotificationsReadResult"))
    @v1.doc(operationId="markNotificationsRead", security=TOKEN)
    def post(self, body: dict[str, Any]) -> Response:
        """Mark every notice up to `up_to` read, on all your devices (never back: an older id changes nothing); the
        unread count after it."""
        read, unread = _feeds().mark_read(current_player(), body["up_to"])
        return json_response({"read_up_to": read, "unread": unread}, 200, NO_STORE)
