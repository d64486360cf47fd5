"""What each member of a replay file must be, before anything is rebuilt from it.

A file can hold anything, and an import keeps its events (:mod:`replays.verify`): so every event must be
what the service itself writes, member for member.  Each is of its type's members, each of the JSON type
and range the service writes it with (a card as ``"R7"``, a seat of the game, an AI level of the engine's,
a player's name by the API's rule for names: :func:`service.domain.game.name_problem`), and no other member (one
the service never writes would be kept, and served with the replay).  What follows from the events (the
header, each step, the outcome) is then held to the replay rebuilt from them, in :mod:`replays.verify`.

Each problem is ``(field, sentence)``, the field a path into the document (``events.3.name``), and no
sentence quotes more than a few dozen characters of the file: a refusal is no echo of what it refuses.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from enum import Enum
from typing import Any

from engine import EVENT_SCHEMA_VERSION, Card, Color
from engine.cards import ALL_CARDS
from engine.events import EVENT_TYPES, Variant
from service.domain.game import name_problem, unprintable
from service.domain.lobby import AI_LEVELS, DAYS_PER_TURN, LOBBY_TYPES, OPTIONAL_CREATED, ORIGINS

Problem = tuple[str, str]
#: A member's check: why the value is not what the service writes there, or ``None``.
Check = Callable[[Any], str | None]

#: Most problems told about one file: enough to see what is wrong, bounded however broken the file is.
MOST_PROBLEMS = 20
#: Members every stored event has (``n``: its number, from 1).
ENVELOPE = ("n", "type", "at", "by", "v")
#: Event members that name a seat, checked against the game's players.
SEAT_MEMBERS = frozenset({"seat", "from_seat", "first_seat", "winner"})

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
_CARDS = frozenset(str(card) for card in ALL_CARDS)


def shown(value: Any, most: int = 40) -> str:
    """``value`` as JSON, cut to ``most`` characters: enough to recognise it, never the file read back."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= most else text[: most - 1] + "…"


# --- member checks ----------------------------------------------------------------------------


def _whole(low: int, high: int) -> Check:
    def check(value: Any) -> str | None:
        if type(value) is not int:
            return f"must be a whole number, not {shown(value)}"
        return None if low <= value <= high else f"must be {low} to {high}, not {value}"

    return check


def _boolean(value: Any) -> str | None:
    return None if type(value) is bool else f"must be true or false, not {shown(value)}"


def _one_of(*allowed: Any) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool | int | str | None) and any(type(value) is type(a) and value == a for a in allowed):
            return None
        return f"must be one of {', '.join(shown(a) for a in allowed)}, not {shown(value)}"

    return check


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _identifier(value: Any) -> str | None:
    """A game's or a player's id: letters, digits, ``_`` and ``-``, as the service makes them (``g_…``, ``p_…``)."""
    ok = isinstance(value, str) and _ID.fullmatch(value)
    return None if ok else f"must be an id (1 to 64 letters, digits, _ or -), not {shown(value)}"


def _text(most: int) -> Check:
    """Short printable text (who caused an event, a seat's label)."""

    def check(value: Any) -> str | None:
        if not isinstance(value, str) or not 1 <= len(value) <= most:
            return f"must be text of 1 to {most} characters, not {shown(value)}"
        return unprintable(value)

    return check


def _timestamp(value: Any) -> str | None:
    ok = isinstance(value, str) and _TIMESTAMP.fullmatch(value)
    return None if ok else f"must be a UTC time as the service writes it (2026-01-31T12:00:00.000Z), not {shown(value)}"


def _card(value: Any) -> str | None:
    ok = isinstance(value, str) and value in _CARDS
    return None if ok else f"must be a card (R7: a colour letter, 1-7), not {shown(value)}"


def _cards(value: Any) -> str | None:
    if not isinstance(value, list) or len(value) > len(_CARDS):
        return f"must be a list of cards, not {shown(value)}"
    return next((f"card {i}: {problem}" for i, card in enumerate(value) if (problem := _card(card))), None)


