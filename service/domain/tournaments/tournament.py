"""A tournament as its events leave it (the fold of its stream), and the fold itself.

The fold trusts nothing it is given: an event that could not have been decided where it stands (a second entry, a
game finished that no round holds, a round started before the last one closed) is
:class:`~engine.CorruptHistory`, named, as every aggregate of ours treats a history no decision of ours could have
written.  Standings are not kept here: they are computed from the rounds' tables and places on each read
(:mod:`service.domain.tournaments.standings`), so that what players see always equals a recomputation from the games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import CorruptHistory
from service.domain.tournaments.events import (
    Deal,
    GameFinished,
    GroupsDrawn,
    PlayerEntered,
    PlayerWithdrew,
    RoundClosed,
    RoundStarted,
    Table,
    TimeoutRecorded,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    from_envelope,
    places_problem,
)
from service.domain.tournaments.settings import Settings


@dataclass
class Entrant:
    """A player in the field: their name and rating at entry, the first round they can be paired in, the order they
    entered in (the last tie-break), and whether and why they left (``None``: still in)."""

    player_id: str
    name: str
    rating: int
    from_round: int
    order: int
    withdrawn: str | None = None


@dataclass
class Round:
    """A round as its events leave it: its tables and byes, each finished game's places, those settled at the
    deadline, and whether it is closed."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]
    deals: tuple[Deal, ...]
    deadline: str | None
    results: dict[str, tuple[int, ...]] = field(default_factory=dict)
    settled: tuple[str, ...] = ()
    closed: bool = False

    def table(self, game_id: str) -> Table | None:
        return next((table for table in self.tables if table.game_id == game_id), None)

    @property
    def running(self) -> list[Table]:
        """The games of the round without places yet."""
        return [table for table in self.tables if table.game_id not in self.results]

    def seed_for(self, size: int) -> int | None:
        """The seed every table of ``size`` seats is dealt from in a duplicate round (``None``: dealt at random)."""
        return next((deal.seed for deal in self.deals if deal.size == size), None)


@dataclass
class Tournament:
    """A tournament as its events leave it."""

    id: str
    version: int = 0
    #: The stored payload of event ``version``: the history this fold came from (see :mod:`service.storage.events`).
    head: str = ""
    created_at: str = ""
    updated_at: str = ""
    organiser: str = ""
    name: str = ""
    settings: Settings | None = None
    entrants: dict[str, Entrant] = field(default_factory=dict)
    #: Each player's timed-out turns, as (game, turn), each counted once.
    timeouts: dict[str, set[tuple[str, int]]] = field(default_factory=dict)
    groups: tuple[tuple[str | None, ...], ...] = ()
    rounds: list[Round] = field(default_factory=list)
    finished: str | None = None

    @property
    def terms(self) -> Settings:
        """The settings of a tournament that exists (a fold past its first event always has them)."""
        if self.settings is None:
            raise CorruptHistory("the tournament was never created")
        return self.settings

    @property
    def started(self) -> int:
        """How many rounds have started."""
        return len(self.rounds)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def active(self, round_number: int) -> list[Entrant]:
        """Who can be paired in ``round_number``: entered in time for it and not withdrawn, in the order of entry."""
        return [e for e in self.entrants.values() if e.withdrawn is None and e.from_round <= round_number]

    def in_field(self) -> list[Entrant]:
        """Everyone not withdrawn, in the order of entry (what ``max_players`` counts)."""
        return [e for e in self.entrants.values() if e.withdrawn is None]

    def round_of(self, game_id: str) -> Round | None:
        return next((r for r in self.rounds if r.table(game_id) is not None), None)


def apply(tournament: Tournament, number: int, event: TournamentEvent, at: str) -> None:
    """Fold event ``number``, appended at ``at``, into ``tournament``; one that cannot happen there is corrupt history."""
    if number != tournament.version + 1:
        raise CorruptHistory(f"tournament event {number} follows event {tournament.version}")
    if isinstance(event, TournamentCreated):
        if tournament.version:
            raise CorruptHistory("tournament_created: the tournament exists already")
        tournament.organiser, tournament.name, tournament.settings = event.organiser, event.name, event.settings
        tournament.created_at = at
    elif not tournament.version:
        raise CorruptHistory(f"{event.type}: no tournament was created")
    elif tournament.finished is not None:
        raise CorruptHistory(f"{event.type}: the tournament is over")
    else:
        _apply(tournament, event)
    tournament.version, tournament.updated_at = number, at


