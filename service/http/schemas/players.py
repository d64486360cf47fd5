"""A player's shapes: signing up, the profile and its settings (vacations, webhook, language), tokens, what anyone
sees of a player, and the search by handle.  A player's ratings are the ladders' (:mod:`.ladders`)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.application.handles import HANDLE_PATTERN, HANDLE_RULE, PREFIX_PATTERN
from service.application.players import SEARCH_LIMIT
from service.domain.scopes import SCOPES
from service.http.schemas.base import Strict, Text, handle_member
from service.http.schemas.ladders import PlayerLaddersSchema
from service.http.schemas.vocabulary import Choice

#: A handle as the document states it; the application checks it (``handle_invalid``, ``handle_reserved``) so that
#: every caller meets the same rule, and the document's pattern and length say it to generators and people.
HANDLE_DOC = {
    "pattern": HANDLE_PATTERN,
    "minLength": 3,
    "maxLength": 20,
    "example": "ana_b",
    "description": f"unique whatever its case (stored as given): {HANDLE_RULE}; a few words are reserved "
    "(handle_reserved, e.g. me, admin, system, ai, red7, support, null), in every spelling that reads as them "
    "(ai_random, admin_, support1, adm1n), and handle_taken says another player has it",
}


class PlayerCreateSchema(Strict):
    name = Text(required=True, metadata={"example": "Ana"})
    handle = fields.String(metadata={**HANDLE_DOC, "description": f"what others find you by: {HANDLE_DOC['description']}"})
    accept_terms = fields.String(
        metadata={"description": "the version of the terms of use you accept (getTerms); needed when the server has terms"}
    )


class VacationRequestSchema(Strict):
    start = fields.AwareDateTime(metadata={"description": "when it begins (ISO 8601 with an offset; left out: now)"})
    end = fields.AwareDateTime(required=True, metadata={"description": "when it ends"})


class PlayerUpdateSchema(Strict):
    name = Text()
    challenge_from = Choice("ChallengeFrom", metadata={"description": "who may challenge you (docs/safety.md)"})
    talk_from = Choice("TalkFrom", metadata={"description": "who may talk to you at a table (docs/safety.md)"})
    archive_hidden = fields.Boolean(
        truthy={True},
        falsy={False},
        metadata={
            "description": "hide your archive of finished games from everyone else (listPlayerGames and "
            "exportPlayerGames then show them no game of yours; you still see them all)"
        },
    )
    language = Choice(
        "Language",
        allow_none=True,
        metadata={
            "description": "the language of the service's texts for you (problems, views, replays, webhooks, pushes): "
            "it comes after ?lang= and before Accept-Language; null removes it"
        },
    )
    handle = fields.String(
        allow_none=True,
        metadata={
            **{k: v for k, v in HANDLE_DOC.items() if k != "minLength"},
            "pattern": "^(?:" + HANDLE_PATTERN.strip("^$") + ")?$",  # empty too: it removes the handle
            "description": f"a new handle: {HANDLE_DOC['description']}; empty or null removes yours. The one you give up is "
            "kept for you alone to take back for a while (RED7_HANDLE_HOLD_SECONDS, a week)",
        },
    )
    live_listed = fields.Boolean(
        truthy={True},
        falsy={False},
        metadata={
            "description": "whether your games in play may be listed as live games to watch (listLiveGames); false keeps "
            "them off the list (a spectator who has a game's link still watches it)"
        },
    )
    webhook_url = fields.String(
        allow_none=True,
        validate=validate.Length(max=500),
        metadata={
            "description": "http(s) URL to notify (your turn, round over, game finished); empty or null removes it. Its "
            "host must be public: an address that is not (loopback, private, link-local, in any spelling) or a name "
            "that resolves to one or to nothing is 422 webhook_url_refused, with a reason (not_a_url, not_public, "
            "unresolvable)"
        },
    )
    time_zone = fields.String(
        validate=validate.Length(1, 64),
        metadata={
            "description": "your IANA time zone (e.g. Europe/Paris): weekends and the vacation year are yours in it",
            "example": "Europe/Paris",
        },
    )
    weekends_off = fields.Boolean(
        truthy={True},
        falsy={False},
        metadata={"description": "stop your correspondence clocks on Saturdays and Sundays (from your next turn on)"},
    )
    vacation = fields.Nested(
        VacationRequestSchema,
        allow_none=True,
        metadata={
            "description": "declare a vacation ahead (your correspondence clocks stop; it counts against your "
            "hours a year, RED7_VACATION_HOURS_PER_YEAR, in hours begun); null: come back now "
            "(ends the one running, cancels those ahead)"
        },
    )


class TokenCreateSchema(Strict):
    label = Text(load_default="token", metadata={"example": "phone", "description": "to tell your tokens apart"})
    scopes = fields.List(
        Choice("Scope"),
        validate=validate.Length(max=len(SCOPES)),
        metadata={
            "description": "what the new token may do (default: what the token asking may); never more than the token "
            "asking holds (403 scope_exceeds_token)",
            "example": ["play", "lobby"],
        },
    )


class PlayerSearchQuerySchema(Strict):
    handle = fields.String(
        validate=validate.Regexp(PREFIX_PATTERN, error="a prefix of a handle: 1 to 20 ASCII letters, digits, _ or -"),
        metadata={
            "description": "the start of the handles to find, whatever its case; leave it out for every player with a handle",
            "example": "an",
        },
    )
    limit = fields.Integer(load_default=SEARCH_LIMIT, validate=validate.Range(1, SEARCH_LIMIT))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class PlayerCreatedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    handle = handle_member()
    token = fields.String(required=True, metadata={"description": "bearer token; shown only now"})
    created_at = fields.String(required=True)


class TokenSchema(Schema):
    id = fields.String(required=True, metadata={"description": "to revoke it: DELETE /v1/players/me/tokens/{id}"})
    label = fields.String(required=True)
    created_at = fields.String(required=True)
    current = fields.Boolean(required=True, metadata={"description": "whether this request came with this token"})
    scopes = fields.List(
        Choice("Scope"),
        required=True,
        metadata={"description": "what it may do (a token issued before scopes existed may do everything)"},
    )
    app = fields.Nested(
        "TokenAppSchema",
        allow_none=True,
        metadata={
            "description": "the app holding this token through Sign in with Red7 (docs/oauth.md); revoking the token "
            "revokes the app's grant (null: an app since unregistered); absent for your own tokens"
        },
    )


class TokenAppSchema(Schema):
    client_id = fields.String(required=True)
    name = fields.String(required=True)


class TokenIssuedSchema(TokenSchema):
    token = fields.String(required=True, metadata={"description": "bearer token; shown only now"})


class TokenListSchema(Schema):
    tokens = fields.List(fields.Nested(TokenSchema), required=True)


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    challenge_from = Choice("ChallengeFrom", required=True, metadata={"description": "who may challenge you"})
    talk_from = Choice("TalkFrom", required=True, metadata={"description": "who may talk to you at a table"})
    moderator = fields.Boolean(
        metadata={"description": "getMe only: you hold the moderator role (listReports and the rest answer you)"}
    )
    archive_hidden = fields.Boolean(metadata={"description": "whether you hide your archive of finished games from others"})
    handle = handle_member()
    created_at = fields.String(required=True)
    webhook_url = fields.String(allow_none=True)
    language = Choice(
        "Language",
        allow_none=True,
        metadata={"description": "the language you chose for the service's texts (null: none; Accept-Language decides)"},
    )
    live_listed = fields.Boolean(
        required=True, metadata={"description": "whether your games in play may be listed as live games to watch"}
    )
    webhook_secret = fields.String(metadata={"description": "HMAC key for webhook signatures; shown only when the URL is set"})
    unread_notifications = fields.Integer(
        metadata={"description": "notices in your inbox not yet marked read (listNotifications, markNotificationsRead)"}
    )
    time_zone = fields.String(
        required=True,
        metadata={
            "description": "your IANA time zone (weekends and the vacation year are yours in it)",
            "example": "Europe/Paris",
        },
    )
    weekends_off = fields.Boolean(
        required=True,
        metadata={"description": "your correspondence clocks stop on Saturdays and Sundays (from your next turn on)"},
    )
    vacations = fields.List(
        fields.Nested(lambda: VacationSchema()),
        required=True,
        metadata={"description": "your vacations running or ahead, in order"},
    )
    vacation_hours_left = fields.Integer(required=True, metadata={"description": "hours of vacation left this year"})
    vacation_hours_per_year = fields.Integer(required=True)


class VacationSchema(Schema):
    start = fields.String(required=True)
    end = fields.String(required=True)
    automatic = fields.Boolean(required=True, metadata={"description": "taken when a deadline passed (it ends when you move)"})


class GameRecordSchema(Schema):
    played = fields.Integer(required=True, metadata={"description": "finished games the player sat in (resigned too)"})
    won = fields.Integer(required=True, metadata={"description": "of those, the games their seat won (not once they resigned)"})


class PublicPlayerSchema(Schema):
    """What anyone sees of a player (never a token or a webhook)."""

    id = fields.String(required=True)
    handle = handle_member()
    name = fields.String(required=True)
    since = fields.String(required=True, metadata={"description": "when the player signed up", "format": "date-time"})
    games = fields.Nested(
        GameRecordSchema,
        required=True,
        metadata={"description": "finished games only: a game called off or aborted counts for nobody"},
    )
    ratings = fields.Nested(
        PlayerLaddersSchema,
        metadata={"description": "the player's ratings, present once there are any (one per kind of rated game)"},
    )


class PlayerFoundSchema(Schema):
    id = fields.String(required=True)
    handle = fields.String(required=True)
    name = fields.String(required=True)


class PlayerListSchema(Schema):
    players = fields.List(fields.Nested(PlayerFoundSchema), required=True, metadata={"description": "in handle order"})
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?cursor= for the next page; null on the last page"}
    )