def _deck(value: Any) -> str | None:
    problem = _cards(value)
    if problem is None and sorted(value) != sorted(_CARDS):
        problem = "must list each of the 49 cards once"
    return problem


def _seats(value: Any) -> str | None:
    """``game_created``'s seats: 2 to 4 of ``{"kind": "human", "level": null}`` or ``{"kind": "ai", "level": <level>}``."""
    if not isinstance(value, list) or not 2 <= len(value) <= 4:
        return f"must be a list of 2 to 4 seats, not {shown(value)}"
    for number, seat in enumerate(value):
        if not isinstance(seat, dict) or set(seat) != {"kind", "level"}:
            return f"seat {number} must be {{kind, level}}, not {shown(seat)}"
        if seat["kind"] == "human" and seat["level"] is not None:
            return f"seat {number} is human: its level must be null, not {shown(seat['level'])}"
        if seat["kind"] not in ("human", "ai"):
            return f'seat {number}\'s kind must be "human" or "ai", not {shown(seat["kind"])}'
        if seat["kind"] == "ai" and seat["level"] not in AI_LEVELS:
            return f"seat {number} is an AI: its level must be one of {', '.join(AI_LEVELS)}, not {shown(seat['level'])}"
    return None


#: A seat's number; held to the game's players with every other member that names a seat (:data:`SEAT_MEMBERS`).
_seat_number = _whole(0, 3)

#: The service's own events: each member's check, and the members older events may lack (read with a default).
LOBBY_MEMBERS: dict[str, tuple[dict[str, Check], frozenset[str]]] = {
    "game_created": (
        {
            "created_by": _identifier,
            "seats": _seats,
            "variant": _one_of(*(v.value for v in Variant)),
            "action_rules": _boolean,
            "turn_timeout": _optional(_whole(1, 30 * 24 * 3600)),
            "timeout_action": _one_of("fold", "ai"),
            "dealing": _one_of("random", "seeded", "custom"),
            "seed": _whole(0, 2**64 - 1),
            "deck": _optional(_deck),
            "join_code": _text(64),  # never in an export (replays show none), but not out of place in a game's first event
            # The options of how a game came to be (service.domain.lobby.OPTIONAL_CREATED: written only when set).
            "listed": _boolean,
            "rated": _boolean,
            "days_per_turn": _one_of(*DAYS_PER_TURN),
            "origin": _one_of(*ORIGINS),
            "rematch_of": _identifier,
        },
        frozenset({"turn_timeout", "timeout_action", "deck", "join_code", *OPTIONAL_CREATED}),
    ),
    "seat_taken": ({"seat": _seat_number, "player_id": _identifier, "name": name_problem}, frozenset()),
    "seat_left": ({"seat": _seat_number}, frozenset()),
    "seat_resigned": ({"seat": _seat_number, "level": _one_of(*AI_LEVELS)}, frozenset()),
    "turn_timed_out": ({"seat": _seat_number, "action": _one_of("fold", "ai")}, frozenset()),
    "game_cancelled": ({}, frozenset()),
    "game_aborted": ({"seat": _seat_number}, frozenset()),
    "rematch_offered": ({"seat": _seat_number, "rematch_id": _optional(_identifier)}, frozenset()),
    "rematch_declined": ({"seat": _seat_number}, frozenset()),
    "rematch_started": ({"rematch_id": _identifier}, frozenset()),
    "time_given": ({"seat": _seat_number, "to": _seat_number, "seconds": _whole(1, 30 * 24 * 3600)}, frozenset()),
}
assert set(LOBBY_MEMBERS) == LOBBY_TYPES


