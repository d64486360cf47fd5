"""A player's own feed and inbox: the feed's query and page, a notice (the one shape a webhook, a push and the feed
share), what stands when the feed opens, the inbox's page and its mark-read."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.base import Strict
from service.http.schemas.challenges import ChallengeSchema
from service.http.schemas.feeds import LONG_POLL_MOST
from service.http.schemas.games import GameSummarySchema
from service.http.schemas.matchmaking import MatchTicketSchema

#: A notice's id: its entry in the player's feed, a time in ms and a sequence number (``1764300000000-0``).
NOTICE_ID = r"^\d{1,20}-\d{1,20}$"


def _notice_id(description: str, **kwargs: object) -> fields.String:
    return fields.String(validate=validate.Regexp(NOTICE_ID), metadata={"description": description}, **kwargs)  # type: ignore[arg-type]


class MyEventsQuerySchema(Strict):
    ticket = fields.String(
        validate=validate.Length(1, 100),
        metadata={
            "description": "a stream ticket (POST /v1/players/me/stream-tickets), for browsers, whose EventSource cannot "
            "send Authorization; a bad or expired ticket is a 401"
        },
    )
    after = _notice_id(
        "resume after this notice (its id, or Last-Event-ID on the stream): the notices after it, and no opening "
        "state on a page; left out, the page (or stream) opens with the state and goes on from the newest notice"
    )
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 500))
    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(0, LONG_POLL_MOST),
        metadata={"description": "long-poll seconds (a page with `after` only: until a notice comes)"},
    )


class FeedNoticeSchema(Schema):
    """A notice, as the feed, the inbox, a webhook and a push all carry it."""

    notification_id = fields.String(
        required=True, metadata={"description": "its id in your feed: Last-Event-ID, the inbox's cursor, a webhook's id"}
    )
    event = fields.String(required=True, metadata={"description": "its code: your_turn, challenge_received, match_found …"})
    game_id = fields.String(metadata={"description": "the game it is about (or that a challenge started)"})
    challenge_id = fields.String(metadata={"description": "the challenge it is about (a challenge's notice)"})
    tournament_id = fields.String(metadata={"description": "the tournament it is about (a tournament's notice)"})
    version = fields.Integer(required=True, metadata={"description": "the game's (or challenge's) version it was sent at"})
    lang = fields.String(required=True, metadata={"description": "the language of title and body"})
    title = fields.String(required=True)
    body = fields.String(required=True)
    title_code = fields.String(required=True, metadata={"description": "the title's text code (the catalogs')"})
    body_code = fields.String(required=True, metadata={"description": "the body's text code"})
    at = fields.String(required=True, metadata={"description": "when it was sent", "format": "date-time"})


class RematchOfferSchema(Schema):
    game_id = fields.String(required=True, metadata={"description": "the finished game whose players offer a rematch"})
    offered_by = fields.List(fields.Integer(), required=True, metadata={"description": "the seats that offered it"})


class FeedStateSchema(Schema):
    """What stands for you as the feed opens."""

    your_turn = fields.List(
        fields.Nested(GameSummarySchema),
        required=True,
        metadata={"description": "games where it is your move, nearest deadline first"},
    )
    challenges = fields.List(
        fields.Nested(ChallengeSchema), required=True, metadata={"description": "open challenges to and from you, newest first"}
    )
    tickets = fields.List(fields.Nested(MatchTicketSchema), required=True, metadata={"description": "your waiting match tickets"})
    rematch_offers = fields.List(
        fields.Nested(RematchOfferSchema), required=True, metadata={"description": "rematches offered to you, not yet answered"}
    )
    unread = fields.Integer(required=True, metadata={"description": "notices in your inbox you have not marked read"})


class MyEventsPageSchema(Schema):
    state = fields.Nested(FeedStateSchema, metadata={"description": "without `after`: what stands now"})
    notices = fields.List(fields.Nested(FeedNoticeSchema), required=True, metadata={"description": "oldest first"})
    next = fields.String(required=True, metadata={"description": "pass as after= for the next page"})
    unread = fields.Integer(required=True)


class NotificationsQuerySchema(Strict):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    cursor = _notice_id("the next_cursor of the page before")


class NotificationListSchema(Schema):
    notifications = fields.List(fields.Nested(FeedNoticeSchema), required=True, metadata={"description": "newest first"})
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?cursor= for the next page; null on the last page"}
    )
    read_up_to = fields.String(required=True, metadata={"description": "the newest notice marked read (0-0: none)"})
    unread = fields.Integer(required=True)


class NotificationsReadSchema(Strict):
    up_to = _notice_id("mark every notice up to this one read (a later id: up to the newest)", required=True)


class NotificationsReadResultSchema(Schema):
    read_up_to = fields.String(required=True, metadata={"description": "the newest notice marked read, on all your devices"})
    unread = fields.Integer(required=True)
