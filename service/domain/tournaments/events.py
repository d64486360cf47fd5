"""A tournament's events and the form each is stored in (:mod:`service.domain.codec`).

Everything a later step needs is decided in an event, never recomputed from what the code does today: the settings
in ``tournament_created``; round robin's groups in ``groups_drawn``; a round's tables, each seat's player and each
game's id in ``round_started`` (so a crash while a round's games are being made leaves a record from which whoever
comes next makes the same games, each once), and in a duplicate round the seed each table size is dealt from.
A game's places arrive in ``tournament_game_finished``; the games a correspondence round's deadline cut short are
settled, with the places they were given, in ``round_closed``.

The events (``type`` and fields, as stored):

- ``tournament_created``: the organiser, the tournament's name, its :class:`~.settings.Settings`;
- ``tournament_entered``: a player, their name and rating at entry, the first round they can be paired in;
- ``tournament_withdrawn``: a player leaves the field, by ``choice`` or after too many ``timeouts``;
- ``tournament_timeout``: a player let a turn of a tournament game time out (counted once per game and turn);
- ``groups_drawn``: round robin's groups, each a list of slots (a player, or ``null`` for a slot nobody fills);
- ``round_started``: its number, its tables, its byes, the deals of a duplicate round, its deadline;
- ``tournament_game_finished``: a game of the round ended, each seat's place (1 is first; ties share a place);
- ``round_closed``: every game of the round has its places; those settled at the deadline are listed with theirs;
- ``tournament_finished``: ``completed`` (the last round closed) or ``too_few_players`` (a round could not start).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from service.domain.codec import WHOLE, Events, Integer, Many, Members, Nullable, OneOf, Row, Text, Time
from service.domain.tournaments.settings import SETTINGS_FORM, Settings

WITHDRAWAL_REASONS = ("choice", "timeouts")
FINISH_REASONS = ("completed", "too_few_players")


@dataclass(frozen=True, slots=True)
class Table:
    """A game of a round: its id (decided here, before the game is made) and who holds each seat (``None``: an AI)."""

    game_id: str
    seats: tuple[str | None, ...]

    @property
    def players(self) -> list[str]:
        return [seat for seat in self.seats if seat is not None]


@dataclass(frozen=True, slots=True)
class Deal:
    """A duplicate round's deal for its tables of ``size`` seats: every such table is dealt from ``seed``."""

    size: int
    seed: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """A game's places, seat by seat (1 is first; tied seats share the better place, as competitions number)."""

    game_id: str
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    type: ClassVar[str] = "tournament_created"
    organiser: str
    name: str
    settings: Settings


@dataclass(frozen=True, slots=True)
class PlayerEntered:
    type: ClassVar[str] = "tournament_entered"
    player_id: str
    name: str
    rating: int
    from_round: int


@dataclass(frozen=True, slots=True)
class PlayerWithdrew:
    type: ClassVar[str] = "tournament_withdrawn"
    player_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class TimeoutRecorded:
    type: ClassVar[str] = "tournament_timeout"
    player_id: str
    game_id: str
    turn: int


@dataclass(frozen=True, slots=True)
class GroupsDrawn:
    type: ClassVar[str] = "groups_drawn"
    groups: tuple[tuple[str | None, ...], ...]


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Round ``number``: its tables (each game made after this event, under its id, by whoever finds it missing),
    the players with a bye, the deals of a duplicate round (empty otherwise) and the deadline of a correspondence
    round (``None``: the round lasts until its games end)."""

    type: ClassVar[str] = "round_started"
    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]
    deals: tuple[Deal, ...]
    deadline: str | None


@dataclass(frozen=True, slots=True)
class GameFinished:
    type: ClassVar[str] = "tournament_game_finished"
    game_id: str
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundClosed:
    type: ClassVar[str] = "round_closed"
    number: int
    settled: tuple[Outcome, ...]


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    type: ClassVar[str] = "tournament_finished"
    reason: str


TournamentEvent = (
    TournamentCreated
    | PlayerEntered
    | PlayerWithdrew
    | TimeoutRecorded
    | GroupsDrawn
    | RoundStarted
    | GameFinished
    | RoundClosed
    | TournamentFinished
)

#: The schema version of a stored tournament event (``v`` in its envelope), for upcasting should they change.
SCHEMA_VERSION = 1


def places_problem(places: tuple[int, ...]) -> str | None:
    """What makes ``places`` no standing (competition numbering: 1, 2, 2, 4), or ``None``."""
    ok = 2 <= len(places) <= 4 and all(p == 1 + sum(1 for q in places if q < p) for p in places)
    return None if ok else f"places {list(places)} are not a standing (1, 2, 2, 4: ties share the better place)"


def _table_problem(table: Table) -> str | None:
    players = table.players
    return "a table seats someone twice" if len(set(players)) != len(players) or not players else None


PLACES = Many(Integer(1), least=2, most=4)
OUTCOME = Members(Outcome, {"game_id": Text(), "places": PLACES}, check=lambda o: places_problem(o.places))

STORED: Events[TournamentEvent] = Events(
    "tournament",
    [
        Members(TournamentCreated, {"organiser": Text(), "name": Text(), "settings": SETTINGS_FORM}),
        Members(PlayerEntered, {"player_id": Text(), "name": Text(), "rating": Integer(), "from_round": Integer(1)}),
        Members(PlayerWithdrew, {"player_id": Text(), "reason": OneOf(WITHDRAWAL_REASONS)}),
        Members(TimeoutRecorded, {"player_id": Text(), "game_id": Text(), "turn": WHOLE}),
        Members(GroupsDrawn, {"groups": Many(Many(Nullable(Text()), least=2), least=1)}),
        Members(
            RoundStarted,
            {
                "number": Integer(1),
                "tables": Many(
                    Members(Table, {"game_id": Text(), "seats": Many(Nullable(Text()), least=2, most=4)}, check=_table_problem)
                ),
                "byes": Many(Text()),
                "deals": Many(Row(Deal, WHOLE)),
                "deadline": Nullable(Time()),
            },
        ),
        Members(GameFinished, {"game_id": Text(), "places": PLACES}, check=lambda e: places_problem(e.places)),
        Members(RoundClosed, {"number": Integer(1), "settled": Many(OUTCOME)}),
        Members(TournamentFinished, {"reason": OneOf(FINISH_REASONS)}),
    ],
)


def event_to_dict(event: TournamentEvent) -> dict[str, Any]:
    """The event as stored (``type`` and its members, as JSON holds them)."""
    return STORED.to_dict(event)


def event_from_dict(data: dict[str, Any]) -> TournamentEvent:
    """A stored tournament event, checked member by member (:class:`~engine.CorruptHistory` for one no event holds)."""
    return STORED.from_dict(data)


def envelope(event: TournamentEvent, *, at: str, by: str) -> str:
    """The stored payload: the event, when it was appended (``at``), who caused it (``by``), its schema version."""
    return STORED.envelope(event, at=at, by=by, v=SCHEMA_VERSION)


def from_envelope(payload: str) -> tuple[TournamentEvent, str]:
    """The event a stored payload holds, and when it was appended."""
    return STORED.from_envelope(payload)
