"""Statistics across finished games (``getPlayerStatistics``, ``getGameStatistics``): the query and the answers.

Every share is a percentage with one decimal, of the total the field's description names (0 when that total is 0)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice

_PERCENT = {"description": "a percentage, one decimal"}


class GameStatisticsQuerySchema(Strict):
    variant = Choice("Variant", metadata={"description": "only this variant's groups"})
    players = fields.Integer(validate=validate.Range(2, 4), metadata={"description": "only the groups of this many seats"})


class PlaceCountSchema(Schema):
    place = fields.Integer(required=True, metadata={"description": "1 the winner"})
    count = fields.Integer(required=True)
    percent = fields.Float(required=True, metadata={"description": "of the games"})


class SeatCountSchema(Schema):
    seat = fields.Integer(required=True, metadata={"description": "0 the first seat"})
    games = fields.Integer(required=True)
    won = fields.Integer(required=True)
    percent = fields.Float(required=True, metadata={"description": "games won of the games in this seat"})


class TableCountSchema(Schema):
    players = fields.Integer(required=True, metadata={"description": "seats at the table"})
    games = fields.Integer(required=True)
    won = fields.Integer(required=True)
    percent = fields.Float(required=True, metadata={"description": "games won of the games at such tables"})


class RuleCountSchema(Schema):
    rule = Choice("Color", required=True, metadata={"description": "the rule in force when the round was won"})
    count = fields.Integer(required=True)
    percent = fields.Float(required=True, metadata=_PERCENT)


class ColourPlayedSchema(Schema):
    colour = Choice("Color", required=True)
    palette = fields.Integer(required=True, metadata={"description": "cards of this colour played to the palette"})
    palette_percent = fields.Float(required=True, metadata={"description": "of every card played to the palette"})
    canvas = fields.Integer(required=True, metadata={"description": "cards of this colour played to the canvas (rules set)"})
    canvas_percent = fields.Float(required=True, metadata={"description": "of every card played to the canvas"})


class AccuracyPointSchema(Schema):
    game_id = fields.String(required=True)
    finished_at = fields.String(required=True, metadata={"format": "date-time"})
    variant = Choice("Variant", required=True)
    players = fields.Integer(required=True)
    accuracy = fields.Float(required=True, metadata={"description": "the player's accuracy in the game's analysis, 0 to 100"})


class PlayerStatisticsSchema(Schema):
    player_id = fields.String(required=True)
    games = fields.Integer(required=True, metadata={"description": "finished games (aborted and called-off ones never count)"})
    won = fields.Integer(required=True, metadata={"description": "games won: first, and not resigned"})
    won_percent = fields.Float(required=True, metadata={"description": "of the games"})
    places = fields.List(fields.Nested(PlaceCountSchema), required=True, metadata={"description": "places 1 to 4"})
    seats = fields.List(fields.Nested(SeatCountSchema), required=True, metadata={"description": "the seats sat in"})
    tables = fields.List(fields.Nested(TableCountSchema), required=True, metadata={"description": "by player count"})
    rounds = fields.Integer(required=True, metadata={"description": "rounds won by anyone in the player's games"})
    rounds_won = fields.Integer(required=True)
    rounds_won_by_rule = fields.List(
        fields.Nested(RuleCountSchema),
        required=True,
        metadata={"description": "the player's rounds won, by the rule in force when they won them (percent: of rounds_won)"},
    )
    colours_played = fields.List(fields.Nested(ColourPlayedSchema), required=True, metadata={"description": "red first"})
    accuracy = fields.List(
        fields.Nested(AccuracyPointSchema),
        required=True,
        metadata={"description": "the accuracy trend: the newest 100 analysed games, oldest first"},
    )


class CardCountSchema(Schema):
    card = fields.String(required=True, metadata={"description": 'the card that won the round ("R7"), "-" if none counted'})
    count = fields.Integer(required=True)
    percent = fields.Float(required=True, metadata={"description": "of the group's rounds"})


class StatisticsGroupSchema(Schema):
    variant = Choice("Variant", required=True)
    players = fields.Integer(required=True)
    games = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    rules = fields.List(
        fields.Nested(RuleCountSchema),
        required=True,
        metadata={"description": "the winning rules, the most common first (percent: of the group's rounds)"},
    )
    cards = fields.List(
        fields.Nested(CardCountSchema), required=True, metadata={"description": "the 10 most common winning cards"}
    )


class GameStatisticsSchema(Schema):
    games = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    groups = fields.List(
        fields.Nested(StatisticsGroupSchema), required=True, metadata={"description": "by variant and player count"}
    )
