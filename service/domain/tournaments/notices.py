"""Who hears of what a tournament's events say: pure, so that the notices a write makes follow from its events alone.

A notice is ``(player, kind, game)``: ``kind`` one of :data:`TOURNAMENT_NOTICES`, ``game`` the game it is about (a
round's game for the player seated at it), else ``None``.  The application hands them to the notices machinery
(webhooks, web push, native push), as a challenge's are; their texts are the catalogs' (``push.<kind>.title`` ...).

- ``tournament_entered``: the entrant, their entry confirmed;
- ``tournament_round_started``: every player of the round, with their game (none for a bye);
- ``tournament_withdrawn``: a player withdrawn after timed-out turns (one who withdrew knows it);
- ``tournament_round_closed``: every player still in the field, when a round that is not the last closes;
- ``tournament_finished``: everyone who entered, withdrawn or not.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.tournaments.events import (
    PlayerEntered,
    PlayerWithdrew,
    RoundClosed,
    RoundStarted,
    TournamentEvent,
    TournamentFinished,
)
from service.domain.tournaments.tournament import Tournament

TOURNAMENT_NOTICES = (
    "tournament_entered",
    "tournament_round_started",
    "tournament_withdrawn",
    "tournament_round_closed",
    "tournament_finished",
)

Notice = tuple[str, str, str | None]


def notices_of(after: Tournament, events: Sequence[TournamentEvent]) -> list[Notice]:
    """The notices ``events`` make, ``after`` being the tournament they left (in the order of the events)."""
    found: list[Notice] = []
    finishing = any(isinstance(event, TournamentFinished) for event in events)
    for event in events:
        if isinstance(event, PlayerEntered):
            found.append((event.player_id, "tournament_entered", None))
        elif isinstance(event, RoundStarted):
            found += [(p, "tournament_round_started", table.game_id) for table in event.tables for p in table.players]
            found += [(p, "tournament_round_started", None) for p in event.byes]
        elif isinstance(event, PlayerWithdrew) and event.reason == "timeouts":
            found.append((event.player_id, "tournament_withdrawn", None))
        elif isinstance(event, RoundClosed) and not finishing:
            found += [(e.player_id, "tournament_round_closed", None) for e in after.in_field()]
        elif isinstance(event, TournamentFinished):
            found += [(player_id, "tournament_finished", None) for player_id in after.entrants]
    return found
