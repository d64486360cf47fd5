"""A tournament's commands and the decision: ``decide(tournament, command, now)`` gives events or a typed refusal.

Pure, as challenges are: nothing here reads a clock (``now`` is an argument) or draws a random number (a round's
game ids and a duplicate round's seed come in the command, decided once by the caller and recorded in the event,
so that a round started twice, or a crash half-way through making its games, makes every game once, under the
same id).  A command already done decides nothing (``[]``): a round started again, a game's end told twice, a
timeout counted twice, a withdrawal repeated.  A command that cannot be done is refused with a stable code
(:mod:`service.common.errors`); entering twice is refused (the second entry would carry another rating).

What a decision adds on its own:

- the last game of a round to finish closes the round, and the last round's close finishes the tournament;
- a player's ``timeouts_to_withdraw``-th timed-out turn withdraws them (their running games play on with an AI:
  the game's own rule for a seat left);
- a round that cannot start for want of players (fewer than ``min_players`` at the first, fewer than two later)
  finishes the tournament (``too_few_players``).

**Settlement at a deadline.**  A correspondence round with ``round_days`` has a deadline.  At or after it,
:class:`SettleRound` closes the round, giving every game still running the places of its *current standing*, which
the caller reads from the game with :func:`service.domain.tournaments.settlement.current_places` (the ladders'
reading of a standing, applied to a game not over: in the advanced game points scored so far, rule 25 breaking
ties; in the basic game the players still in the round ahead of those out of it; a forfeited seat last).  The places
are recorded in ``round_closed``; the game may play on, but its later end changes nothing in the tournament.

**Duplicate deals.**  Each table size of a duplicate round is dealt from the seed ``splitmix64(seed + size)``
(mod 2⁶⁴) of the command's ``seed``, recorded in the round's event; seats are turned by ``seat_rotation``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.common.errors import NotFound, Refused
from service.domain.tournaments import pairing
from service.domain.tournaments.events import (
    Deal,
    GameFinished,
    GroupsDrawn,
    Outcome,
    PlayerEntered,
    PlayerWithdrew,
    RoundClosed,
    RoundStarted,
    Table,
    TimeoutRecorded,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    places_problem,
)
from service.domain.tournaments.settings import Settings, format_time, parse_time, settings_problem
from service.domain.tournaments.standings import byes_had, met, swiss_order
from service.domain.tournaments.tournament import Round, Tournament

_MASK = 2**64 - 1


@dataclass(frozen=True, slots=True)
class Create:
    organiser: str
    name: str
    settings: Settings


@dataclass(frozen=True, slots=True)
class Enter:
    """A player enters with their rating now and their record: of their last ``counted`` games, ``finished`` were
    finished rather than lost on time (what the ``min_finished_percent`` gate reads)."""

    player_id: str
    name: str
    rating: int
    finished: int = 0
    counted: int = 0


@dataclass(frozen=True, slots=True)
class Withdraw:
    player_id: str


@dataclass(frozen=True, slots=True)
class RecordTimeout:
    """A player let turn ``turn`` of a tournament game time out."""

    player_id: str
    game_id: str
    turn: int


@dataclass(frozen=True, slots=True)
class StartRound:
    """Start round ``number``: ``game_ids`` are fresh ids for its games (one per active player always suffices:
    :func:`ids_needed`), ``seed`` the seed a duplicate round's deals are drawn from."""

    number: int
    game_ids: Sequence[str]
    seed: int = 0


@dataclass(frozen=True, slots=True)
class FinishGame:
    game_id: str
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SettleRound:
    """Close round ``number`` at its deadline, every game still running given its current standing's places."""

    number: int
    settled: tuple[Outcome, ...]


TournamentCommand = Create | Enter | Withdraw | RecordTimeout | StartRound | FinishGame | SettleRound


def status(t: Tournament, now: datetime) -> str:
    """Where the tournament stands: ``announced`` (entries not open yet), ``entering``, ``starting`` (entries closed,
    no round yet), ``playing``, ``finished``."""
    s = t.terms
    if t.finished is not None:
        return "finished"
    if t.rounds:
        return "playing"
    if now < parse_time(s.entries_open):
        return "announced"
    return "entering" if now < parse_time(s.entries_close) else "starting"


def ids_needed(t: Tournament) -> int:
    """How many game ids a :class:`StartRound` needs at most: every table holds one active player at least."""
    return max(1, len(t.in_field()))


def decide(t: Tournament, command: TournamentCommand, now: datetime) -> list[TournamentEvent]:
    """The events ``command`` makes on ``t`` at ``now`` (``[]``: done already), or a refusal with a stable code.
    ``t`` is not changed."""
    if isinstance(command, Create):
        return _create(t, command, now)
    if not t.version:
        raise NotFound("tournament_not_found", f"There is no tournament {t.id}.")
    if t.finished is not None:
        if isinstance(command, RecordTimeout | FinishGame | SettleRound | StartRound):
            return []  # it is over: a late report changes nothing
        raise Refused("tournament_over", "The tournament is over.")
    if isinstance(command, Enter):
        return _enter(t, command, now)
    if isinstance(command, Withdraw):
        return _withdraw(t, command)
    if isinstance(command, RecordTimeout):
        return _timeout(t, command)
    if isinstance(command, StartRound):
        return _start(t, command, now)
    if isinstance(command, FinishGame):
        return _finish(t, command)
    return _settle(t, command, now)


