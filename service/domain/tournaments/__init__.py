"""Tournaments: Swiss and round robin for tables of 2 to 4, live or by correspondence, optionally with duplicate deals.

A tournament is an aggregate with a stream of its own, pure like a challenge: :func:`decide` turns a command into
events at a time it is given (or refuses it with a stable code), :func:`fold` rebuilds the tournament from its
stream.  A round's tables and each game's id are decided in the round's event, before any game is made, so whoever
makes them after it (the worker that appended it, or the next, should that one die) makes the same games, once.

Where each part is: :mod:`~service.domain.tournaments.settings` (what an organiser chooses, and what is no choice
of ours), :mod:`~service.domain.tournaments.events` (the events and their stored form),
:mod:`~service.domain.tournaments.tournament` (the fold), :mod:`~service.domain.tournaments.decision` (commands and
``decide``), :mod:`~service.domain.tournaments.pairing` (Swiss and round-robin pairings),
:mod:`~service.domain.tournaments.standings` (points, tie-breaks, duplicate scores) and
:mod:`~service.domain.tournaments.settlement` (a running game's places at a round's deadline) and
:mod:`~service.domain.tournaments.notices` (who hears of what the events say).  docs/tournaments.md states
every rule for players.  Import from here: the package is tournaments' one door to their rules.
"""

from service.domain.tournaments.decision import (
    Create,
    Enter,
    FinishGame,
    RecordTimeout,
    SettleRound,
    StartRound,
    TournamentCommand,
    Withdraw,
    decide,
    ids_needed,
    splitmix64,
    status,
)
from service.domain.tournaments.events import (
    STORED,
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
    envelope,
    event_from_dict,
    event_to_dict,
    from_envelope,
)
from service.domain.tournaments.notices import TOURNAMENT_NOTICES, notices_of
from service.domain.tournaments.pairing import Pairing, draw_groups, group_tables, repeat_meetings, round_robin, swiss
from service.domain.tournaments.settings import FORMATS, ODD_RULES, SEAT_ROTATIONS, TIME_CONTROLS, Settings
from service.domain.tournaments.settlement import current_places
from service.domain.tournaments.standings import (
    Standing,
    bye_points,
    duplicate_scores,
    group_standings,
    points,
    points_for,
    standings,
)
from service.domain.tournaments.tournament import Entrant, Round, Tournament, apply, fold

__all__ = [
    "FORMATS",
    "ODD_RULES",
    "SEAT_ROTATIONS",
    "STORED",
    "TIME_CONTROLS",
    "TOURNAMENT_NOTICES",
    "Create",
    "Deal",
    "Enter",
    "Entrant",
    "FinishGame",
    "GameFinished",
    "GroupsDrawn",
    "Outcome",
    "Pairing",
    "PlayerEntered",
    "PlayerWithdrew",
    "RecordTimeout",
    "Round",
    "RoundClosed",
    "RoundStarted",
    "Settings",
    "SettleRound",
    "Standing",
    "StartRound",
    "Table",
    "TimeoutRecorded",
    "Tournament",
    "TournamentCommand",
    "TournamentCreated",
    "TournamentEvent",
    "TournamentFinished",
    "Withdraw",
    "apply",
    "bye_points",
    "current_places",
    "decide",
    "draw_groups",
    "duplicate_scores",
    "envelope",
    "event_from_dict",
    "event_to_dict",
    "fold",
    "from_envelope",
    "group_standings",
    "group_tables",
    "ids_needed",
    "notices_of",
    "points",
    "points_for",
    "repeat_meetings",
    "round_robin",
    "splitmix64",
    "standings",
    "status",
    "swiss",
]
