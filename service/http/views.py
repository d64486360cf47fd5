"""The JSON a client gets for a game: built from the engine's player-scoped view.

Nothing here decides what a seat may see — :func:`engine.view` does; this
module only names things for the API (see the contract in the README).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from engine import Card, Destination, LegalStep, step_to_dict, view
from engine.cards import card_names
from engine.rules import leading_seat, qualifying_mask
from engine.steps import Discard, EndTurn, Place, Play, Step, Take
from service.application.calendars import TurnClock
from service.application.erasure import DELETED_NAME
from service.application.players import PlayerTag
from service.common.texts import (
    AI_SEATS,
    DAYS,
    DEFAULT,
    RESIGNED_SEATS,
    Text,
    count,
    message,
    render,
    rule,
    rule_description,
)
from service.domain.game import Game
from service.domain.lobby import every_seat_moved

#: What the views know of the players in a game's seats, by id (:meth:`PlayerService.tags`): their handles, and
#: whose accounts were deleted.  A view rendered without it shows no handle.
Tags = Mapping[str, PlayerTag]


def _names(cards: tuple[Card, ...]) -> list[str]:
    return [str(c) for c in cards]


def seated_ids(game: Game) -> set[str]:
    """The players in the game's seats (those who resigned too): whose tags a view of it needs."""
    return {seat.player_id for seat in game.seats if seat.player_id}


def seat_name(game: Game, number: int, tags: Tags | None = None) -> str:
    """Who plays a seat, as people read it: a deleted account's seat is "deleted player" (its id stays)."""
    seat = game.seats[number]
    tag = tags.get(seat.player_id) if tags and seat.player_id else None
    if tag is not None and tag.deleted:
        return f"{DELETED_NAME} (resigned; AI {seat.level})" if seat.resigned else DELETED_NAME
    return game.seat_label(number) or f"open seat {number}"


def spoken_seat(game: Game, number: int, tags: Tags | None = None) -> str | Text:
    """Who plays a seat, as a sentence says it: :func:`seat_name`, with an AI's and a resigned player's words as a
    text (so a step read in Polish names "AI 1 (greedy)" in Polish); a player's own name stays as they wrote it."""
    seat = game.seats[number]
    tag = tags.get(seat.player_id) if tags and seat.player_id else None
    name = DELETED_NAME if tag is not None and tag.deleted else seat.name
    if seat.resigned and seat.level in RESIGNED_SEATS:
        return Text(RESIGNED_SEATS[seat.level], {"name": name})
    if seat.kind == "ai" and not seat.resigned and seat.level in AI_SEATS:
        return Text(AI_SEATS[seat.level], {"number": number})
    return seat_name(game, number, tags)


def seat_handle(game: Game, number: int, tags: Tags | None = None) -> str | None:
    """The handle of the player in a seat, if they have one (their handle now: it may have changed since)."""
    player_id = game.seats[number].player_id
    tag = tags.get(player_id) if tags and player_id else None
    return tag.handle if tag is not None else None


STEP_PLAY = message("step.play", "Play %(card)s to your palette.")
STEP_DISCARD = message("step.discard", "Discard %(card)s to the canvas: the rule becomes %(rule)s.")
STEP_DISCARD_DRAW = message(
    "step.discard.draw", "Discard %(card)s to the canvas: the rule becomes %(rule)s; then draw a card from the deck."
)
STEP_DISCARD_NO_DRAW = message(
    "step.discard.no_draw", "Discard %(card)s to the canvas: the rule becomes %(rule)s; do not draw the card you may draw."
)
STEP_TAKE = message("step.take", "Take %(card)s from %(player)s's palette and put it face down on top of the deck.")
STEP_PLACE_CANVAS = message("step.place.canvas", "Lay %(card)s from your palette on the canvas: the rule becomes %(rule)s.")
STEP_PLACE_DECK = message("step.place.deck", "Put %(card)s from your palette face down on top of the deck.")
STEP_END_TURN = message("step.end_turn", "End your turn without discarding.")
STEP_FOLD = message("step.fold", "Fold: leave the round.")
DAYS_PER_TURN = message("time.days_per_turn", "%(days)s per turn")


def step_text(step: Step, names: Callable[[int], str | Text]) -> Text:
    """What a step does, as a text (docs/rules.md 15-17, 22, 27, 30); ``names``: who plays a seat."""
    match step:
        case Play(card=card):
            return Text(STEP_PLAY, {"card": str(card)})
        case Discard(card=card, draw=draw):
            return Text(STEP_DISCARD if draw else STEP_DISCARD_NO_DRAW, {"card": str(card), "rule": rule(str(card.color))})
        case Take(seat=seat, card=card):
            return Text(STEP_TAKE, {"card": str(card), "player": names(seat)})
        case Place(card=card, to=Destination.CANVAS):
            return Text(STEP_PLACE_CANVAS, {"card": str(card), "rule": rule(str(card.color))})
        case Place(card=card):
            return Text(STEP_PLACE_DECK, {"card": str(card)})
        case EndTurn():
            return Text(STEP_END_TURN)
    return Text(STEP_FOLD)


