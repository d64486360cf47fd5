"""The replay document: a game's events, every step explained, and the state after each step.

The events are the record; the steps (explanation and state after each event)
are derived from them by the engine, and kept in the document so a viewer
needs no rules of its own and a verifier can check them against today's
engine.  A replay is built from one *perspective*:

- ``FULL``: everything, for finished games (every hand, the deck, the seed);
- a seat number: only what that seat has seen (a game in progress);
- ``None``: a spectator, who sees no hand at all.

The document carries a SHA-256 content hash over its canonical JSON, so an
edited file is told from a genuine one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import (
    ALL_CARDS,
    EVENT_SCHEMA_VERSION,
    Event,
    GameState,
)
from engine.cards import card_names
from engine.rules import leading_seat, qualifying_mask
from replays.explain import explain_text
from service.common.texts import AI_SEATS, DEFAULT, Text, message, render
from service.domain.game import Game, apply, apply_engine, engine_event, redact_envelope, upcast
from service.domain.lobby import LOBBY_TYPES

REPLAY_FORMAT = "red7-replay/1"
FULL = "full"
Perspective = int | str | None  # FULL, a seat, or None for a spectator


#: Members a served replay may carry that are not the game's record, so not under its hash: the seats' ratings
#: (``getReplay`` of a rated game) are the ladder's, and a game that finished earlier but was applied later may
#: still change them after the game is over.  A finished game's decision analysis (``analysis``) is a judgement of the
#: record, computed later, and by a method that may improve: not the record either.
NOT_HASHED = frozenset({"hash", "ratings", "analysis"})


def canonical(document: dict[str, Any]) -> bytes:
    """The bytes the content hash is taken over: the document without its hash (nor its ratings), keys sorted."""
    body = {k: v for k, v in document.items() if k not in NOT_HASHED}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_hash(document: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(document)).hexdigest()


_NAMES = tuple(str(c) for c in ALL_CARDS)


def state_json(state: GameState, perspective: Perspective) -> dict[str, Any]:
    """The table after a step, as ``perspective`` may see it (the deck's order is in the deal events).

    ``canvas`` is bottom card first (empty: only the starting card, whose rule is
    Red); ``leader`` is the seat winning under the rule now, and each seat's
    ``qualifying`` cards are what counts for it, so a viewer needs no rules.
    """
    seats = []
    rule = state.rule
    for seat in range(state.players):
        hand = state.hands[seat]
        shown = perspective in (FULL, seat)
        scored = card_names(state.scored[seat])
        seats.append(
            {
                "in_round": state.in_round[seat],
                "palette": card_names(state.palettes[seat]),
                "qualifying": card_names(qualifying_mask(state.palettes[seat], rule)) if state.in_round[seat] else [],
                "hand": card_names(hand) if shown else None,
                "hand_size": hand.bit_count(),
                "score": sum(int(name[1]) for name in scored),
                "scored": scored,
            }
        )
    turn = state.turn
    return {
        "round": state.round,
        "phase": state.phase.value,
        "rule": str(rule),
        "canvas": [_NAMES[c] for c in state.canvas],
        "canvas_top": _NAMES[state.canvas[-1]] if state.canvas else None,
        "leader": leading_seat(state.palettes, state.in_round, rule) if state.phase.value == "turn" else None,
        "deck_size": len(state.deck),
        "turn": turn.seat if turn is not None else None,
        "pending": turn.pending.value if turn is not None and turn.pending else None,
        "seats": seats,
    }


def acting_seat(event: Event) -> int | None:
    return getattr(event, "seat", None)


@dataclass
class Replay:
    """A replay being built: its header, and its steps as they are folded."""

    game_id: str
    perspective: Perspective
    game: Game
    events: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def names(self, seat: int) -> str:
        label = self.game.seat_label(seat) if seat < len(self.game.seats) else None
        return label or f"seat {seat}"


def build_replay(game_id: str, stored: Iterable[tuple[int, dict[str, Any]]], perspective: Perspective = FULL) -> dict[str, Any]:
    """The whole replay document."""
    return finish(_fold(game_id, stored, perspective))


def _fold(game_id: str, stored: Iterable[tuple[int, dict[str, Any]]], perspective: Perspective) -> Replay:
    stored = [(n, upcast(dict(data))) for n, data in stored]
    finished = any(data["type"] == "game_finished" for _, data in stored)  # a rematch's events may follow the end
    if perspective == FULL and not finished:
        raise ValueError("a full replay is only for a finished game")
    replay = Replay(game_id, perspective, Game(game_id))
    game = replay.game
    for number, data in stored:
        data = {**data, "n": number}
        if data["type"] in LOBBY_TYPES:
            who = replay.names(data["seat"]) if "seat" in data else ""
            apply(game, number, data)
            replay.events.append(_shown(data, perspective, finished))
            if data["type"] == "turn_timed_out":
                code = TIMED_OUT_AI if data.get("action") == "ai" else TIMED_OUT_FOLD
                replay.steps.append(_step(replay, data, None, data.get("seat"), Text(code, {"player": who})))
            elif data["type"] == "seat_resigned":
                text = Text(RESIGNED, {"player": who, "level": data["level"]})
                replay.steps.append(_step(replay, data, None, data["seat"], text))
            elif data["type"] == "seat_left":
                replay.steps.append(_step(replay, data, None, data["seat"], Text(LEFT, {"player": who})))
            elif data["type"] == "game_cancelled":
                replay.steps.append(_step(replay, data, None, None, Text(CANCELLED)))
            elif data["type"] in LOBBY_SENTENCES:
                text = LOBBY_SENTENCES[data["type"]](who, data)
                replay.steps.append(_step(replay, data, None, data.get("seat"), text))
            continue
        event = engine_event(data)
        before = game.state.copy()
        apply_engine(game, number, event, data["at"])
        shown = _shown(data, perspective, finished)
        replay.events.append(shown)
        text = explain_text(engine_event(shown) if perspective != FULL else event, before, game.state, replay.names)
        replay.steps.append(_step(replay, data, event, acting_seat(event), text))
    return replay


TIMED_OUT_AI = message("replay.turn_timed_out.ai", "%(player)s's time ran out: an AI plays the turn.")
TIMED_OUT_FOLD = message("replay.turn_timed_out.fold", "%(player)s's time ran out: the seat folds.")
RESIGNED = message("replay.seat_resigned", "%(player)s resigned: an AI (%(level)s) plays the seat from here.")
LEFT = message("replay.seat_left", "%(player)s left; the seat is open again.")
CANCELLED = message("replay.game_cancelled", "The game was called off before it started.")
ABORTED = message("replay.game_aborted", "%(player)s aborted the game before every seat had moved: it ends with no winner.")
REMATCH_AGREED = message(
    "replay.rematch_offered.agreed", "%(player)s wants a rematch too: every player does, and it starts as game %(game)s."
)
REMATCH_OFFERED = message("replay.rematch_offered", "%(player)s offers a rematch.")
REMATCH_DECLINED = message("replay.rematch_declined", "%(player)s declined a rematch: there will be none.")
REMATCH_STARTED = message("replay.rematch_started", "The rematch started: game %(game)s.")
BEFORE_FIRST = message("replay.before_first_step", "Before the first step.")

#: The sentences of the lobby's events that end a game early or follow its end (``who``: the seat's player).
LOBBY_SENTENCES: dict[str, Callable[[str, dict[str, Any]], Text]] = {
    "game_aborted": lambda who, data: Text(ABORTED, {"player": who}),
    "rematch_offered": lambda who, data: (
        Text(REMATCH_AGREED, {"player": who, "game": data["rematch_id"]})
        if data.get("rematch_id")
        else Text(REMATCH_OFFERED, {"player": who})
    ),
    "rematch_declined": lambda who, data: Text(REMATCH_DECLINED, {"player": who}),
    "rematch_started": lambda who, data: Text(REMATCH_STARTED, {"game": data["rematch_id"]}),
}


def _shown(data: dict[str, Any], perspective: Perspective, finished: bool) -> dict[str, Any]:
    """A stored envelope as the perspective may see it: the feeds' redaction (join codes never shown)."""
    seat = perspective if isinstance(perspective, int) else None
    return {"n": data["n"], **redact_envelope(data, seat, is_creator=False, finished=finished)}


def _step(replay: Replay, data: dict[str, Any], event: Event | None, seat: int | None, text: Text) -> dict[str, Any]:
    """A step: its facts, its sentence in English (``text``) and as a code with parameters (``explanation``, which
    :func:`in_language` renders in another language), and the table after it."""
    return {
        "index": len(replay.steps) + 1,
        "n": data["n"],
        "type": data["type"],
        "seat": seat,
        "at": data["at"],
        "text": render(text, DEFAULT),
        "explanation": text.json(),
        "state": state_json(replay.game.state, replay.perspective),
    }


def header(replay: Replay) -> dict[str, Any]:
    game = replay.game
    state = game.state
    perspective = replay.perspective
    return {
        "format": REPLAY_FORMAT,
        "event_schema": EVENT_SCHEMA_VERSION,
        "game_id": replay.game_id,
        "perspective": perspective if perspective == FULL else ("spectator" if perspective is None else {"seat": perspective}),
        "complete": perspective == FULL,
        "options": {
            "players": len(game.seats),
            "variant": game.variant.value,
            "action_rules": game.action_rules,
            "dealing": game.dealing,
            "target": state.options.target if state.options and state.options.advanced else None,
            "seed": game.seed if perspective == FULL else None,
        },
        "seats": [{"seat": n, "name": replay.names(n), "kind": s.kind, "level": s.level} for n, s in enumerate(game.seats)],
        "created_at": game.created_at,
    }


def finish(replay: Replay) -> dict[str, Any]:
    state = replay.game.state
    outcome = None
    if state.winner is not None:
        outcome = {
            "winner": state.winner,
            "finish": state.finish.value if state.finish else None,
            "scores": [state.score(s) for s in range(state.players)],
            "rounds": state.round,
        }
    document = {**header(replay), "events": replay.events, "steps": replay.steps, "outcome": outcome}
    document["hash"] = content_hash(document)
    return document


def at_range(last: str) -> str:
    """What ``?at=`` may be, said the same way by the query's schema (:data:`AT_RANGE`) and by :func:`state_at`."""
    return f"at is a step number from 0 (the table before the first step) to {last}"


AT_RANGE = at_range("the replay's last step")


def state_at(document: dict[str, Any], index: int, language: str = DEFAULT) -> dict[str, Any]:
    """The step ``index`` (1-based) with its state; 0 is the table before the first step (``state`` null).

    0 is kept for a viewer that steps from the start (a slider's first position): the query's schema, the
    OpenAPI document and this refusal all say 0 to the last step.
    """
    steps: list[dict[str, Any]] = document["steps"]
    if not 0 <= index <= len(steps):
        last = f"{len(steps)}, this replay's last step"
        raise IndexError(f"{at_range(last)}; not {index}")
    if index == 0:
        return {"index": 0, "text": render(Text(BEFORE_FIRST), language), "explanation": Text(BEFORE_FIRST).json(), "state": None}
    return steps[index - 1]


def _text_of(explanation: dict[str, Any]) -> Text:
    params = explanation.get("params", {})
    return Text(explanation["code"], {k: _text_of(v) if isinstance(v, dict) else v for k, v in params.items()})


def _seat_names(document: dict[str, Any], language: str) -> dict[str, str]:
    """Each AI seat's name in ``language``, by the name the document gives it (a player's own name stays as it is)."""
    names = {}
    for number, seat in enumerate(document.get("seats") or []):
        level = seat.get("level")
        if seat.get("kind") == "ai" and level in AI_SEATS and seat.get("name") == f"AI {number} ({level})":
            names[seat["name"]] = render(Text(AI_SEATS[level], {"number": number}), language)
    return names


def _renamed(text: Text, names: dict[str, str]) -> Text:
    """``text`` with each AI seat's name in its parameters said as ``names`` has it (a parameter may list several)."""

    def renamed(value: Any) -> Any:
        if isinstance(value, Text):
            return _renamed(value, names)
        if isinstance(value, str):
            for name, said in names.items():
                value = value.replace(name, said)
        return value

    return Text(text.code, {k: renamed(v) for k, v in text.params.items()})


def in_language(document: dict[str, Any], language: str) -> dict[str, Any]:
    """The replay with each step's ``text`` said in ``language`` (from its ``explanation``, the AI seats' names in it
    too), its hash made anew: the same events read in every language (texts are words: a file in any language
    verifies, ``replays.verify``)."""
    if language == DEFAULT:
        return document
    names = _seat_names(document, language)
    steps = [
        {**step, "text": render(_renamed(_text_of(step["explanation"]), names), language)} if "explanation" in step else step
        for step in document["steps"]
    ]
    translated = {**document, "steps": steps}  # the seats keep their names: data, which the viewer says itself
    translated["hash"] = content_hash(translated)
    return translated
