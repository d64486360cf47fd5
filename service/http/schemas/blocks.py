"""What the block and mute operations take and answer (rendered by ``service.http.routes.blocks``), and the reach
settings' enums (``ChallengeFrom``, ``TalkFrom``: fields of ``updateMe``)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.blocks import MAX_BLOCKS
from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice


class BlocksQuerySchema(Strict):
    list = Choice(
        "BlockListKind",
        load_default="blocks",
        metadata={"description": "which of your lists: the players you blocked (default), or those you muted"},
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


class BlockedPlayerSchema(Schema):
    id = fields.String(required=True, metadata={"description": "the player's id"})
    name = fields.String(required=True)
    handle = fields.String(required=True, allow_none=True)
    since = fields.String(required=True, metadata={"description": "when you blocked (muted) them", "format": "date-time"})
    list = Choice("BlockListKind", required=True, metadata={"description": "the list they are in"})


class BlockListSchema(Schema):
    players = fields.List(fields.Nested(BlockedPlayerSchema), required=True, metadata={"description": "newest first"})
    limit = fields.Integer(
        required=True, metadata={"description": f"how many players the list may hold ({MAX_BLOCKS}: 409 past it)"}
    )
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?cursor= for the next page; null on the last page"}
    )
