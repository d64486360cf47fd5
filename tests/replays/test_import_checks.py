"""The replay checker (issue 18, item 5): a file is a history that could have happened, member for member, or a 422
naming each member at fault; never a 201, never a 500."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replays.build import content_hash
from replays.verify import verify_replay
from tests.replays.files import genuine, replay_keys


def _resolved(document: dict[str, Any], path: tuple[Any, ...]) -> list[Any]:
    """``path`` with an event type after ``"events"`` replaced by the index of the first event of that type."""
    if path[0] != "events" or not isinstance(path[1], str):
        return list(path)
    return ["events", next(i for i, event in enumerate(document["events"]) if event["type"] == path[1]), *path[2:]]


#: name: (where, what is put there (or how it is changed), how much of the path the refusal names (None: all of it)).
IMPOSSIBLE: dict[str, tuple[tuple[Any, ...], Any, int | None]] = {
    "a seat -1 taken": (("events", "seat_taken", "seat"), -1, None),
    "a seat 3 of a 2-player game taken": (("events", "seat_taken", "seat"), 3, None),
    "a name that is a JSON object": (("events", "seat_taken", "name"), {"first": "Ana"}, None),
    "a blank name": (("events", "seat_taken", "name"), "", None),
    "a name of 41 characters": (("events", "seat_taken", "name"), "x" * 41, None),
    "a name with a bidi override": (("events", "seat_taken", "name"), "Ana\u202e", None),
    "a player id that is a number": (("events", "seat_taken", "player_id"), 5, None),
    "an AI level god": (("events", "game_created", "seats", 1, "level"), "god", 3),
    "a seat of kind robot": (("events", "game_created", "seats", 1, "kind"), "robot", 3),
    "a human seat with a level": (("events", "game_created", "seats", 0, "level"), "expert", 3),
    "action rules as text": (("events", "game_created", "action_rules"), "yes", None),
    "a negative turn timeout": (("events", "game_created", "turn_timeout"), -5, None),
    "a member no event has": (("events", "game_created", "padding"), "x" * 1000, None),
    "a play by seat -1": (("events", "card_played", "seat"), -1, None),
    "a turn of seat true": (("events", "turn_started", "seat"), True, None),
    "a card written r7": (("events", "card_played", "card"), str.lower, None),
    "a note in an engine event": (("events", "card_played", "note"), "hi", None),
    "a winner -1": (("events", "game_finished", "winner"), -1, None),
    "a time that is a number": (("events", "game_started", "at"), 12, None),
    "an actor that is an object": (("events", "game_started", "by"), {}, None),
    "a schema version from the future": (("events", "game_started", "v"), 99, None),
    "an event type of its own": (("events", "game_started", "type"), "card_stolen", None),
    "a second game_created": (("events", "game_started", "type"), "game_created", None),
    "a header seat of kind ai": (("seats", 0, "kind"), "ai", None),
    "a header AI level god": (("seats", 1, "level"), "god", None),
    "a header seat -1": (("seats", 0, "seat"), -1, None),
    "a header name that is an object": (("seats", 0, "name"), {"x": 1}, None),
    "a variant of its own": (("options", "variant"), "zzz", None),
    "action rules as 1": (("options", "action_rules"), 1, None),
    "a step by seat -1": (("steps", 5, "seat"), -1, None),
    "a step numbered as text": (("steps", 0, "index"), "1", None),
    "a step's text an object": (("steps", 0, "text"), {"html": "<b>"}, None),
    "another creation time": (("created_at",), "2020-01-01T00:00:00.000Z", None),
    "a game id of 1 MB": (("game_id",), "g" * 1_000_000, None),
    "an event schema from the future": (("event_schema",), 99, None),
}


@pytest.mark.parametrize("name", sorted(IMPOSSIBLE))
def test_an_impossible_history_is_refused_with_the_field_named(api, name):
    token, document = api.player("Bo")["token"], genuine()
    where, value, named = IMPOSSIBLE[name]
    path = _resolved(document, where)
    forged = copy.deepcopy(document)
    holder = functools.reduce(lambda part, key: part[key], path[:-1], forged)
    holder[path[-1]] = value(holder[path[-1]]) if callable(value) else value
    forged["hash"] = content_hash(forged)
    refused = api.call("POST", "/v1/replays", token, json=forged)
    problem = refused.get_json()
    assert refused.status_code == 422 and problem["code"] == "invalid_replay", problem
    assert ".".join(map(str, path[:named])) in [error["field"] for error in problem["errors"]], problem["errors"]
    assert replay_keys(api) == []


def test_a_forged_seat_in_the_lobby_is_refused(api):
    """A seat taken that was not open (the AI's), and a start with a human seat still open: no such game."""
    token, document = api.player("Bo")["token"], genuine()
    (_, taken) = _resolved(document, ("events", "seat_taken"))
    for change in (
        lambda d: d["events"][taken].__setitem__("seat", 1),  # seat 1 is the AI's
        lambda d: d["events"][0]["seats"].__setitem__(1, {"kind": "human", "level": None}),  # seat 1 never taken
    ):
        forged = copy.deepcopy(document)
        change(forged)
        forged["hash"] = content_hash(forged)
        refused = api.call("POST", "/v1/replays", token, json=forged)
        assert refused.status_code == 422 and refused.get_json()["errors"][0]["field"] == "events", refused.get_json()


OTHER_JSON = st.one_of(
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=50),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _json_type(value: Any) -> str:
    return "number" if type(value) in (int, float) else type(value).__name__


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_member_of_another_json_type_is_refused_and_named(data):
    """Every member of every event, of the header and of every step that holds a value (not null), replaced by a value of
    another JSON type (or a whole number by a float): refused, with that member's path among the fields, never a crash."""
    document = genuine()
    places = [("events", i, key) for i, event in enumerate(document["events"]) for key in event if key != "n"]
    places += [("steps", i, key) for i in (0, len(document["steps"]) - 1) for key in document["steps"][i] if key != "state"]
    places += [("seats", i, key) for i, seat in enumerate(document["seats"]) for key in seat]
    places += [("options", None, key) for key in document["options"]]
    part, index, key = data.draw(st.sampled_from(places))
    holder = document[part] if index is None else document[part][index]
    original = holder[key]
    if original is None:
        return  # null where a value may be: a different history, not a mistyped one
    value = data.draw(OTHER_JSON.filter(lambda v: _json_type(v) != _json_type(original) or type(v) is not type(original)))
    forged = copy.deepcopy(document)
    (forged[part] if index is None else forged[part][index])[key] = value
    forged["hash"] = content_hash(forged)
    verdict = verify_replay(forged)
    path = f"{part}.{key}" if index is None else f"{part}.{index}.{key}"
    named = [error["field"] for error in verdict.errors]
    assert not verdict.ok and any(path == f or f.startswith(f"{part}.{index}.") or f == "events" for f in named), (path, named)