def _apply(t: Tournament, event: TournamentEvent) -> None:
    if isinstance(event, PlayerEntered):
        if event.player_id in t.entrants:
            raise CorruptHistory(f"tournament_entered: {event.player_id} entered already")
        t.entrants[event.player_id] = Entrant(event.player_id, event.name, event.rating, event.from_round, len(t.entrants))
    elif isinstance(event, PlayerWithdrew):
        entrant = t.entrants.get(event.player_id)
        if entrant is None or entrant.withdrawn is not None:
            raise CorruptHistory(f"tournament_withdrawn: {event.player_id} is not in the field")
        entrant.withdrawn = event.reason
    elif isinstance(event, TimeoutRecorded):
        if event.player_id not in t.entrants or t.round_of(event.game_id) is None:
            raise CorruptHistory(f"tournament_timeout: {event.player_id} in {event.game_id} is no tournament game's")
        t.timeouts.setdefault(event.player_id, set()).add((event.game_id, event.turn))
    elif isinstance(event, GroupsDrawn):
        if t.groups or t.rounds:
            raise CorruptHistory("groups_drawn: the groups are drawn already")
        t.groups = event.groups
    elif isinstance(event, RoundStarted):
        _start(t, event)
    elif isinstance(event, GameFinished):
        found = t.current
        table = found.table(event.game_id) if found is not None else None
        if found is None or table is None or found.closed or event.game_id in found.results:
            raise CorruptHistory(f"tournament_game_finished: {event.game_id} is no running game of the round")
        if len(event.places) != len(table.seats):
            raise CorruptHistory(f"tournament_game_finished: {len(event.places)} places for {len(table.seats)} seats")
        found.results[event.game_id] = event.places
    elif isinstance(event, RoundClosed):
        _close(t, event)
    elif isinstance(event, TournamentFinished):
        t.finished = event.reason


def _start(t: Tournament, event: RoundStarted) -> None:
    if event.number != t.started + 1 or (t.current is not None and not t.current.closed):
        raise CorruptHistory(f"round_started: round {event.number} after {t.started} rounds, the last one open")
    seated = [p for table in event.tables for p in table.players] + list(event.byes)
    if len(set(seated)) != len(seated) or any(p not in t.entrants for p in seated):
        raise CorruptHistory(f"round_started: round {event.number} seats a player twice, or one not entered")
    games = [table.game_id for table in event.tables]
    if len(set(games)) != len(games) or any(t.round_of(game) is not None for game in games):
        raise CorruptHistory(f"round_started: round {event.number} names a game twice")
    t.rounds.append(Round(event.number, event.tables, event.byes, event.deals, event.deadline))


def _close(t: Tournament, event: RoundClosed) -> None:
    found = t.current
    if found is None or found.number != event.number or found.closed:
        raise CorruptHistory(f"round_closed: round {event.number} is not the open round")
    for outcome in event.settled:
        table = found.table(outcome.game_id)
        problem = places_problem(outcome.places)
        if table is None or outcome.game_id in found.results or problem or len(outcome.places) != len(table.seats):
            raise CorruptHistory(f"round_closed: {outcome.game_id} is no running game of the round, or its places")
        found.results[outcome.game_id] = outcome.places
    if found.running:
        raise CorruptHistory(f"round_closed: round {event.number} has games without places")
    found.settled, found.closed = tuple(o.game_id for o in event.settled), True


def fold(tournament_id: str, stored: Sequence[tuple[int, str]]) -> Tournament:
    """A tournament from its stored events, ``(number, payload)``, oldest first."""
    tournament = Tournament(tournament_id)
    for number, payload in stored:
        event, at = from_envelope(payload)
        apply(tournament, number, event, at)
        tournament.head = payload
    return tournament
