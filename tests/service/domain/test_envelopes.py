"""The stored form of envelopes: compact arrays for engine events, objects for the rest, both read alike for good."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Variant, event_to_dict, redact
from engine.bots import RandomBot
from engine.events import EVENT_TYPES
from engine.selfplay import play_game
from service.domain.envelopes import COMPACT_FIELDS, COMPACT_TYPES, pack, unpack
from service.domain.game import decode, engine_envelope, envelope

AT = "2026-11-26T14:05:07.093Z"


def test_every_engine_event_type_has_a_compact_layout_naming_exactly_its_fields() -> None:
    assert set(COMPACT_TYPES) == set(EVENT_TYPES)
    assert len(set(COMPACT_TYPES)) == len(COMPACT_TYPES)
    for kind, cls in EVENT_TYPES.items():
        assert set(COMPACT_FIELDS[kind]) == {f.name for f in dataclasses.fields(cls)}, kind


def test_the_codes_of_stored_events_never_change() -> None:
    """Stored arrays name types by these numbers: a new type goes at the end, none moves."""
    assert COMPACT_TYPES[:12] == (
        "game_started", "round_dealt", "turn_started", "card_played", "card_drawn", "card_taken",
        "card_placed", "card_discarded", "player_eliminated", "round_won", "round_scored", "game_finished",
    )  # fmt: skip


def _game_events(seed: int, players: int, variant: Variant, actions: bool) -> list[dict[str, object]]:
    bots = [RandomBot(random.Random(seed + s)) for s in range(players)]
    record = play_game(bots, variant=variant, action_rules=actions, seed=seed)
    seen = [redact(e, 0, game_over=False) for e in record.events]  # redacted events have nulls in the middle of them
    return [event_to_dict(e) for e in [*record.events, *seen]]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    players=st.integers(2, 4),
    variant=st.sampled_from(list(Variant)),
    actions=st.booleans(),
    by=st.sampled_from(["ai:0", "ai:3", "player:p_7ffbdcfe1c18bd3e", "system:scoring", "system:deadline"]),
    ms=st.integers(0, 2**42),
)
def test_an_engine_event_comes_back_from_its_compact_form_key_for_key(
    seed: int, players: int, variant: Variant, actions: bool, by: str, ms: int
) -> None:
    from datetime import UTC, datetime, timedelta

    at = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")
    at = at.replace("+00:00", "Z")
    for fields in _game_events(seed, players, variant, actions):
        payload = pack(fields, at=at, by=by, v=1)
        assert payload.startswith("[")
        back = unpack(payload)
        assert list(back.items()) == list({**fields, "at": at, "by": by, "v": 1}.items())


def test_a_compact_event_is_a_third_of_its_object_form() -> None:
    fields = {"type": "card_played", "seat": 2, "card": "O5", "effect": None}
    compact = pack(fields, at=AT, by="ai:2", v=1)
    spelt_out = json.dumps({**fields, "at": AT, "by": "ai:2", "v": 1}, separators=(",", ":"))
    assert compact == '[3,1,1795701907093,2,2,"O5"]'
    assert len(compact) * 3 <= len(spelt_out)


@pytest.mark.parametrize(
    ("at", "by"),
    [
        ("2026-11-26T14:05:07Z", "ai:1"),  # not the millisecond form we write: kept as it is
        ("2026-11-26T14:05:07.093+00:00", "ai:1"),
        (AT, "player:someone@example"),  # not a bare id: kept as it is
        (AT, "ai:01"),  # would not come back the same as a number
        (AT, "system:scoring"),
    ],
)
def test_times_and_actors_that_do_not_pack_come_back_unchanged(at: str, by: str) -> None:
    fields = {"type": "turn_started", "seat": 1}
    assert unpack(pack(fields, at=at, by=by, v=1)) == {**fields, "at": at, "by": by, "v": 1}


def test_an_actor_without_a_colon_keeps_the_object_form_rather_than_read_back_as_a_player() -> None:
    payload = pack({"type": "turn_started", "seat": 1}, at=AT, by="scoring", v=1)
    assert payload.startswith("{")
    assert unpack(payload)["by"] == "scoring"


def test_lobby_events_keep_the_object_form() -> None:
    payload = envelope({"type": "seat_taken", "seat": 0, "player_id": "p_1", "name": "Ana"}, at=AT, by="player:p_1")
    assert json.loads(payload) == {"type": "seat_taken", "seat": 0, "player_id": "p_1", "name": "Ana", "at": AT,
                                   "by": "player:p_1", "v": 1}  # fmt: skip


def test_events_stored_before_the_compact_form_read_as_they_always_did() -> None:
    stored = '{"type":"card_played","seat":2,"card":"O5","effect":"play","at":"2026-11-25T22:43:31.200Z","by":"ai:2","v":1}'
    assert decode(stored) == json.loads(stored)


def test_the_service_writes_engine_events_compact() -> None:
    from engine import Card, CardPlayed

    payload = engine_envelope(CardPlayed(1, Card.parse("R7"), None), at=AT, by="player:p_1")
    assert json.loads(payload)[:5] == [3, 1, 1795701907093, "p_1", 1]
    assert decode(payload) == {"type": "card_played", "seat": 1, "card": "R7", "effect": None, "at": AT,
                               "by": "player:p_1", "v": 1}  # fmt: skip


@pytest.mark.parametrize(
    "payload",
    ['"text"', "[99,1,0,0]", "[3,1,0]", '[3,1,0,0,1,"R7",null,"extra"]', '["card_played",1,0,0]', "[]"],
)
def test_a_payload_of_no_known_shape_is_refused(payload: str) -> None:
    with pytest.raises(ValueError):
        unpack(payload)
