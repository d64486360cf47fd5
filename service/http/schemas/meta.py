"""What is not a resource of the game: the health check's answer and the rules as texts (``listRules``)."""

from __future__ import annotations

from marshmallow import Schema, fields

from service.http.schemas.base import LocalizedTextSchema
from service.http.schemas.vocabulary import Choice


class HealthSchema(Schema):
    status = fields.String(required=True)


class RuleSchema(Schema):
    color = Choice("Color", required=True, metadata={"description": "the colour of the canvas's top card that sets it"})
    name = fields.Nested(LocalizedTextSchema, required=True, metadata={"description": "the rule's name"})
    description = fields.Nested(LocalizedTextSchema, required=True, metadata={"description": "what counts under it"})


class RuleListSchema(Schema):
    language = Choice("Language", required=True, metadata={"description": "the language of the texts"})
    languages = fields.List(Choice("Language"), required=True, metadata={"description": "every language the service speaks"})
    rules = fields.List(fields.Nested(RuleSchema), required=True, metadata={"description": "strongest colour first"})
