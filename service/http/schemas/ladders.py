"""Ratings: a ladder's leaderboard, a player's standing on each ladder with its history, and a rated game's seats'
ratings (OpenSkill, :mod:`service.domain.ratings`)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.ratings import LADDERS
from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice


class LeaderboardQuerySchema(Strict):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100), metadata={"description": "players on the page"})
    offset = fields.Integer(
        load_default=0, validate=validate.Range(0, 10_000_000), metadata={"description": "start after this many ranks"}
    )
    around = fields.String(
        validate=validate.Length(1, 100),
        metadata={"description": "a player id (or ai:<level>): the page centred on that player's rank (offset is ignored)"},
    )


class PlayerCountRecordSchema(Schema):
    played = fields.Integer(required=True)
    won = fields.Integer(required=True)
    average_place = fields.Float(required=True, allow_none=True, metadata={"description": "1 is first; null before a game"})


class RatingRecordSchema(Schema):
    """A player's rating and record on a ladder."""

    rating = fields.Integer(
        required=True,
        metadata={
            "description": "the rating shown: 1000 + 40 (mu - 25), whole; new: 1000. It moves with results only (never "
            "as sigma shrinks); while provisional, show it with a mark (1234?)"
        },
    )
    provisional = fields.Boolean(
        required=True,
        metadata={
            "description": "not established yet: fewer than 20 games have moved it, or sigma is still 5 or more (an AI "
            "level's never is: the anchors). Only established ratings are ranked on the leaderboard"
        },
    )
    mu = fields.Float(required=True, metadata={"description": "the skill estimated (OpenSkill, Plackett-Luce), 6 decimals"})
    sigma = fields.Float(required=True, metadata={"description": "its uncertainty, 6 decimals"})
    counted = fields.Integer(
        required=True,
        metadata={
            "description": "rated games that moved the rating: those against established opponents (AI levels always "
            "are), at most 3 in 24 hours against the same person"
        },
    )
    played = fields.Integer(required=True, metadata={"description": "rated games (an AI level: seats) on this ladder"})
    won = fields.Integer(required=True, metadata={"description": "of them finished first (ties for first included)"})
    average_place = fields.Float(required=True, allow_none=True)
    by_players = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(PlayerCountRecordSchema),
        required=True,
        metadata={"description": "the same, by number of players (keys 2, 3, 4)"},
    )


class LeaderboardLineSchema(RatingRecordSchema):
    rank = fields.Integer(required=True, metadata={"description": "1 is first; equal ratings ranked by player id"})
    player_id = fields.String(required=True, metadata={"description": "a player's id, or ai:<level> for an AI level"})
    name = fields.String(required=True, metadata={"description": "the name of their last rated game"})


class LeaderboardSchema(Schema):
    ladder = Choice("Ladder", required=True)
    ranked = fields.Integer(
        required=True,
        metadata={
            "description": "how many players the ladder ranks: established ratings only, never a deleted account's "
            "(nor a banned player's)"
        },
    )
    offset = fields.Integer(required=True, metadata={"description": "the page starts at rank offset + 1"})
    players = fields.List(fields.Nested(LeaderboardLineSchema), required=True)


class RatingChangeSchema(Schema):
    game_id = fields.String(required=True)
    finished_at = fields.String(required=True)
    players = fields.Integer(required=True)
    place = fields.Integer(required=True)
    before = fields.Integer(required=True)
    after = fields.Integer(required=True)
    change = fields.Integer(required=True)
    counted = fields.Boolean(required=True, metadata={"description": "whether the game moved the rating"})
    not_counted = Choice(
        "RatingNotCounted", required=True, allow_none=True, metadata={"description": "why it did not; null when it did"}
    )


class LadderStandingSchema(RatingRecordSchema):
    """What a profile shows of one ladder (``RatingService.ratings_of``; for ``getPlayer``)."""

    rank = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "1 is first; null while the leaderboard does not show the player (a provisional rating)"},
    )
    ranked = fields.Integer(required=True, metadata={"description": "how many players the leaderboard ranks"})
    history = fields.List(fields.Nested(RatingChangeSchema), required=True, metadata={"description": "the latest first"})


#: A player's ratings by ladder (a profile's ``ratings``): a member named after each ladder, there once the player has
#: a rated game on it.  Named members, not a map (``additionalProperties``): a generated client then types each
#: ladder's standing (openapi-python-client made the map a model of untyped ``additional_properties``).
PlayerLaddersSchema: type[Schema] = Schema.from_dict(
    {ladder: fields.Nested(LadderStandingSchema, metadata={"description": f"the {ladder} ladder"}) for ladder in LADDERS},
    name="PlayerLaddersSchema",
)


class PlayerRatingsSchema(Schema):
    player_id = fields.String(required=True)
    ladders = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(LadderStandingSchema),
        required=True,
        metadata={"description": "by ladder (basic, advanced): only those the player has a rated game on"},
    )


class SeatRatingSchema(Schema):
    seat = fields.Integer(required=True)
    player = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "who is rated for the seat: a player id or ai:<level>; null for an open seat"},
    )
    rating = fields.Integer(
        required=True, allow_none=True, metadata={"description": "before the game once it is applied; until then, now"}
    )
    provisional = fields.Boolean(
        required=True, allow_none=True, metadata={"description": "not established (before the game, once applied)"}
    )
    change = fields.Integer(required=True, allow_none=True, metadata={"description": "what the game changed; null until applied"})
    place = fields.Integer(required=True, allow_none=True, metadata={"description": "the place it finished in, once applied"})
    counted = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "once applied, whether the game moved the seat's rating (only established opponents and AI "
            "levels do; at most 3 games in 24 hours between the same two people); null until then"
        },
    )
    not_counted = Choice(
        "RatingNotCounted", required=True, allow_none=True, metadata={"description": "why it did not; null otherwise"}
    )


class GameRatingsSchema(Schema):
    ladder = Choice("Ladder", required=True)
    applied = fields.Boolean(
        required=True, metadata={"description": "the game is finished and its ladder has it (seconds after the end)"}
    )
    seats = fields.List(fields.Nested(SeatRatingSchema), required=True)
