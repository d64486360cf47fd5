"""Checking a replay: its content hash, and every recorded state against today's engine.

A replay's events are re-folded through today's engine (after upcasting old
event versions), which rebuilds every step; each recorded state and the
outcome must match.  The deals are checked against the recorded seed (our own
shuffle, so this holds on any Python), and the content hash tells an edited
file from a genuine one.

The sentences that explain each step are prose made from those facts, not
facts: a file whose sentences read otherwise than today's (an older wording,
"the palette's 1 cards") still verifies.  What an import keeps is
:attr:`Verdict.document`, the replay rebuilt from the file's events: the same
facts, today's words, and nothing else the file carried.  So a file can be
refused neither for its wording, nor bring words or members of its own into an
imported replay (a megabyte of padding, say).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine import Card, CorruptHistory, EventFormatError
from engine.cards import ALL_CARDS, FULL_MASK, cards_in
from engine.shuffle import deal, shuffled
from replays.build import FULL, REPLAY_FORMAT, build_replay, content_hash


@dataclass
class Verdict:
    """What verifying found: every problem as a sentence, and the same as ``{field, message}`` (where it is)."""

    ok: bool = True
    problems: list[str] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    steps: int = 0
    #: The document to keep: rebuilt from the file's events (see the module's docstring); ``None`` if it failed.
    document: dict[str, Any] | None = None
    #: How many steps' sentences were retold.
    retold: int = 0

    def fail(self, problem: str, where: str = "") -> None:
        self.ok = False
        self.problems.append(problem)
        self.errors.append({"field": where, "message": problem})


def verify_replay(document: dict[str, Any]) -> Verdict:
    verdict = Verdict()
    if document.get("format") != REPLAY_FORMAT:
        verdict.fail(f"not a {REPLAY_FORMAT} document (format {document.get('format')!r})", "format")
        return verdict
    if document.get("hash") != content_hash(document):
        verdict.fail("the content hash does not match: the file was changed after it was made", "hash")
    if not document.get("complete"):
        verdict.fail("only complete replays (finished games, full perspective) can be verified", "complete")
        return verdict
    shape = _shape_problem(document)
    if shape is not None:
        verdict.fail(shape[1], shape[0])
        return verdict
    stored = [(event["n"], {k: v for k, v in event.items() if k != "n"}) for event in document["events"]]
    try:
        rebuilt = build_replay(document["game_id"], stored, FULL)
    except (CorruptHistory, EventFormatError, KeyError, ValueError, TypeError) as exc:
        verdict.fail(f"the events do not replay: {exc}", "events")
        return verdict
    except Exception as exc:  # a file can be anything: one that trips the rebuild is one that does not verify
        verdict.fail(f"the events do not replay: {type(exc).__name__}: {exc}", "events")
        return verdict
    verdict.steps = len(rebuilt["steps"])
    recorded = document.get("steps", [])
    if len(recorded) != len(rebuilt["steps"]):
        verdict.fail(f"{len(recorded)} steps recorded, {len(rebuilt['steps'])} replayed", "steps")
    for position, (mine, theirs) in enumerate(zip(recorded, rebuilt["steps"], strict=False)):
        if not isinstance(mine, dict) or mine.get("state") != theirs["state"]:
            where = f"steps.{position}.state"
            verdict.fail(f"step {theirs['index']} (event {theirs['n']}, {theirs['type']}): the recorded state differs", where)
        elif mine.get("text") != theirs["text"]:
            verdict.retold += 1
    for where, problem in _outcome_differences(document.get("outcome"), rebuilt["outcome"]):
        verdict.fail(problem, where)
    try:
        _check_deals(document, verdict)
    except Exception as exc:  # the events replayed, but a deal's fields are not what a deal holds
        verdict.fail(f"the deals cannot be checked against the seed: {type(exc).__name__}: {exc}", "events")
    if verdict.ok:
        verdict.document = rebuilt
    return verdict


def _shape_problem(document: dict[str, Any]) -> tuple[str, str] | None:
    """Where and what makes the document not even a replay's shape (before anything is rebuilt from it), or ``None``."""
    if not isinstance(document.get("game_id"), str):
        return "game_id", "game_id is missing or not a string"
    options = document.get("options")
    if not isinstance(options, dict):
        return "options", "options are missing"
    if type(options.get("players")) is not int or not 2 <= options["players"] <= 4:
        return "options.players", "options.players must be 2, 3 or 4"
    if options.get("seed") is not None and type(options["seed"]) is not int:
        return "options.seed", "options.seed must be a whole number"
    events = document.get("events")
    if not isinstance(events, list) or not events:
        return "events", "events are missing"
    for number, event in enumerate(events, start=1):
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return f"events.{number - 1}", f"event {number} is not an event"
        if type(event.get("n")) is not int or event["n"] != number:
            problem = f"event {number} is numbered {event.get('n')!r}: events are numbered 1, 2, 3 ... without gaps"
            return f"events.{number - 1}.n", problem
    if not isinstance(document.get("steps", []), list):
        return "steps", "steps must be a list"
    return None


def _outcome_differences(recorded: Any, replayed: dict[str, Any]) -> list[tuple[str, str]]:
    """Each way the recorded outcome differs from the replayed one, as ``(field, sentence)``: people read these, so
    no dict's repr."""
    if recorded == replayed:
        return []
    if not isinstance(recorded, dict):
        return [("outcome", "the recorded outcome is missing or not an object")]
    return [
        (f"outcome.{key}", f"the outcome's {key} is {_shown(recorded, key)} in the file but {_shown(replayed, key)} replayed")
        for key in sorted(set(recorded) | set(replayed))
        if key not in recorded or key not in replayed or recorded[key] != replayed[key]
    ]


def _shown(values: dict[str, Any], key: str) -> str:
    """A member as JSON writes it (``null``, ``[24, 37]``, ``"round_won"``), or "missing"."""
    return json.dumps(values[key]) if key in values else "missing"


def _check_deals(document: dict[str, Any], verdict: Verdict) -> None:
    """Every deal is the shuffle of the recorded seed (the first one may be an explicit deck)."""
    seed = document["options"].get("seed")
    players = document["options"]["players"]
    custom = document["options"].get("dealing") == "custom"
    scored = 0
    for index, event in enumerate(document["events"]):
        if event["type"] == "round_scored":
            for card in event["cards"]:
                scored |= 1 << Card.parse(card)
        if event["type"] != "round_dealt":
            continue
        number = event["round"]
        if number == 1 and custom:
            continue
        remaining = list(ALL_CARDS) if number == 1 else cards_in(FULL_MASK & ~scored)
        hands, palettes, deck = deal(shuffled(remaining, seed, number), players)
        dealt = (
            [[str(c) for c in hand] for hand in hands],
            [str(c) for c in palettes],
            [str(c) for c in deck],
        )
        if dealt != (event["hands"], event["palettes"], event["deck"]):
            verdict.fail(f"round {number} was not dealt from the recorded seed", f"events.{index}")
