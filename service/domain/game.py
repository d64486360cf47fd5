"""A game as the service knows it: the lobby (seats, options) plus the engine's state.

A game's stream holds two vocabularies.  *Lobby* events (``game_created``,
``seat_taken``, ``seat_left``, ``seat_resigned``, ``turn_timed_out``,
``game_cancelled``, ``game_aborted``, and a finished game's ``rematch_offered``,
``rematch_declined``, ``rematch_started``: :mod:`service.domain.lobby`) are the service's; every other
event is the engine's (see :mod:`engine.events`).  Each stored payload is an
*envelope*: the event's own fields plus ``type``, ``at`` (when it was
appended), ``by`` (who caused it) and ``v`` (the schema version it was
written with; older ones are upcast when read, see :func:`upcast`).  It is
stored as JSON, compactly for engine events (:mod:`service.domain.envelopes`);
:func:`decode` reads every form there has been.

:func:`load` folds envelopes into a :class:`Game`; like the engine's fold it
is the only way a game comes to be.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import (
    EVENT_SCHEMA_VERSION,
    Event,
    GameStarted,
    GameState,
    Phase,
    PlayerEliminated,
    RoundDealt,
    TurnStarted,
    Variant,
    event_from_dict,
    event_to_dict,
    redact,
)
from engine.snapshot import state_from_dict, state_to_dict
from engine.state import CorruptHistory, apply_in_place
from service.domain.envelopes import pack, unpack
from service.domain.lobby import LOBBY_EVENTS, LOBBY_TYPES, LobbyEvent, Seat
from service.domain.lobby import event_from_dict as lobby_event_from_dict
from service.domain.lobby import event_to_dict as lobby_event_to_dict
from service.domain.lobby import fold as lobby_fold

#: The longest name a player may have: what the API takes (``POST /v1/players``) and what a replay file may hold,
#: for a name is shown wherever its seat is named (every sentence of a replay about it).
NAME_LENGTH = 40
#: Not printable text: control characters, format characters (bidi overrides and isolates, zero-width characters,
#: the BOM) and line or paragraph separators.  Others see a name or label as written, so it must look as it reads.
UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


def unprintable(text: str) -> str | None:
    """Why ``text`` is not printable (its first character of :data:`UNPRINTABLE`), or ``None``: letters of any
    script, spaces, punctuation and emoji pass."""
    for char in text:
        if unicodedata.category(char) in UNPRINTABLE:
            return f"must be printable text; U+{ord(char):04X} is a control, format or separator character"
    return None


def name_problem(name: object) -> str | None:
    """What makes ``name`` no player's name (a string of 1 to :data:`NAME_LENGTH` printable characters), or ``None``.

    The one rule for names, whoever brings them: the API's request schemas and the replay checker both ask it.
    """
    if not isinstance(name, str):
        return f"must be a string, not {type(name).__name__}"
    if not 1 <= len(name) <= NAME_LENGTH:
        return f"must be 1 to {NAME_LENGTH} characters long, not {len(name)}"
    return unprintable(name)


#: Upcasters: ``UPCASTERS[v]`` turns an envelope written with schema version ``v`` into ``v + 1``.
UPCASTERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def upcast(envelope: dict[str, Any]) -> dict[str, Any]:
    """An envelope in today's schema, whatever version it was written with."""
    version = envelope.get("v", 1)
    if version > EVENT_SCHEMA_VERSION:
        raise ValueError(f"event schema version {version} is newer than this service ({EVENT_SCHEMA_VERSION})")
    while version < EVENT_SCHEMA_VERSION:
        envelope = UPCASTERS[version](envelope)
        version += 1
        envelope["v"] = version
    return envelope


def envelope(fields: dict[str, Any], *, at: str, by: str) -> str:
    """The stored payload for an event given as a dict with ``type`` (see :mod:`service.domain.envelopes` for its form)."""
    return pack(fields, at=at, by=by, v=EVENT_SCHEMA_VERSION)


def decode(payload: str) -> dict[str, Any]:
    """The envelope a stored payload holds, in today's schema, whichever form and version it was written in."""
    return upcast(unpack(payload))