def legal_step_json(option: LegalStep, names: Callable[[int], str | Text] = str, language: str = DEFAULT) -> dict[str, Any]:
    """A legal step as the view lists it.  Built once per step, language and (for a take) name of the seat it takes
    from: the mover's view lists every legal step each time it is rendered, after every move, and the same few
    recur (their JSON was 40 % of rendering a mover's view: 77 µs a view before, 54 after).  Each caller gets a dict
    of its own; its ``description`` is shared, as it never changes."""
    taken_from = names(option.step.seat) if isinstance(option.step, Take) else None
    return dict(_legal_step_json(option, _frozen(taken_from), language))


#: A seat's name as the step cache keys it: the name, or a text's code and its parameters (a text's are a dict).
_FrozenName = str | tuple[str, tuple[tuple[str, Any], ...]] | None


def _frozen(name: str | Text | None) -> _FrozenName:
    return (name.code, tuple(sorted(name.params.items()))) if isinstance(name, Text) else name


def _thawed(name: _FrozenName) -> str | Text:
    return Text(name[0], dict(name[1])) if isinstance(name, tuple) else name or ""


@lru_cache(maxsize=2048)
def _legal_step_json(option: LegalStep, taken_from: _FrozenName, language: str) -> dict[str, Any]:
    text = step_text(option.step, lambda _: _thawed(taken_from))
    if isinstance(option.step, Discard) and option.grants_draw and option.step.draw:
        text = Text(STEP_DISCARD_DRAW, text.params)
    return {
        **step_to_dict(option.step),
        "can_win": option.can_win,
        "eliminates": option.eliminates,
        "grants_draw": option.grants_draw,
        "draws": option.draws,
        "ends_turn": option.ends_turn,
        "description": {**text.json(), "text": render(text, language)},
    }


