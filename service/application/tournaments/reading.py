"""Reading tournaments: one, the list (filtered by status and format), the standings, a round; and whether a game of
a duplicate round may be read by whoever asks.

**A duplicate round's secrecy.**  Every table of a size in a duplicate round is dealt the same cards, so a game of
the round read by someone at another table would tell them the deal.  Until the round closes, a game of it is
readable only by a player seated at it (:meth:`Reading.check_readable`, which every route that reads a game asks:
view, events, stream, replay, export); and the round's seeds are shown nowhere until then
(:meth:`Reading.round_view`).  Once the round is closed, the games are open as any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.application.tournaments.base import TournamentServiceBase, summary_of, summary_status, tournament_of
from service.common.errors import NotFound, Refused
from service.domain import tournaments as rules
from service.domain.tournaments import Standing, Tournament

STATUSES = ("announced", "entering", "starting", "playing", "finished")


@dataclass(frozen=True, slots=True)
class TournamentPage:
    tournaments: list[dict[str, Any]]
    next_cursor: str | None


class Reading(TournamentServiceBase):
    """The reads (a part of :class:`~service.application.tournaments.TournamentService`)."""

    def get(self, tournament_id: str) -> Tournament:
        """The tournament (its summary in the list put again, should a crash have left it behind)."""
        t = self.load(tournament_id)
        self._publish(t)
        return t

    def status(self, t: Tournament) -> str:
        return rules.status(t, self.now())

    def view(self, t: Tournament) -> dict[str, Any]:
        """What anyone may see of a tournament: its summary and status, and who entered."""
        return {
            "id": t.id,
            **summary_of(t),
            "status": self.status(t),
            "entrants": [
                {"player_id": e.player_id, "name": e.name, "rating": e.rating, "withdrawn": e.withdrawn}
                for e in t.entrants.values()
            ],
        }

    def list_tournaments(
        self, *, status: str | None = None, format: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> TournamentPage:
        """A page of tournaments, newest first, filtered by status and format; ``cursor`` is the last page's
        ``next_cursor`` (``<ms>:<id>``)."""
        before = _cursor(cursor)
        now = self.now()

        def keep(summary: dict[str, Any]) -> bool:
            return (format is None or summary["format"] == format) and (status is None or summary_status(summary, now) == status)

        page = self.tournament_list.page(before, limit, keep)
        shown = [
            {"id": tid, **{k: v for k, v in s.items() if k != "version"}, "status": summary_status(s, now)} for tid, _, s in page
        ]
        following = f"{page[-1][1]}:{page[-1][0]}" if len(page) == limit else None
        return TournamentPage(shown, following)

    def standings(self, tournament_id: str) -> tuple[Tournament, list[list[Standing]]]:
        """The standings, computed from the rounds' places on each read: one list for a Swiss (or a round robin before
        its groups are drawn), one per group for a round robin."""
        t = self.load(tournament_id)
        return t, (rules.group_standings(t) if t.groups else [rules.standings(t)])

    def round_view(self, tournament_id: str, number: int, viewer: str | None) -> dict[str, Any]:
        """Round ``number``: its tables (with each game's places once known), byes, deadline, whether closed; a
        duplicate round's seeds only once it is closed; ``your_game``: the viewer's table, if they have one."""
        t = self.load(tournament_id)
        if not 1 <= number <= t.started:
            raise NotFound("tournament_round_not_found", f"Round {number} of this tournament has not started.", round=number)
        rnd = t.rounds[number - 1]
        mine = next((table.game_id for table in rnd.tables if viewer is not None and viewer in table.players), None)
        return {
            "tournament_id": t.id,
            "number": rnd.number,
            "closed": rnd.closed,
            "deadline": rnd.deadline,
            "tables": [
                {"game_id": table.game_id, "seats": list(table.seats), "places": list(rnd.results.get(table.game_id, ())) or None}
                for table in rnd.tables
            ],
            "byes": list(rnd.byes),
            "settled": list(rnd.settled),
            "deals": [{"size": d.size, "seed": d.seed} for d in rnd.deals] if rnd.closed else [],
            "your_game": mine,
        }

    def check_readable(self, game_id: str, viewer: str | None) -> None:
        """Refuse (``tournament_round_running``) a game of a duplicate round still running to anyone not seated at
        it; any other game passes."""
        tournament_id = tournament_of(game_id)
        if tournament_id is None:
            return
        try:
            t = self.load(tournament_id)
        except NotFound:
            return
        if not t.terms.duplicate:
            return
        rnd = t.round_of(game_id)
        table = rnd.table(game_id) if rnd is not None else None
        if rnd is None or table is None or rnd.closed or (viewer is not None and viewer in table.players):
            return
        raise Refused(
            "tournament_round_running",
            f"This game belongs to round {rnd.number} of a duplicate tournament; it opens to all when the round ends.",
            round=rnd.number,
            tournament_id=tournament_id,
        )


def _cursor(cursor: str | None) -> tuple[int, str] | None:
    if cursor is None:
        return None
    ms, _, tournament_id = cursor.partition(":")
    if not ms.isdigit() or not tournament_id:
        raise Refused(
            "invalid_request",
            "This cursor is none the list gave.",
            errors=[{"field": "cursor", "message": "not a cursor of this list", "location": "query"}],
        )
    return int(ms), tournament_id