def _engine_check(hint: Any) -> Check:
    """The check of an engine event member of type ``hint``, as :func:`engine.event_to_dict` writes it."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return _optional(_engine_check(inner))
    if origin is tuple:
        item = _engine_check(typing.get_args(hint)[0])

        def each(value: Any) -> str | None:
            if not isinstance(value, list) or len(value) > len(_CARDS):
                return f"must be a list, not {shown(value)}"
            return next((f"item {i}: {problem}" for i, x in enumerate(value) if (problem := item(x))), None)

        return each
    if hint is Card:
        return _card
    if hint is Color:
        return _one_of(*(str(color) for color in Color))
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _one_of(*(member.value for member in hint))
    if hint is bool:
        return _boolean
    if hint is int:
        return _whole(0, 2**64 - 1)
    raise TypeError(f"no check for {hint!r}")


def _engine_members() -> dict[str, tuple[dict[str, Check], frozenset[str]]]:
    table = {}
    for kind, cls in EVENT_TYPES.items():
        hints = typing.get_type_hints(cls)
        checks = {f.name: _engine_check(hints[f.name]) for f in fields(cls)}
        optional = frozenset(f.name for f in fields(cls) if f.default is not MISSING)
        table[kind] = (checks, optional)
    return table


#: The engine's events: each member's check (from the event's own fields), and the members with a default.
ENGINE_MEMBERS = _engine_members()
MEMBERS: Mapping[str, tuple[dict[str, Check], frozenset[str]]] = {**LOBBY_MEMBERS, **ENGINE_MEMBERS}
_ENVELOPE_CHECKS: dict[str, Check] = {"at": _timestamp, "by": _text(100), "v": _whole(1, EVENT_SCHEMA_VERSION)}


# --- the file ---------------------------------------------------------------------------------


def shape_problems(document: dict[str, Any]) -> list[Problem]:
    """Every way (up to :data:`MOST_PROBLEMS`) the file is not a replay's shape; empty if it is one."""
    if _identifier(document.get("game_id")) is not None:
        return [("game_id", f"game_id {_identifier(document.get('game_id'))}")]
    options = document.get("options")
    if not isinstance(options, dict):
        return [("options", "options are missing")]
    if type(options.get("players")) is not int or not 2 <= options["players"] <= 4:
        return [("options.players", "options.players must be 2, 3 or 4")]
    if options.get("seed") is not None and type(options["seed"]) is not int:
        return [("options.seed", "options.seed must be a whole number")]
    events = document.get("events")
    if not isinstance(events, list) or not events:
        return [("events", "events are missing")]
    if not isinstance(document.get("steps", []), list):
        return [("steps", "steps must be a list")]
    problems: list[Problem] = []
    for index, event in enumerate(events):
        problems += _event_problems(index, event, options["players"])
        if len(problems) >= MOST_PROBLEMS:
            break
    return problems[:MOST_PROBLEMS]


def _event_problems(index: int, event: Any, players: int) -> list[Problem]:
    number, where = index + 1, f"events.{index}"
    if not isinstance(event, dict):
        return [(where, f"event {number} is not an event")]
    if not isinstance(event.get("type"), str):
        return [(f"{where}.type", f"event {number}'s type must be an event type, not {shown(event.get('type'))}")]
    if type(event.get("n")) is not int or event["n"] != number:
        numbered = f"event {number} is numbered {shown(event.get('n'))}: events are numbered 1, 2, 3 ... without gaps"
        return [(f"{where}.n", numbered)]
    kind = event["type"]
    if kind not in MEMBERS:
        return [(f"{where}.type", f"event {number}: {shown(kind)} is no event type")]
    if (kind == "game_created") != (number == 1):
        return [(f"{where}.type", f"event {number} is {kind}: a game's first event, and only it, is game_created")]
    checks, optional = MEMBERS[kind]
    problems = [
        (f"{where}.{member}", f"event {number} ({kind}) has a member {shown(member)} that no {kind} has")
        for member in sorted(set(event) - set(checks) - set(ENVELOPE))
    ]
    for member, check in (*_ENVELOPE_CHECKS.items(), *checks.items()):
        if member not in event:
            if member not in optional:
                problems.append((f"{where}.{member}", f"event {number} ({kind}) has no {member}"))
            continue
        problem = check(event[member])
        if problem is None and member in SEAT_MEMBERS and not event[member] < players:
            problem = f"must be a seat of this {players}-player game (0 to {players - 1}), not {event[member]}"
        if problem is not None:
            problems.append((f"{where}.{member}", f"event {number} ({kind}): {member} {problem}"))
    return problems
