"""A turn's steps: what an action may send (``ActionSchema``, with its fast path :func:`plain_action`), and a legal
step as a view lists it (a valid step as it stands, with flags the action ignores)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import RAISE, ValidationError, fields, post_load, validate, validates_schema

from engine import step_from_dict
from service.http.schemas.base import CardField, LocalizedTextSchema, Strict
from service.http.schemas.vocabulary import ENUMS, Choice

STEP_TYPES = ENUMS["StepType"][0]


#: The most steps an action may send at once.
MAX_STEPS = 16


#: The flags of a legal step (``LegalStepSchema``): a listed step may be sent back as it is, and they are ignored.
LEGAL_FLAGS = ("can_win", "eliminates", "grants_draw", "draws", "ends_turn", "description")


class StepSchema(Strict):
    """One step of a turn.  A listed legal step (``LegalStep``) is one as it stands: its flags are ignored here."""

    type = Choice("StepType", required=True)
    card = CardField()
    draw = fields.Boolean(
        truthy={True}, falsy={False}, metadata={"description": "discard only: take the advanced draw if granted (default true)"}
    )
    seat = fields.Integer(strict=True, validate=validate.Range(0, 3), metadata={"description": "take only: whose palette"})
    to = Choice("Destination", metadata={"description": "place only"})
    can_win = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    eliminates = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    grants_draw = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    draws = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    ends_turn = fields.Boolean(load_only=True, metadata={"description": "a legal step's flag; ignored"})
    description = fields.Dict(load_only=True, metadata={"description": "a legal step's description; ignored"})

    NEEDS: ClassVar = {"play": ("card",), "discard": ("card",), "take": ("seat", "card"), "place": ("card", "to")}
    ALLOWS: ClassVar = {"play": {"card"}, "discard": {"card", "draw"}, "take": {"seat", "card"}, "place": {"card", "to"}}

    @validates_schema
    def _shape(self, data: dict[str, Any], **_: Any) -> None:
        kind = data.get("type")
        if kind is None:
            return
        for name in self.NEEDS.get(kind, ()):
            if name not in data:
                raise ValidationError(f"a {kind} step needs {name}", name)
        for name in set(data) - {"type", *LEGAL_FLAGS} - self.ALLOWS.get(kind, set()):
            raise ValidationError(f"a {kind} step has no {name}", name)

    @post_load
    def _step(self, data: dict[str, Any], **_: Any) -> Any:
        return step_from_dict(data)


class ActionSchema(Strict):
    """An action's body.  The body every client sends (its steps as the rules write them, nothing else) is read by
    :func:`plain_action`, the schema's own answer without its machinery (a tenth of an action's CPU); anything else,
    every error above all, is the schema's to read."""

    steps = fields.List(fields.Nested(StepSchema), required=True, validate=validate.Length(1, MAX_STEPS))
    expected_version = fields.Integer(strict=True, validate=validate.Range(0), metadata={"description": "instead of If-Match"})

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None, unknown: Any = None) -> Any:
        if many is None and partial is None and unknown in (None, RAISE):
            plain = plain_action(data)
            if plain is not None:
                return plain
        return super().load(data, many=many, partial=partial, unknown=unknown)


_STEP_TYPES = frozenset(ENUMS["StepType"][0])


_CARDS = frozenset(ENUMS["Card"][0])


_DESTINATIONS = frozenset(ENUMS["Destination"][0])


def _plain_step(step: Any) -> bool:
    """Whether ``step`` is a step :class:`StepSchema` takes as it is: exactly the members its type needs and allows,
    each of exactly the type the schema's field loads without converting it (``True`` is no seat, ``1`` no draw)."""
    if type(step) is not dict:
        return False
    kind = step.get("type")
    if type(kind) is not str or kind not in _STEP_TYPES:
        return False
    allowed = StepSchema.ALLOWS.get(kind, set())
    for name, value in step.items():
        if name == "type":
            continue
        if name not in allowed:
            return False
        if name == "card":
            if type(value) is not str or value not in _CARDS:
                return False
        elif name == "draw":
            if type(value) is not bool:
                return False
        elif name == "seat":
            if type(value) is not int or not 0 <= value <= 3:
                return False
        elif name != "to" or type(value) is not str or value not in _DESTINATIONS:
            return False
    return all(name in step for name in StepSchema.NEEDS.get(kind, ()))


def plain_action(data: Any) -> dict[str, Any] | None:
    """What :class:`ActionSchema` loads from ``data``, if ``data`` is plainly valid; ``None``: ask the schema."""
    if type(data) is not dict or not 0 < len(data) <= 2:
        return None
    steps = data.get("steps")
    if type(steps) is not list or not 0 < len(steps) <= MAX_STEPS or not all(_plain_step(step) for step in steps):
        return None
    out: dict[str, Any] = {"steps": [step_from_dict(step) for step in steps]}
    if len(data) == 2:
        version = data.get("expected_version")
        if type(version) is not int or version < 0:
            return None
        out["expected_version"] = version
    return out


class LegalStepSchema(StepSchema):
    """A step you may take now, with what it would do: a valid :class:`StepSchema` as it stands (send it back as
    one; the flags are ignored there)."""

    can_win = fields.Boolean(required=True, metadata={"description": "some way to finish the turn after this keeps you in"})
    eliminates = fields.Boolean(required=True, metadata={"description": "this ends your turn with you out of the round"})
    grants_draw = fields.Boolean(required=True, metadata={"description": "a discard that allows the advanced draw"})
    draws = fields.Boolean(
        required=True,
        metadata={"description": "this step draws a card (a 3, or a discard taking the draw): end the batch with it"},
    )
    ends_turn = fields.Boolean(required=True)
    description = fields.Nested(LocalizedTextSchema, required=True, metadata={"description": "what the step does, in words"})  # type: ignore[assignment]  # a dict when sent back (ignored), a text when listed