def _time(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def deadline(game: Game, clock: TurnClock | None = None) -> str | None:
    """When the current turn times out, if the game has a turn timeout: the clock's (with the mover's calendar), or,
    without one, the turn's start plus its limit and the time given."""
    if clock is not None:
        return _time(clock.deadline)
    if not game.turn_timeout or game.turn_started_at is None or game.seat_to_move() is None:
        return None
    started = datetime.fromisoformat(game.turn_started_at.replace("Z", "+00:00"))
    return _time(started + timedelta(seconds=game.turn_timeout + game.time_given))


def time_left(clock: TurnClock | None) -> int | None:
    return None if clock is None or clock.left is None else int(clock.left)


def _localized(text: Text, language: str) -> dict[str, Any]:
    return {**text.json(), "text": render(text, language)}


def game_json(
    game: Game, player_id: str | None, tags: Tags | None = None, clock: TurnClock | None = None, language: str = DEFAULT
) -> dict[str, Any]:
    """``GET /v1/games/{id}`` for ``player_id`` (``None``: a spectator); ``tags``: of the players seated; ``clock``: the
    turn's clock and who is on vacation (:meth:`GameService.clock_of`); its texts in ``language``."""
    away = clock.away if clock is not None else {}
    seat = game.seat_of(player_id)
    out: dict[str, Any] = {
        "id": game.id,
        "version": game.version,
        "status": game.status,
        "variant": game.variant.value,
        "action_rules": game.action_rules,
        "dealing": game.dealing,
        "custom_dealt": game.dealing == "custom",
        "turn_timeout": game.turn_timeout,
        "timeout_action": game.timeout_action,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        **options_json(game),
        "abortable": abortable(game),
        "rematch_offers": list(game.rematch_offers),
        "rematch_declined": game.rematch_declined,
        "time_control": (
            _localized(Text(DAYS_PER_TURN, {"days": count(game.days_per_turn, DAYS)}), language) if game.days_per_turn else None
        ),
    }
    if player_id is not None and player_id == game.created_by and game.status == "waiting":
        out["join_code"] = game.join_code
    seats: list[dict[str, Any]] = [
        {
            "seat": number,
            "name": seat_name(game, number, tags),
            "handle": seat_handle(game, number, tags),
            "kind": s.kind,
            "level": s.level,
            "player_id": s.player_id,
            "open": s.open,
            "resigned": s.resigned,
            "vacation_until": _time(away.get(number)),
        }
        for number, s in enumerate(game.seats)
    ]
    if game.status in ("waiting", "cancelled"):  # nothing dealt
        for entry in seats:
            entry.update(in_round=False, palette=[], qualifying=[], hand_size=0, score=0, scored=[])
        out.update(
            phase=game.status,
            round=0,
            rule=None,
            rule_description=None,
            leader=None,
            canvas=[],
            deck_size=None,
            target=None,
            turn=None,
            seats=seats,
            legal_steps=[],
            round_winner=None,
            winner=None,
            finish=None,
            standing=None,
        )
        if seat is not None:
            out["you"] = {"seat": seat, "hand": []}
        return out

    seen = view(game.state, game.sight_of(player_id))

    def names(number: int) -> str | Text:
        return spoken_seat(game, number, tags)

    state = game.state  # palettes and who is in the round are public: who leads is anyone's to know
    for number, (entry, s) in enumerate(zip(seats, seen.seats, strict=True)):
        entry.update(
            in_round=s.in_round,
            palette=_names(s.palette),
            qualifying=card_names(qualifying_mask(state.palettes[number], state.rule)) if s.in_round else [],
            hand_size=s.hand_size,
            score=s.score,
            scored=_names(s.scored),
        )
    turn = None
    if seen.turn is not None:
        turn = {
            "seat": seen.turn.seat,
            "played": seen.turn.played,
            "pending": None if seen.turn.pending is None else seen.turn.pending.value,
            "deadline": deadline(game, clock),
            "time_left": time_left(clock),
            "paused_until": _time(clock.paused_until) if clock is not None else None,
        }
    aborted = game.status == "aborted"  # the table as it was left: nobody's turn, nothing to do
    out.update(
        phase="aborted" if aborted else seen.phase.value,
        round=seen.round,
        rule=str(seen.rule),
        rule_description=_localized(rule_description(str(seen.rule)), language),
        leader=leading_seat(state.palettes, state.in_round, state.rule) if seen.phase.value == "turn" and not aborted else None,
        canvas=_names(seen.canvas),
        deck_size=seen.deck_size,
        target=seen.target,
        turn=None if aborted else turn,
        seats=seats,
        legal_steps=[] if aborted else [legal_step_json(option, names, language) for option in seen.legal],
        round_winner=seen.round_winner,
        winner=seen.winner,
        finish=None if seen.finish is None else seen.finish.value,
        standing=game.standing(),
    )
    if seat is not None:  # a resigned player sees no hand: the seat is an AI's now
        out["you"] = {"seat": seat, "hand": [] if seen.hand is None else _names(seen.hand)}
    return out


def options_json(game: Game) -> dict[str, Any]:
    """How a game came to be and what it counts for, in every view of it."""
    return {
        "listed": game.listed,
        "rated": game.rated,
        "days_per_turn": game.days_per_turn,
        "origin": game.origin,
        "rematch_of": game.rematch_of,
        "rematch": game.rematch,
    }


def abortable(game: Game) -> bool:
    """Whether its players may still abort it: dealt, and not every seat has moved once."""
    return game.status == "active" and not every_seat_moved(game)


def summary_json(game: Game, player_id: str, tags: Tags | None = None, clock: TurnClock | None = None) -> dict[str, Any]:
    """A line of ``GET /v1/players/me/games``; ``tags``: of the players seated; ``clock``: the game's."""
    seat = game.seat_of(player_id)
    return {
        "id": game.id,
        "status": game.status,
        "version": game.version,
        "your_seat": seat,
        "your_turn": game.is_turn_of(player_id),
        "round": game.state.round,
        "variant": game.variant.value,
        "players": len(game.seats),
        "seats": [seat_name(game, n, tags) for n in range(len(game.seats))],
        "handles": [seat_handle(game, n, tags) for n in range(len(game.seats))],
        "winner": game.state.winner,
        "deadline": deadline(game, clock),
        "time_left": time_left(clock),
        "updated_at": game.updated_at,
        **options_json(game),
    }


def open_table_json(game: Game, rating: int, player_id: str) -> dict[str, Any]:
    """A line of ``GET /v1/games``: a listed table with a human seat open."""
    return {
        "id": game.id,
        "created_at": game.created_at,
        "creator": next((s.name for s in game.seats if s.player_id == game.created_by), None) or "",
        "variant": game.variant.value,
        "action_rules": game.action_rules,
        "players": len(game.seats),
        "seats": [game.seat_label(n) for n in range(len(game.seats))],
        "open_seats": [n for n, seat in enumerate(game.seats) if seat.open],
        "turn_timeout": game.turn_timeout,
        "days_per_turn": game.days_per_turn,
        "timeout_action": game.timeout_action,
        "rated": game.rated,
        "rating": rating,
        "your_seat": game.seat_of(player_id),
    }
