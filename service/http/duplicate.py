"""A duplicate round's secrecy at the door of every route that reads a game.

Every table of a size in a duplicate tournament's round is dealt the same cards: a game of the round read by anyone
not seated at it (a view, its events or stream, its replay, export, viewer or analysis) would tell them the deal
while they still play it.  Such a read is refused (``tournament_round_running``, 403) until the round ends
(:meth:`service.application.tournaments.TournamentService.check_readable`).
"""

from __future__ import annotations

from service.http.common import red7_runtime


def tournament_gate(game_id: str, viewer: str | None) -> None:
    """Refuse a game of a duplicate round still running to anyone not seated at it; any other game passes."""
    service = red7_runtime().tournaments
    if service is not None:
        service.check_readable(game_id, viewer)
