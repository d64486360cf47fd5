"""Live games to watch and embeds: ``listLiveGames``'s filters and lines, and ``getOEmbed``'s question and answer
(the oEmbed 1.0 spec, https://oembed.com, section 2)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice


class LiveGamesQuerySchema(Strict):
    """The filters of ``listLiveGames``: each one left out matches any game."""

    rated = fields.Boolean()
    variant = Choice("Variant")
    action_rules = fields.Boolean()
    players = fields.Integer(validate=validate.Range(2, 4), metadata={"description": "how many seats the game has"})
    order = Choice(
        "LiveGameOrder", load_default="rating", metadata={"description": "rating (the default): the highest rated first"}
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class LiveGameSchema(Schema):
    id = fields.String(required=True)
    variant = Choice("Variant", required=True)
    action_rules = fields.Boolean(required=True)
    players = fields.Integer(required=True, metadata={"description": "how many seats the game has"})
    seats = fields.List(fields.String(), required=True, metadata={"description": "who sits where, by seat"})
    rated = fields.Boolean(required=True)
    rating = fields.Integer(
        required=True, metadata={"description": "the seated players' mean rating on the game's ladder (a new player has 1000)"}
    )
    watchers = fields.Integer(required=True, metadata={"description": "how many spectators follow its feed now"})
    round = fields.Integer(required=True, metadata={"description": "the round being played (1 for a basic game)"})
    turn_timeout = fields.Integer(allow_none=True, required=True)
    days_per_turn = fields.Integer(allow_none=True, required=True)
    view_url = fields.String(required=True, metadata={"description": "the spectator's view (getGame without a token)"})
    stream_url = fields.String(required=True, metadata={"description": "its events as a spectator sees them (streamEvents)"})
    viewer_url = fields.String(required=True, metadata={"description": "the replay viewer, as far as it has been played"})


class LiveGameListSchema(Schema):
    games = fields.List(fields.Nested(LiveGameSchema), required=True)


class OEmbedQuerySchema(Strict):
    url = fields.String(
        required=True,
        validate=validate.Length(1, 2000),
        metadata={
            "description": "the page to embed: a game's replay viewer (.../v1/games/{game_id}/replay/view, its "
            "#step=N kept) or an imported replay's (.../v1/replays/{replay_id}/view)"
        },
    )
    maxwidth = fields.Integer(validate=validate.Range(1, 10_000), metadata={"description": "the widest the embed may be (px)"})
    maxheight = fields.Integer(validate=validate.Range(1, 10_000), metadata={"description": "the tallest the embed may be (px)"})
    format = Choice("OEmbedFormat", load_default="json", metadata={"description": "json; xml is answered 501"})


class OEmbedSchema(Schema):
    """An oEmbed 1.0 ``rich`` answer (https://oembed.com, 2.3.4)."""

    type = fields.String(required=True, metadata={"description": "always rich", "example": "rich"})
    version = fields.String(required=True, metadata={"description": "always 1.0", "example": "1.0"})
    title = fields.String(required=True)
    provider_name = fields.String(required=True)
    provider_url = fields.String(required=True)
    cache_age = fields.Integer(required=True, metadata={"description": "seconds a consumer may keep this answer"})
    html = fields.String(required=True, metadata={"description": "the iframe to put in a page: the viewer's embed mode"})
    width = fields.Integer(required=True, metadata={"description": "the iframe's width (px), within maxwidth"})
    height = fields.Integer(required=True, metadata={"description": "the iframe's height (px), within maxheight"})