def _create(t: Tournament, command: Create, now: datetime) -> list[TournamentEvent]:
    if t.version:
        raise Refused("tournament_exists", f"The tournament {t.id} exists already.")
    problem = settings_problem(command.settings)
    if problem is not None:
        raise Refused("invalid_tournament_settings", f"These settings make no tournament: {problem}.", problem=problem)
    if parse_time(command.settings.entries_close) <= now:
        raise Refused("invalid_tournament_settings", "Entries close after the tournament is made.", problem="entries_close")
    if not command.name.strip() or len(command.name) > 80:
        raise Refused("invalid_tournament_settings", "A tournament's name has 1 to 80 characters.", problem="name")
    return [TournamentCreated(command.organiser, command.name, command.settings)]


def _enter(t: Tournament, command: Enter, now: datetime) -> list[TournamentEvent]:
    s = t.terms
    if not command.player_id or not command.name:
        raise Refused(
            "invalid_request",
            "An entry names its player.",
            errors=[{"field": "player", "message": "an id and a name", "location": "json"}],
        )
    entrant = t.entrants.get(command.player_id)
    if entrant is not None:
        if entrant.withdrawn is not None:
            raise Refused("tournament_withdrawn", "You withdrew from this tournament; a withdrawal is final.")
        raise Refused("already_entered", "You have entered this tournament already.")
    if now < parse_time(s.entries_open):
        raise Refused("entries_not_open", f"Entries open at {s.entries_open}.", entries_open=s.entries_open)
    late = s.format == "swiss" and 0 < t.started <= s.late_entry_rounds
    if (now >= parse_time(s.entries_close) or t.started) and not late:
        raise Refused("entries_closed", f"Entries closed at {s.entries_close}.", entries_close=s.entries_close)
    if len(t.in_field()) >= s.max_players:
        raise Refused("tournament_full", f"The tournament is full ({s.max_players} players).", limit=s.max_players)
    if (s.rating_min is not None and command.rating < s.rating_min) or (
        s.rating_max is not None and command.rating > s.rating_max
    ):
        raise Refused(
            "rating_out_of_range",
            f"Your rating {command.rating} is outside the tournament's range.",
            rating=command.rating,
            rating_min=s.rating_min,
            rating_max=s.rating_max,
        )
    wanted = s.min_finished_percent
    if wanted is not None and (not command.counted or command.finished * 100 < wanted * command.counted):
        raise Refused(
            "record_too_low",
            f"This tournament asks that you finished at least {wanted}% of your recent games.",
            min_finished_percent=wanted,
            finished=command.finished,
            counted=command.counted,
        )
    return [PlayerEntered(command.player_id, command.name, command.rating, t.started + 1)]


def _withdraw(t: Tournament, command: Withdraw) -> list[TournamentEvent]:
    entrant = t.entrants.get(command.player_id)
    if entrant is None:
        raise Refused("not_entered", "You have not entered this tournament.")
    return [] if entrant.withdrawn is not None else [PlayerWithdrew(command.player_id, "choice")]


def _timeout(t: Tournament, command: RecordTimeout) -> list[TournamentEvent]:
    rnd = t.round_of(command.game_id)
    if rnd is None:
        raise NotFound("tournament_game_not_found", f"No round of this tournament has the game {command.game_id}.")
    table = rnd.table(command.game_id)
    if table is None or command.player_id not in table.players:
        raise Refused("not_entered", f"{command.player_id} holds no seat of {command.game_id}.")
    counted = t.timeouts.get(command.player_id, set())
    if (command.game_id, command.turn) in counted:
        return []
    events: list[TournamentEvent] = [TimeoutRecorded(command.player_id, command.game_id, command.turn)]
    if len(counted) + 1 >= t.terms.timeouts_to_withdraw and t.entrants[command.player_id].withdrawn is None:
        events.append(PlayerWithdrew(command.player_id, "timeouts"))
    return events