def engine_envelope(event: Event, *, at: str, by: str) -> str:
    return envelope(event_to_dict(event), at=at, by=by)


def engine_event(data: dict[str, Any]) -> Event:
    """The engine event inside an envelope."""
    return event_from_dict({k: v for k, v in data.items() if k not in ("at", "by", "v", "n")})


@dataclass
class Game:
    id: str
    created_by: str = ""
    created_at: str = ""
    seats: list[Seat] = field(default_factory=list)
    variant: Variant = Variant.ADVANCED
    action_rules: bool = False
    turn_timeout: int | None = None
    timeout_action: str = "fold"
    dealing: str = "random"  # "random" | "seeded" (the creator chose the seed) | "custom" (an explicit deck)
    seed: int = 0
    deck: list[str] | None = None
    join_code: str = ""
    #: Options of how the game came to be and what it counts for (see :class:`service.domain.lobby.GameCreated`).
    listed: bool = False
    rated: bool = False
    days_per_turn: int | None = None
    origin: str = "direct"
    rematch_of: str | None = None
    state: GameState = field(default_factory=GameState)
    version: int = 0
    updated_at: str = ""
    turn_started_at: str | None = None  # when the current turn began (for deadlines)
    cancelled: bool = False  # its creator called it off before it started
    aborted: bool = False  # a player called it off once dealt, before every seat had moved once
    #: The seats that have ended a turn (see :func:`apply_engine`): until all have, a player may abort the game.
    moved: frozenset[int] = frozenset()
    #: The rematch, at a finished game's end: who wants one, who declined, its id once all want it, and whether it
    #: was made (see :mod:`service.domain.lobby`).
    rematch_offers: tuple[int, ...] = ()
    rematch_declined: int | None = None
    rematch: str | None = None
    rematch_started: bool = False
    #: The seats in the order they left the last round dealt, the first out first: the engine's state says who is
    #: out, not when, and the basic game's places are that order (see :meth:`standing`).
    left_round: tuple[int, ...] = ()
    #: Seconds given to the turn now being played (:class:`service.domain.lobby.TimeGiven`); a new turn starts from 0.
    time_given: int = 0
    #: The stored payload of event ``version`` (empty before the first): with the version it names
    #: the history this game was folded from, which a version number alone does not once Redis
    #: has lost writes and numbered other events the same (see :mod:`service.storage.events`).
    head: str = ""

    @property
    def status(self) -> str:
        if self.cancelled:
            return "cancelled"
        if self.aborted:
            return "aborted"
        if self.state.phase is Phase.NOT_STARTED:
            return "waiting"
        return "finished" if self.state.phase is Phase.FINISHED else "active"

    @property
    def over(self) -> bool:
        """Nothing more will be played: the game finished or was called off (cancelled or aborted)."""
        return self.cancelled or self.aborted or self.state.phase is Phase.FINISHED

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for number, seat in enumerate(self.seats):
            if seat.player_id == player_id:
                return number
        return None

    def sight_of(self, player_id: str | None) -> int | None:
        """The seat whose hidden cards the player may see: their own, unless they resigned from it.

        A resigned seat's cards are an AI's, and a player who left could pass them on to someone still playing.
        """
        seat = self.seat_of(player_id)
        return None if seat is None or self.seats[seat].resigned else seat

    def is_turn_of(self, player_id: str | None) -> bool:
        """Whether the player is to move (a resigned player never is: an AI plays that seat)."""
        seat = self.sight_of(player_id)
        return seat is not None and self.seat_to_move() == seat

    def seat_label(self, number: int) -> str | None:
        """Who plays a seat, as people read it; ``None`` for a human seat nobody holds."""
        seat = self.seats[number]
        if seat.resigned:
            return f"{seat.name} (resigned; AI {seat.level})"
        if seat.kind == "ai":
            return f"AI {number} ({seat.level})"
        return seat.name

    def seat_to_move(self) -> int | None:
        """The seat whose turn it is; ``None`` between turns, and once the game is over (an aborted one too)."""
        turn = self.state.turn
        return turn.seat if turn is not None and self.state.phase is Phase.TURN and not self.aborted else None

    def standing(self) -> list[int] | None:
        """The seats in place order once the game is finished (``None`` before): the winner first, then the others
        as the rules order them.

        The basic game (docs/rules.md 20) by how long each stayed in its one round: the last one out second, the
        first one out last.  The advanced game (docs/rules.md 25, the engine's :func:`~engine.game_leader`) by
        points, equal points by the highest card in the score pile; only players who scored nothing are equal
        then, and they follow in seat order.  Resigning changes nothing here: an AI played the seat on, and the
        seat's place is where its cards put it.
        """
        state = self.state
        winner = state.winner
        if state.phase is not Phase.FINISHED or winner is None:
            return None
        seats = range(len(self.seats))
        if self.variant is Variant.ADVANCED:
            return sorted(seats, key=lambda s: (s != winner, -state.score(s), -state.scored[s].bit_length()))
        stayed = [s for s in reversed(self.left_round) if s != winner]
        return [winner, *stayed, *(s for s in seats if s != winner and s not in stayed)]

    def copy(self) -> Game:
        """An independent copy (folding into it leaves this one as it is): its own seats and state; every other field
        is immutable or, like ``deck``, never changed once set, so shared.

        Copied field by field (``__dict__``), not by ``dataclasses.replace``, which calls ``__init__`` with every
        field: a write copies the game twice (the fold it appends, the cache's own), and ``replace`` was a
        twentieth of an action's CPU."""
        game = object.__new__(Game)
        game.__dict__.update(self.__dict__)
        seats = []
        for seat in self.seats:
            copied = object.__new__(Seat)
            copied.__dict__.update(seat.__dict__)
            seats.append(copied)
        game.seats = seats
        game.state = self.state.copy()
        return game

    def to_dict(self) -> dict[str, Any]:
        """A snapshot of the whole game."""
        return {
            "id": self.id,
            "created_by": self.created_by,
            "created_at": self.created_at,
            "seats": [vars(s).copy() for s in self.seats],
            "variant": self.variant.value,
            "action_rules": self.action_rules,
            "turn_timeout": self.turn_timeout,
            "timeout_action": self.timeout_action,
            "dealing": self.dealing,
            "seed": self.seed,
            "deck": self.deck,
            "join_code": self.join_code,
            "listed": self.listed,
            "rated": self.rated,
            "days_per_turn": self.days_per_turn,
            "origin": self.origin,
            "rematch_of": self.rematch_of,
            "state": state_to_dict(self.state),
            "version": self.version,
            "updated_at": self.updated_at,
            "turn_started_at": self.turn_started_at,
            "cancelled": self.cancelled,
            "aborted": self.aborted,
            "moved": sorted(self.moved),
            "rematch_offers": list(self.rematch_offers),
            "rematch_declined": self.rematch_declined,
            "rematch": self.rematch,
            "rematch_started": self.rematch_started,
            "left_round": list(self.left_round),
            "time_given": self.time_given,
            "head": self.head,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """The inverse of :meth:`to_dict`; ``ValueError`` for a snapshot this version cannot use, such as one
        written before games kept ``left_round`` (its loader folds the stream again instead, which also finds which
        seats have moved)."""
        values = dict(data)
        if "left_round" not in values:
            raise ValueError("a snapshot without left_round: written before games kept who left the round when")
        values["seats"] = [Seat(**s) for s in data["seats"]]
        values["variant"] = Variant(data["variant"])
        values["state"] = state_from_dict(data["state"])
        if "moved" in data:
            values["moved"] = frozenset(data["moved"])
        elif values["state"].phase is not Phase.NOT_STARTED:
            values["moved"] = frozenset(range(len(values["seats"])))
        values["rematch_offers"] = tuple(data.get("rematch_offers", ()))
        values["left_round"] = tuple(data["left_round"])
        return cls(**values)


def _check_start(game: Game, event: GameStarted) -> None:
    """A game starts as it was created, once every human seat is taken (as the service starts it)."""
    if any(seat.open for seat in game.seats):
        raise CorruptHistory("game_started: a human seat is still open")
    created = (len(game.seats), game.variant, game.action_rules, game.seed, game.deck, game.dealing == "custom")
    started = (
        event.players,
        event.variant,
        event.action_rules,
        event.seed,
        [str(card) for card in event.deck] if event.deck is not None else None,
        event.custom_deal,
    )
    if created != started:
        raise CorruptHistory("game_started: the options differ from game_created's (players, variant, rules, seed, deck)")


def apply(game: Game, number: int, data: dict[str, Any]) -> None:
    """Fold one stored envelope (already upcast) into ``game``."""
    if data["type"] in LOBBY_TYPES:
        apply_event(game, number, lobby_event_from_dict(data), data["at"])
    else:
        apply_engine(game, number, engine_event(data), data["at"])


def apply_event(game: Game, number: int, event: LobbyEvent | Event, at: str) -> None:
    """Fold one event of either vocabulary, appended at ``at`` as event ``number``, into ``game``."""
    if isinstance(event, LOBBY_EVENTS):
        lobby_fold(game, event, at)
        game.version = number
        game.updated_at = at
    else:
        apply_engine(game, number, event, at)


def folded(game: Game, events: Iterable[LobbyEvent | Event], at: str) -> Game:
    """A copy of ``game`` with ``events`` folded in, as if appended at ``at`` (``game`` itself is left as it was)."""
    after = game.copy()
    for event in events:
        apply_event(after, after.version + 1, event, at)
    return after


def event_envelope(event: LobbyEvent | Event, *, at: str, by: str) -> str:
    """The stored payload of an event of either vocabulary."""
    if isinstance(event, LOBBY_EVENTS):
        return envelope(lobby_event_to_dict(event), at=at, by=by)
    return engine_envelope(event, at=at, by=by)


def apply_engine(game: Game, number: int, event: Event, at: str) -> None:
    """Fold one engine event, appended at ``at`` as event ``number``, into ``game``.

    A seat has *moved* once a turn of its own ended, whatever ended it (a discard, an end of turn, a fold, a
    timeout, an AI playing it): the event after which the seat is no longer the one to move.  (Turns pass from
    one seat to another, and a round's end leaves nobody to move, so no seat's turn ends without that.)
    """
    if isinstance(event, GameStarted):
        _check_start(game, event)
    mover = game.seat_to_move()
    apply_in_place(game.state, event)
    if mover is not None and game.seat_to_move() != mover:
        game.moved = game.moved | {mover}
    if isinstance(event, TurnStarted | RoundDealt):
        game.turn_started_at = at
        game.time_given = 0
    if isinstance(event, RoundDealt):
        game.left_round = ()
    elif isinstance(event, PlayerEliminated):
        game.left_round = (*game.left_round, event.seat)
    game.version = number
    game.updated_at = at


def load(game_id: str, envelopes: Iterable[tuple[int, str]], start: Game | None = None) -> Game:
    """The game after the stored envelopes ``(number, payload)``, from ``start`` or from nothing."""
    game = start if start is not None else Game(game_id)
    for number, payload in envelopes:
        apply(game, number, decode(payload))
        game.head = payload
    return game


def redact_envelope(data: dict[str, Any], seat: int | None, *, is_creator: bool, finished: bool) -> dict[str, Any]:
    """A stored envelope as ``seat`` (``None``: a spectator) may see it; everything once the game is finished.

    The event feeds and the replays both show stored events through this.
    """
    kind = data["type"]
    if kind == "game_created":
        shown = dict(data)
        if not finished:
            shown.pop("seed", None)
            shown.pop("deck", None)
        if not is_creator:
            shown.pop("join_code", None)
        return shown
    if kind in LOBBY_TYPES or finished:
        return data  # nothing is hidden any more: the stored event as it is
    event = redact(engine_event(data), seat, game_over=False)
    return {**event_to_dict(event), "at": data["at"], "by": data["by"], "v": data["v"]}
