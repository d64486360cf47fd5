"""Tournaments above the domain: made, entered, their rounds started with their games and closed as the games end,
and read (:mod:`service.domain.tournaments` decides; this floor loads, appends, makes games and keeps time)."""

from service.application.tournaments.base import game_id_for, is_tournament, summary_status, tournament_of
from service.application.tournaments.reading import STATUSES, TournamentPage
from service.application.tournaments.service import TournamentService

__all__ = ["STATUSES", "TournamentPage", "TournamentService", "game_id_for", "is_tournament", "summary_status", "tournament_of"]
