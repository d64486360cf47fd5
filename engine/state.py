"""The game state and the fold that builds it from events.

``fold(events)`` is the whole game: nothing else ever creates or changes a
state.  Folding is pure from the outside (inputs are never mutated) but
mutates one private copy inside, because copying the state for each of the
hundreds of events in a long game would dominate the cost of every request.

Where a fold finds an event that cannot follow the state (a card that is not
where the event says), it raises :class:`CorruptHistory` instead of building
a wrong state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple, TypeVar, cast

from engine.cards import FULL_MASK, Card, Color
from engine.events import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Destination,
    Effect,
    Event,
    Finish,
    GameFinished,
    GameStarted,
    PlayerEliminated,
    RoundDealt,
    RoundScored,
    RoundWon,
    TurnStarted,
    Variant,
)

#: docs/rules.md 21: the score that ends an advanced game, by number of players.
TARGET_SCORE = {2: 40, 3: 35, 4: 30}
HAND_SIZE = 7
#: docs/rules.md 24: a new round needs this many cards per player (7 in hand, 1 on the palette).
CARDS_PER_PLAYER = HAND_SIZE + 1


class Phase(StrEnum):
    NOT_STARTED = "not_started"
    TURN = "turn"  # a seat is to move
    ROUND_WON = "round_won"  # waiting for ScoreRound (advanced only)
    ROUND_SCORED = "round_scored"  # waiting for DealRound
    FINISHED = "finished"


class CorruptHistory(ValueError):
    """The events do not describe a possible game."""


@dataclass(frozen=True, slots=True)
class Options:
    players: int
    variant: Variant
    action_rules: bool

    @property
    def advanced(self) -> bool:
        return self.variant is Variant.ADVANCED

    @property
    def target(self) -> int:
        return TARGET_SCORE[self.players]


class Turn(NamedTuple):
    """Where the current turn stands (docs/rules.md 32).  (A tuple: one is built per step.)"""

    seat: int
    played: bool = False  # the turn's play (hand to palette) has happened
    pending: Effect | None = None  # an effect still waiting for its choice (take / play / place)


@dataclass(slots=True)
class GameState:
    """Everything about a game.  Card sets are masks; ``deck[-1]`` is the top card."""

    options: Options | None = None
    seed: int | None = None
    custom_deck: tuple[Card, ...] | None = None
    phase: Phase = Phase.NOT_STARTED
    round: int = 0
    hands: list[int] = field(default_factory=list)
    palettes: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)  # cards out of the round, per eliminated seat
    scored: list[int] = field(default_factory=list)  # score piles
    in_round: list[bool] = field(default_factory=list)
    canvas: list[Card] = field(default_factory=list)  # bottom first; the starting card is not one of the 49
    deck: list[Card] = field(default_factory=list)  # bottom first: deck[-1] is drawn next
    turn: Turn | None = None
    first_seat: int | None = None
    round_winner: int | None = None
    winner: int | None = None
    finish: Finish | None = None
    events: int = 0  # how many events were folded in

    @property
    def players(self) -> int:
        return self.options.players if self.options else 0

    @property
    def rule(self) -> Color:
        """The colour of the top canvas card; the starting card is Red (docs/rules.md 12)."""
        return self.canvas[-1].color if self.canvas else Color.RED

    def score(self, seat: int) -> int:
        return sum(c // 7 + 1 for c in _bits(self.scored[seat]))

    def seats_in_round(self) -> list[int]:
        return [s for s, inside in enumerate(self.in_round) if inside]

    def copy(self) -> GameState:
        # Written out rather than dataclasses.replace: every decide() copies once.
        return GameState(
            self.options,
            self.seed,
            self.custom_deck,
            self.phase,
            self.round,
            self.hands.copy(),
            self.palettes.copy(),
            self.out.copy(),
            self.scored.copy(),
            self.in_round.copy(),
            self.canvas.copy(),
            self.deck.copy(),
            self.turn,
            self.first_seat,
            self.round_winner,
            self.winner,
            self.finish,
            self.events,
        )


def _bits(mask: int) -> Iterable[int]:
    while mask:
        top = mask.bit_length() - 1
        yield top
        mask ^= 1 << top


def next_seat_in_round(state: GameState, seat: int) -> int | None:
    """The next seat after ``seat`` in seat order that is still in the round."""
    in_round = state.in_round
    n = len(in_round)
    for step in range(1, n):
        candidate = (seat + step) % n
        if in_round[candidate]:
            return candidate
    return None


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """The state after ``events``, starting from ``state`` (or a new game)."""
    current = state.copy() if state is not None else GameState()
    for event in events:
        _APPLY[type(event)](current, event)
        current.events += 1
    return current


def evolve(state: GameState, event: Event) -> GameState:
    """The state after one more event."""
    return fold((event,), state)


def apply_in_place(state: GameState, event: Event) -> None:
    """Fold one event into ``state`` itself; for code that owns a scratch copy."""
    _APPLY[type(event)](state, event)
    state.events += 1


# --- one function per event ----------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CorruptHistory(message)


def _game_started(s: GameState, e: GameStarted) -> None:
    _require(s.phase is Phase.NOT_STARTED and s.events == 0, "the game has already started")
    _require(2 <= e.players <= 4, f"{e.players} players; Red7 is for 2 to 4 (docs/rules.md 14)")
    s.options = Options(e.players, Variant(e.variant), e.action_rules)
    s.seed = e.seed
    s.custom_deck = e.deck
    n = e.players
    s.hands, s.palettes, s.out, s.scored = [0] * n, [0] * n, [0] * n, [0] * n
    s.in_round = [False] * n


def _round_dealt(s: GameState, e: RoundDealt) -> None:
    _require(s.options is not None and s.phase in (Phase.NOT_STARTED, Phase.ROUND_SCORED), "no deal is due")
    n = s.players
    _require(len(e.palettes) == n and len(e.hands) == n, "the deal does not fit the number of players")
    deck = e.deck
    hands = [hand for hand in e.hands if hand is not None]
    if deck is None or len(hands) != n:
        raise CorruptHistory("a redacted deal cannot be folded")
    dealt = [*e.palettes, *deck, *(c for hand in hands for c in hand)]
    expected = FULL_MASK & ~sum(s.scored)
    _require(
        len(dealt) == expected.bit_count() and sum(1 << c for c in dealt) == expected,
        "the deal does not hold exactly the cards that are not in a score pile",
    )
    s.round = e.round
    s.hands = [sum(1 << c for c in hand) for hand in hands]
    s.palettes = [1 << c for c in e.palettes]
    s.out = [0] * n
    s.in_round = [True] * n
    s.canvas = []
    s.deck = list(reversed(deck))
    s.turn = Turn(e.first_seat)
    s.first_seat = e.first_seat
    s.round_winner = None
    s.phase = Phase.TURN


def _turn_started(s: GameState, e: TurnStarted) -> None:
    _require(s.phase is Phase.TURN and s.in_round[e.seat], f"seat {e.seat} cannot start a turn now")
    s.turn = Turn(e.seat)


def _card_played(s: GameState, e: CardPlayed) -> None:
    turn = s.turn
    _require(turn is not None and turn.seat == e.seat, "a play out of turn")
    bit = 1 << e.card
    _require(bool(s.hands[e.seat] & bit), f"{e.card} is not in seat {e.seat}'s hand")
    s.hands[e.seat] ^= bit
    s.palettes[e.seat] |= bit
    pending = e.effect if e.effect is not Effect.DRAW else None
    s.turn = Turn(e.seat, played=True, pending=pending)


def _card_drawn(s: GameState, e: CardDrawn) -> None:
    _require(bool(s.deck), "a draw from an empty deck")
    card = s.deck.pop()
    _require(e.card is None or e.card == card, f"drew {e.card} but {card} is on top of the deck")
    s.hands[e.seat] |= 1 << card


def _card_taken(s: GameState, e: CardTaken) -> None:
    turn = s.turn
    if turn is None:
        raise CorruptHistory("a take outside a turn")
    bit = 1 << e.card
    _require(bool(s.palettes[e.from_seat] & bit), f"{e.card} is not on seat {e.from_seat}'s palette")
    s.palettes[e.from_seat] ^= bit
    s.deck.append(e.card)
    s.turn = turn._replace(pending=None)


def _card_placed(s: GameState, e: CardPlaced) -> None:
    turn = s.turn
    if turn is None:
        raise CorruptHistory("a place outside a turn")
    bit = 1 << e.card
    _require(bool(s.palettes[e.seat] & bit), f"{e.card} is not on seat {e.seat}'s palette")
    s.palettes[e.seat] ^= bit
    if e.to is Destination.CANVAS:
        s.canvas.append(e.card)
    else:
        s.deck.append(e.card)
    s.turn = turn._replace(pending=None)


def _card_discarded(s: GameState, e: CardDiscarded) -> None:
    bit = 1 << e.card
    _require(bool(s.hands[e.seat] & bit), f"{e.card} is not in seat {e.seat}'s hand")
    s.hands[e.seat] ^= bit
    s.canvas.append(e.card)


def _player_eliminated(s: GameState, e: PlayerEliminated) -> None:
    _require(s.in_round[e.seat], f"seat {e.seat} is already out of the round")
    s.in_round[e.seat] = False
    s.out[e.seat] |= s.hands[e.seat] | s.palettes[e.seat]
    s.hands[e.seat] = 0
    s.palettes[e.seat] = 0


def _round_won(s: GameState, e: RoundWon) -> None:
    s.round_winner = e.seat
    s.turn = None
    s.phase = Phase.ROUND_WON


def _round_scored(s: GameState, e: RoundScored) -> None:
    _require(s.phase is Phase.ROUND_WON and s.round_winner == e.seat, "no round to score")
    mask = sum(1 << c for c in e.cards)
    _require(s.palettes[e.seat] & mask == mask, "scored cards that are not on the winner's palette")
    s.palettes[e.seat] ^= mask
    s.scored[e.seat] |= mask
    s.phase = Phase.ROUND_SCORED


def _game_finished(s: GameState, e: GameFinished) -> None:
    s.winner = e.winner
    s.finish = e.reason
    s.turn = None
    s.phase = Phase.FINISHED


_E = TypeVar("_E", bound=Event)
_Apply = Callable[[GameState, Event], None]


def _on(kind: type[_E], apply: Callable[[GameState, _E], None]) -> tuple[type[Event], _Apply]:
    """One entry of the fold's table, its handler checked against its event class.

    The table hands each handler only events of the class it is filed under
    (``type(event)`` is the key), which a dict's type cannot say: hence the one
    cast, made once at import, never per event.
    """
    return kind, cast(_Apply, apply)


_APPLY: dict[type[Event], _Apply] = dict(
    (
        _on(GameStarted, _game_started),
        _on(RoundDealt, _round_dealt),
        _on(TurnStarted, _turn_started),
        _on(CardPlayed, _card_played),
        _on(CardDrawn, _card_drawn),
        _on(CardTaken, _card_taken),
        _on(CardPlaced, _card_placed),
        _on(CardDiscarded, _card_discarded),
        _on(PlayerEliminated, _player_eliminated),
        _on(RoundWon, _round_won),
        _on(RoundScored, _round_scored),
        _on(GameFinished, _game_finished),
    )
)
