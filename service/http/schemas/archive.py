"""A player's public archive of finished games (``listPlayerGames``, ``exportPlayerGames``): the query's filters and
the page's entries."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice


class ArchiveFilterSchema(Strict):
    """The filters both operations take: each one left out matches any game."""

    since = fields.AwareDateTime(metadata={"description": "games finished at or after this time (ISO 8601, with an offset)"})
    until = fields.AwareDateTime(metadata={"description": "games finished at or before this time"})
    variant = Choice("Variant")
    action_rules = fields.Boolean()
    players = fields.Integer(validate=validate.Range(2, 4), metadata={"description": "how many seats the game had"})
    rated = fields.Boolean(metadata={"description": "games that counted for the ratings (or, false, those that did not)"})
    result = fields.String(
        validate=validate.OneOf(["won", "lost"]),
        metadata={"description": "the games this player won (their seat first, not resigned), or the others"},
    )
    opponent = fields.String(
        validate=validate.Length(1, 40),
        metadata={"description": "games where this player (an id or a handle) sat at the table too"},
    )
    analysed = fields.Boolean(metadata={"description": "games whose decision analysis is done (or, false, not)"})


class ArchiveQuerySchema(ArchiveFilterSchema):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class ArchiveExportQuerySchema(ArchiveFilterSchema):
    limit = fields.Integer(
        validate=validate.Range(1, 1_000_000), metadata={"description": "at most this many games (left out: every one)"}
    )


class ArchivedSeatSchema(Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "null: an AI seat from the start; a deleted account keeps its id"},
    )
    name = fields.String(required=True, allow_none=True, metadata={"description": '"deleted player" for a deleted account'})
    handle = fields.String(required=True, allow_none=True)
    kind = fields.String(required=True, metadata={"description": "human or ai"})
    level = fields.String(required=True, allow_none=True, metadata={"description": "the AI's level"})
    resigned = fields.Boolean(required=True, metadata={"description": "its player left; an AI played it on"})
    place = fields.Integer(required=True, metadata={"description": "1 the winner"})
    rating_before = fields.Integer(
        required=True, allow_none=True, metadata={"description": "a rated game's, once applied to its ladder (else null)"}
    )
    rating_after = fields.Integer(required=True, allow_none=True)


class ArchivedGameSchema(Schema):
    game_id = fields.String(required=True)
    finished_at = fields.String(required=True, metadata={"format": "date-time"})
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    players = fields.Integer(required=True)
    rated = fields.Boolean(required=True)
    winner = fields.Integer(required=True, metadata={"description": "the winning seat"})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "the archive's player's seat"})
    place = fields.Integer(required=True, allow_none=True, metadata={"description": "the archive's player's place"})
    result = fields.String(required=True, metadata={"description": "won or lost, for the archive's player"})
    seats = fields.List(fields.Nested(ArchivedSeatSchema), required=True)
    replay_url = fields.String(required=True, metadata={"description": "getReplay"})
    view_url = fields.String(required=True, metadata={"description": "viewReplay"})


class PlayerGamesSchema(Schema):
    player_id = fields.String(required=True)
    games = fields.List(fields.Nested(ArchivedGameSchema), required=True, metadata={"description": "newest first"})
    next_cursor = fields.String(required=True, allow_none=True)
