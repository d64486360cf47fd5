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

Everything else in the file is a fact too, and must be the rebuilt replay's:
each event is what the service writes, member for member (:mod:`replays.shape`:
a player's name by the API's rule, seats of the game, the engine's AI levels),
and the header (options, seats, when it was created) and each step's number,
event, acting seat and time are the rebuilt ones.  A history that could not
have happened is refused with the member at fault named, never kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import EVENT_SCHEMA_VERSION, Card, CorruptHistory, EventFormatError
from engine.cards import ALL_CARDS, FULL_MASK, cards_in
from engine.shuffle import deal, shuffled
from replays.build import FULL, REPLAY_FORMAT, build_replay, content_hash
from replays.shape import Problem, shape_problems, shown
from service.domain.game import NAME_LENGTH, unprintable

#: Members of a step that are facts of the event it is (its text is words, its state is compared on its own).
STEP_FACTS = ("index", "n", "type", "seat", "at")
#: The longest label a seat may have in a file's header: a name and what became of it ("Ana (resigned; AI expert)").
LABEL_LENGTH = NAME_LENGTH + 40


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
        verdict.fail(f"not a {REPLAY_FORMAT} document (format {shown(document.get('format'))})", "format")
        return verdict
    if document.get("hash") != content_hash(document):
        verdict.fail("the content hash does not match: the file was changed after it was made", "hash")
    if not document.get("complete"):
        verdict.fail("only complete replays (finished games, full perspective) can be verified", "complete")
        return verdict
    shape = shape_problems(document)
    if shape:
        for where, problem in shape:
            verdict.fail(problem, where)
        return verdict
    stored = [(event["n"], {k: v for k, v in event.items() if k != "n"}) for event in document["events"]]
    try:
        rebuilt = build_replay(document["game_id"], stored, FULL)
    except (CorruptHistory, EventFormatError, KeyError, ValueError, TypeError) as exc:
        verdict.fail(f"the events do not replay: {_cut(str(exc))}", "events")
        return verdict
    except Exception as exc:  # a file can be anything: one that trips the rebuild is one that does not verify
        verdict.fail(f"the events do not replay: {type(exc).__name__}: {_cut(str(exc))}", "events")
        return verdict
    verdict.steps = len(rebuilt["steps"])
    for where, problem in _header_differences(document, rebuilt):
        verdict.fail(problem, where)
    recorded = document.get("steps", [])
    if len(recorded) != len(rebuilt["steps"]):
        verdict.fail(f"{len(recorded)} steps recorded, {len(rebuilt['steps'])} replayed", "steps")
    for position, (mine, theirs) in enumerate(zip(recorded, rebuilt["steps"], strict=False)):
        differences = _step_differences(position, mine, theirs)
        for where, problem in differences:
            verdict.fail(problem, where)
        if not differences and mine["text"] != theirs["text"]:
            verdict.retold += 1
    for where, problem in _outcome_differences(document.get("outcome"), rebuilt["outcome"]):
        verdict.fail(problem, where)
    try:
        _check_deals(document, verdict)
    except Exception as exc:  # the events replayed, but a deal's fields are not what a deal holds
        verdict.fail(f"the deals cannot be checked against the seed: {type(exc).__name__}: {_cut(str(exc))}", "events")
    if verdict.ok:
        verdict.document = rebuilt
    return verdict


def _cut(message: str, most: int = 200) -> str:
    """An exception's message, bounded: some quote the event they failed on, and a refusal is no echo of the file."""
    return message if len(message) <= most else message[: most - 1] + "…"


def _differs(where: str, what: str, mine: Any, theirs: Any) -> Problem:
    """A fact the file says otherwise than its events replay it, in words (each value cut short)."""
    return where, f"{what} is {shown(mine)} in the file but {shown(theirs)} replayed"


def _same(mine: Any, theirs: Any) -> bool:
    """Equal, and of the same JSON type (Python holds ``1 == 1.0 == True``; JSON does not)."""
    return bool(mine == theirs) and type(mine) is type(theirs)


def _header_differences(document: dict[str, Any], rebuilt: dict[str, Any]) -> list[Problem]:
    """Where the file's header says otherwise than its events (the seats' labels are words: text is all they must be)."""
    problems: list[Problem] = []
    for key in ("game_id", "perspective", "complete", "created_at"):
        if not _same(document.get(key), rebuilt[key]):
            problems.append(_differs(key, key, document.get(key), rebuilt[key]))
    schema = document.get("event_schema")
    if type(schema) is not int or not 1 <= schema <= EVENT_SCHEMA_VERSION:
        problems.append(("event_schema", f"event_schema must be 1 to {EVENT_SCHEMA_VERSION}, not {shown(schema)}"))
    options = document["options"]
    for key in sorted(set(options) | set(rebuilt["options"])):
        if key not in rebuilt["options"] or key not in options or not _same(options[key], rebuilt["options"][key]):
            mine, theirs = shown(options.get(key)) if key in options else "missing", shown(rebuilt["options"].get(key))
            problems.append((f"options.{key}", f"options.{key} is {mine} in the file but {theirs} replayed"))
    seats = document.get("seats")
    if not isinstance(seats, list) or len(seats) != len(rebuilt["seats"]):
        return [*problems, ("seats", f"seats must list the game's {len(rebuilt['seats'])} seats")]
    for number, (mine, theirs) in enumerate(zip(seats, rebuilt["seats"], strict=True)):
        if not isinstance(mine, dict) or set(mine) != set(theirs):
            problems.append((f"seats.{number}", f"seat {number} must be {{seat, name, kind, level}}, not {shown(mine)}"))
            continue
        problems += [
            _differs(f"seats.{number}.{key}", f"seat {number}'s {key}", mine[key], theirs[key])
            for key in ("seat", "kind", "level")
            if not _same(mine[key], theirs[key])
        ]
        name = mine["name"]
        problem = unprintable(name) if isinstance(name, str) and 1 <= len(name) <= LABEL_LENGTH else "must be a short text"
        if problem is not None:
            problems.append((f"seats.{number}.name", f"seat {number}'s name {problem}, not {shown(name)}"))
    return problems


def _step_differences(position: int, mine: Any, theirs: dict[str, Any]) -> list[Problem]:
    """Where a recorded step is not the replayed one: its facts and state must be the same; its text must be text."""
    where, label = f"steps.{position}", f"step {theirs['index']} (event {theirs['n']}, {theirs['type']})"
    if not isinstance(mine, dict):
        return [(where, f"{label} is not a step")]
    problems = [
        _differs(f"{where}.{key}", f"{label}: its {key}", mine.get(key), theirs[key])
        for key in STEP_FACTS
        if not _same(mine.get(key), theirs[key])
    ]
    if mine.get("state") != theirs["state"]:
        problems.append((f"{where}.state", f"{label}: the recorded state differs"))
    if not isinstance(mine.get("text"), str):
        problems.append((f"{where}.text", f"{label}: its text must be a sentence (a string), not {shown(mine.get('text'))}"))
    if "explanation" in mine and not _is_text(mine["explanation"]):
        problems.append(
            (f"{where}.explanation", f"{label}: its explanation must be a code and its params, not {shown(mine['explanation'])}")
        )
    return problems


def _is_text(value: Any) -> bool:
    """A step's ``explanation``: ``{"code": ..., "params": {...}}`` (words, like its text: its content is not compared)."""
    return isinstance(value, dict) and isinstance(value.get("code"), str) and isinstance(value.get("params"), dict)


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
    return shown(values[key], 80) if key in values else "missing"


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