def _start(t: Tournament, command: StartRound, now: datetime) -> list[TournamentEvent]:
    s = t.terms
    if command.number <= t.started:
        return []  # started already: its record names every game
    if command.number != t.started + 1 or command.number > s.rounds:
        raise Refused("round_out_of_order", f"The next round is {t.started + 1}.", next_round=t.started + 1)
    if t.current is not None and not t.current.closed:
        raise Refused("round_not_closed", f"Round {t.current.number} has games still running.", round=t.current.number)
    if command.number == 1 and now < parse_time(s.entries_close):
        raise Refused("entries_still_open", f"The first round starts once entries close, at {s.entries_close}.")
    active = t.active(command.number)
    if len(active) < (s.min_players if command.number == 1 else 2):
        return [TournamentFinished("too_few_players")]
    events: list[TournamentEvent] = []
    if s.format == "swiss":
        paired = pairing.swiss(swiss_order(t, active), met(t), byes_had(t), s.table_size, s.odd_rule)
        seatings, byes = paired.tables, paired.byes
    else:
        groups = t.groups
        if not groups:
            by_rating = [e.player_id for e in sorted(active, key=lambda e: (-e.rating, e.order))]
            groups = tuple(tuple(group) for group in pairing.draw_groups(by_rating, s.group_size or s.table_size))
            events.append(GroupsDrawn(groups))
        ids = {e.player_id for e in active}
        seatings, byes = pairing.round_robin(groups, s.table_size, command.number, ids, s.odd_rule)
    game_ids = list(command.game_ids)
    if len(game_ids) < len(seatings) or len(set(game_ids)) != len(game_ids) or not all(game_ids):
        raise Refused(
            "invalid_request",
            f"Round {command.number} needs {len(seatings)} distinct game ids.",
            errors=[{"field": "game_ids", "message": f"{len(seatings)} distinct ids needed", "location": "json"}],
        )
    tables = tuple(
        Table(game_id, tuple(_turned(seats, _offset(s, command.number, n))))
        for n, (game_id, seats) in enumerate(zip(command.game_ids, seatings, strict=False))
    )
    deals = tuple(Deal(size, splitmix64(command.seed + size)) for size in sorted({len(x.seats) for x in tables}))
    deadline = format_time(now + timedelta(days=s.round_days)) if s.round_days else None
    events.append(RoundStarted(command.number, tables, tuple(byes), deals if s.duplicate else (), deadline))
    if not tables:
        events += _closing(t, command.number, ())
    return events


def _offset(s: Settings, round_number: int, table: int) -> int:
    return {"none": 0, "by_table": table, "by_round": round_number - 1}[s.seat_rotation]


def _turned(seats: Sequence[str | None], offset: int) -> list[str | None]:
    turn = offset % len(seats)
    return [*seats[turn:], *seats[:turn]]


def splitmix64(value: int) -> int:
    """SplitMix64's output for ``value`` (mod 2⁶⁴): a duplicate round's seed per table size (the module says why)."""
    z = (value + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _closing(t: Tournament, number: int, settled: tuple[Outcome, ...]) -> list[TournamentEvent]:
    events: list[TournamentEvent] = [RoundClosed(number, settled)]
    if number == t.terms.rounds:
        events.append(TournamentFinished("completed"))
    return events


def _check_places(table: Table, places: tuple[int, ...]) -> None:
    problem = places_problem(places)
    if problem is not None or len(places) != len(table.seats):
        raise Refused(
            "invalid_places",
            problem or f"The game {table.game_id} has {len(table.seats)} seats, not {len(places)}.",
            game_id=table.game_id,
        )


def _finish(t: Tournament, command: FinishGame) -> list[TournamentEvent]:
    rnd = t.round_of(command.game_id)
    table = rnd.table(command.game_id) if rnd is not None else None
    if rnd is None or table is None:
        raise NotFound("tournament_game_not_found", f"No round of this tournament has the game {command.game_id}.")
    if command.game_id in rnd.results or rnd.closed:
        return []  # told already, or settled at the deadline: its end changes nothing
    _check_places(table, command.places)
    events: list[TournamentEvent] = [GameFinished(command.game_id, command.places)]
    if all(other.game_id == command.game_id for other in rnd.running):
        events += _closing(t, rnd.number, ())
    return events


def _settle(t: Tournament, command: SettleRound, now: datetime) -> list[TournamentEvent]:
    rnd: Round | None = t.current
    if rnd is None or command.number > rnd.number:
        raise Refused("round_out_of_order", f"Round {command.number} has not started.", next_round=t.started + 1)
    if command.number < rnd.number or rnd.closed:
        return []  # closed already
    if rnd.deadline is None:
        raise Refused("round_has_no_deadline", f"Round {rnd.number} ends when its games end; it has no deadline.")
    if now < parse_time(rnd.deadline):
        raise Refused("round_deadline_not_reached", f"Round {rnd.number} ends at {rnd.deadline}.", deadline=rnd.deadline)
    running = {table.game_id: table for table in rnd.running}
    given = {outcome.game_id: outcome for outcome in command.settled}
    if set(given) != set(running) or len(given) != len(command.settled):
        raise Refused(
            "settlement_incomplete",
            "Settle every game still running, each once, and no other.",
            running=sorted(running),
        )
    for game_id, outcome in given.items():
        _check_places(running[game_id], outcome.places)
    ordered = tuple(given[table.game_id] for table in rnd.tables if table.game_id in given)
    return _closing(t, rnd.number, ordered)
