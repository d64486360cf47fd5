"""What every resource's schemas are built of: a strict request schema, the text and card fields people and rules
read, a handle in an answer, a text as code and parameters, and the numbers headers carry.

Each resource's module (``games``, ``players``, ``replays`` ...) holds both directions of that resource; what more
than one resource needs lives here, below them all, so that no resource module imports another's for a building block.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from service.domain.game import NAME_LENGTH, unprintable
from service.http.schemas.vocabulary import Choice

#: No game comes near this many events; larger cursors are refused rather than sent to Redis.
MAX_EVENT = 2**40


def event_number(text: str) -> int | None:
    """A version or event number written in a header, or ``None``.

    ASCII digits only: ``str.isdigit`` also accepts "²" (headers arrive as
    latin-1), which ``int`` then refuses.
    """
    text = text.strip()
    if not (0 < len(text) <= 13 and text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if number <= MAX_EVENT else None


class CardField(Choice):
    """A card in notation, ``"R7"``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("Card", error="not a card; write a colour letter (ROYGBIV) and 1-7, e.g. R7", **kwargs)


class Strict(Schema):
    class Meta:
        ordered = True


def _printable(value: str) -> None:
    """Refuse text others could not read as written (``service.domain.game.unprintable``: the replay checker's rule too)."""
    problem = unprintable(value)
    if problem is not None:
        raise ValidationError(problem)


class Text(fields.String):
    """A name or label others read: printable, 1 to ``NAME_LENGTH`` (40) characters, without the spaces around it.

    Leading and trailing white space is dropped before anything else (" Ana " is "Ana"), so that a name of spaces,
    which shows as nothing at all, is refused as empty (422, naming the field) instead of being kept as it came.
    """

    #: Some character that is not white space (ECMAScript's ``\S``: the document's pattern, read by generators
    #: and fuzzers, for what :meth:`_deserialize` requires of the trimmed text).
    PATTERN = r"\S"

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": self.PATTERN, **kwargs.pop("metadata", {})}
        description = metadata.get("description")
        trimmed = "white space around it is dropped, and what is left may not be empty"
        metadata["description"] = f"{description}; {trimmed}" if description else trimmed[0].upper() + trimmed[1:]
        super().__init__(validate=[validate.Length(1, NAME_LENGTH), _printable], metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        trimmed = text.strip()
        if not trimmed:
            raise ValidationError("must not be empty or only white space")
        return trimmed


def handle_member(description: str = "what others find the player by (null: none)") -> fields.String:
    """A handle in an answer: always there, null for a player who has none."""
    return fields.String(required=True, allow_none=True, metadata={"description": description})


class TextSchema(Schema):
    """Something said to people, as a stable code and its parameters (no words of any language: numbers, cards, a rule's
    colour letter, players' names, or other texts of this shape), for a client to say in its own words."""

    code = fields.String(required=True, metadata={"description": "stable: what is said", "example": "step.play"})
    params = fields.Dict(
        keys=fields.String(), required=True, metadata={"description": "what fills it in", "example": {"card": "R5"}}
    )


class LocalizedTextSchema(TextSchema):
    """A text as the API says it: its code and parameters, and ``text`` in the answer's language (Content-Language)."""

    text = fields.String(
        required=True, metadata={"description": "in the answer's language", "example": "Play R5 to your palette."}
    )
