"""What table talk takes and answers (``sayAtTable``, ``listTableTalk``; rendered by ``service.http.routes.talk``)."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from service.domain.talk import MAX_TEXT, PHRASES
from service.http.schemas.base import Strict
from service.http.schemas.vocabulary import Choice


class SaySchema(Strict):
    phrase = Choice(
        "TalkPhrase",
        metadata={"description": "a preset phrase, shown in each reader's language: " + ", ".join(PHRASES)},
    )
    text = fields.String(
        validate=validate.Length(1, MAX_TEXT),
        metadata={"description": f"free text, at most {MAX_TEXT} characters (held back if the word filter matches)"},
    )

    @validates_schema
    def one_of_the_two(self, data: dict[str, object], **_: object) -> None:
        if ("phrase" in data) == ("text" in data):
            raise ValidationError("send a phrase or a text, one of the two", "text")


class TalkMessageSchema(Strict):
    id = fields.String(required=True, metadata={"description": "the message's id (a report names it: createReport)"})
    seat = fields.Integer(required=True, metadata={"description": "the author's seat"})
    author_id = fields.String(required=True)
    phrase = Choice("TalkPhrase", required=True, allow_none=True)
    text = fields.String(required=True, allow_none=True, metadata={"description": "the free text (null for a phrase)"})
    words = fields.String(required=True, metadata={"description": "what to show: the phrase in your language, or the text"})
    held = fields.Boolean(
        required=True, metadata={"description": "held back by the word filter: only its author sees it, a moderator reviews it"}
    )
    at = fields.String(required=True, metadata={"format": "date-time"})


class TalkQuerySchema(Strict):
    after = fields.String(
        validate=validate.Regexp(r"^\d{1,20}(-\d{1,20})?$"), metadata={"description": "the next_cursor of the page before"}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100))


class TalkPageSchema(Strict):
    messages = fields.List(fields.Nested(TalkMessageSchema), required=True, metadata={"description": "oldest first"})
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "pass as ?after= for more; null when nothing more was there"}
    )
