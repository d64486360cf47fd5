"""A game's feeds: a page of events (long-polled or not), the stream's query, and the ticket a browser's EventSource
reads a player's feed with."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.base import MAX_EVENT, Strict
from service.http.schemas.vocabulary import Ref


def _ticket_field() -> fields.String:
    return fields.String(
        validate=validate.Length(1, 100),
        metadata={
            "description": "a stream ticket (POST /v1/games/{game_id}/stream-tickets), for browsers, whose EventSource "
            "cannot send Authorization: reads as its player; a bad or expired ticket is a 401, never the spectator's feed"
        },
    )


#: The most a long-poll waits, in seconds (a server's ``RED7_LONG_POLL_MAX`` may cut it shorter).
LONG_POLL_MOST = 60


class EventsQuerySchema(Strict):
    ticket = _ticket_field()
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_EVENT))
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))
    wait = fields.Float(
        load_default=0.0, validate=validate.Range(0, LONG_POLL_MOST), metadata={"description": "long-poll seconds"}
    )
    talk_after = fields.String(
        validate=validate.Regexp(r"^\d{1,20}(-\d{1,20})?$"),
        metadata={
            "description": "follow the table talk too: the talk_next of the page before (0: from the first message); "
            "the page then holds `talk`, and a message ends a long-poll as an event does"
        },
    )


class StreamQuerySchema(Strict):
    ticket = _ticket_field()
    after = fields.Integer(
        validate=validate.Range(0, MAX_EVENT), metadata={"description": "resume after this event (or Last-Event-ID)"}
    )


class EventPageSchema(Schema):
    events = fields.List(Ref("Event"), required=True)
    next = fields.Integer(required=True, metadata={"description": "pass as after= for the next page"})
    version = fields.Integer(required=True)
    finished = fields.Boolean(
        required=True, metadata={"description": "the game is over (finished or called off): nothing more will come"}
    )
    talk = fields.List(
        Ref("TalkMessage"),
        metadata={"description": "with talk_after: the table talk you receive after it, oldest first (no game event)"},
    )
    talk_next = fields.String(metadata={"description": "with talk_after: pass as talk_after= for the next page"})


class StreamTicketSchema(Schema):
    ticket = fields.String(
        required=True,
        metadata={"description": "put it in the feed's URL: /v1/games/{game_id}/stream?ticket=... (or /events?ticket=...)"},
    )
    expires_at = fields.String(
        required=True,
        metadata={"description": "connect (and reconnect) before this time; then ask for a new ticket", "format": "date-time"},
    )
