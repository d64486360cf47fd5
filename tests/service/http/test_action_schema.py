"""An action's body read without marshmallow's machinery (``plain_action``) is read exactly as the schema reads it, and
whatever it does not read plainly (every error above all) is left to the schema."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from service.http.schemas.actions import ActionSchema, plain_action

SCHEMA = ActionSchema()

#: Values near and across what each member takes: the right types and the wrong ones, in range and out.
VALUES = st.one_of(
    st.sampled_from(["R7", "V1", "G2", "X9", "r7", "", "canvas", "deck", "play", "fold", "end_turn", "take"]),
    st.sampled_from([True, False, 0, 1, 3, 4, -1, 2.0, None, [], {}]),
)
NAMES = st.sampled_from(["type", "card", "draw", "seat", "to", "can_win", "description", "other"])
STEPS = st.one_of(
    st.dictionaries(NAMES, VALUES, max_size=5),
    st.fixed_dictionaries({"type": st.sampled_from(["play", "discard"]), "card": st.sampled_from(["R7", "B3", "Q1"])}),
    st.fixed_dictionaries(
        {"type": st.just("take"), "seat": st.sampled_from([0, 3, 4, True]), "card": st.sampled_from(["O4", "o4"])}
    ),
    st.fixed_dictionaries({"type": st.just("place"), "card": st.just("I6"), "to": st.sampled_from(["canvas", "deck", "x"])}),
    st.fixed_dictionaries({"type": st.just("discard"), "card": st.just("Y5"), "draw": st.sampled_from([True, False, 1])}),
    st.fixed_dictionaries({"type": st.sampled_from(["end_turn", "fold"])}),
    VALUES,
)
BODIES = st.one_of(
    st.fixed_dictionaries({"steps": st.lists(STEPS, max_size=18)}),
    st.fixed_dictionaries(
        {"steps": st.lists(STEPS, min_size=1, max_size=2), "expected_version": st.sampled_from([0, 7, -1, True, 1.0, None])}
    ),
    st.dictionaries(st.sampled_from(["steps", "expected_version", "other"]), st.one_of(VALUES, st.lists(STEPS, max_size=2))),
    VALUES,
)


def schema_load(body: Any) -> Any:
    """What marshmallow's own load makes of ``body`` (the error, if it refuses it)."""
    try:
        return Schema.load(SCHEMA, body)
    except ValidationError as error:
        return error


@settings(max_examples=600, deadline=None)
@given(BODIES)
def test_a_plain_body_is_read_as_the_schema_reads_it_and_no_other_is_read(body: Any) -> None:
    plain = plain_action(body)
    loaded = schema_load(body)
    if plain is not None:
        assert not isinstance(loaded, ValidationError), (body, loaded)
        assert plain == dict(loaded)
    try:
        answered = SCHEMA.load(body)  # the route's read: plainly, or by the schema
    except ValidationError as error:
        assert isinstance(loaded, ValidationError) and error.messages == loaded.messages
    else:
        assert answered == loaded


def test_the_bodies_clients_send_are_read_plainly() -> None:
    for body in (
        {"steps": [{"type": "play", "card": "R7"}]},
        {"steps": [{"type": "discard", "card": "B3", "draw": False}], "expected_version": 12},
        {"steps": [{"type": "take", "seat": 2, "card": "G2"}, {"type": "end_turn"}]},
        {"steps": [{"type": "place", "card": "I6", "to": "deck"}, {"type": "fold"}]},
    ):
        plain = plain_action(body)
        assert plain is not None and plain == dict(schema_load(body)) == SCHEMA.load(body)


def test_what_is_not_plain_is_the_schemas_to_read_or_refuse() -> None:
    listed = {"type": "play", "card": "R7", "can_win": True, "description": {"code": "step.play"}}  # a legal step as sent
    assert plain_action({"steps": [listed]}) is None
    assert SCHEMA.load({"steps": [listed]})["steps"] == plain_action({"steps": [{"type": "play", "card": "R7"}]})["steps"]
    for body in (
        {"steps": []},
        {"steps": [{"type": "play"}]},
        {"steps": [{"type": "take", "seat": True, "card": "R7"}]},
        {"steps": [{"type": "play", "card": "R7"}], "expected_version": -1},
        {"steps": [{"type": "play", "card": "R7"}], "other": 1},
    ):
        assert plain_action(body) is None
        assert isinstance(schema_load(body), ValidationError)
