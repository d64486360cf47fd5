"""A tournament game's timed-out turns counted in its tournament, and the automatic withdrawal they lead to.

A turn that times out is a ``turn_timed_out`` event in the game's own stream (:meth:`Turns.time_out`); the
tournament counts it as ``tournament_timeout`` (:class:`~service.domain.tournaments.RecordTimeout`), once per game and
turn, the turn named by the game event's number.  The player's ``timeouts_to_withdraw``-th withdraws them
(``tournament_withdrawn``, reason ``timeouts``): an AI of the tournament's level takes their seat in every game of the
round still running, and they are paired no more.

Who counts them: the ``tournament_game`` job, which :func:`service.application.followups.due` asks for on the append
of a tournament game's timeout (as on its end), and again every time a game of the tournament is folded in at its end
or settled at a deadline.  Counting reads the game's stream and is safe to repeat, so a job lost with its worker
delays a withdrawal until the game's end at the latest, never loses it.

**Vacation in a round.**  A correspondence tournament honours at most ``vacation_days_per_round`` days of a player's
vacation in a round (0 by default: a round's clock does not stop for one), counted from the round's start
(:meth:`Timeouts.vacation_cap`, which :class:`~service.application.calendars.Calendars` asks of every game's clock).
Vacation past the cap does not stop the clock, and no vacation is taken automatically at a deadline once the cap
is used: the turn times out, and counts towards a withdrawal.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import partial

from service.application.tournaments.base import TournamentServiceBase, parse_time, tournament_of
from service.common.errors import NotFound
from service.domain import tournaments as rules
from service.domain.game import Game, decode
from service.domain.tournaments import Table, Tournament
from service.storage.events import StoredEvent

TIMED_OUT = "turn_timed_out"
SERVICE = "service:tournaments"
DAY = 24 * 3600
#: How many tournaments' settings a process keeps read.
TERMS_KEPT = 4096


class Timeouts(TournamentServiceBase):
    """Timed-out turns counted, players withdrawn for them, and the vacation a round honours (a part of the
    tournament service)."""

    def vacation_cap(self, game: Game) -> tuple[datetime, int] | None:
        """The vacation a tournament game's turns honour: ``vacation_days_per_round`` days from the game's start (its
        round's: a round's games are made when it starts), for :class:`~service.application.calendars.Calendars`;
        ``None`` for a game of no tournament, or of a live one.  A tournament's settings never change, so they are
        kept once read."""
        tournament_id = tournament_of(game.id) if game.origin == "tournament" else None
        if tournament_id is None or not game.created_at:
            return None
        terms = self._terms.get(tournament_id)
        if terms is None:
            if len(self._terms) >= TERMS_KEPT:
                self._terms.clear()  # a bound on a long-lived process's memory; read again when asked
            try:
                terms = self._terms.setdefault(tournament_id, self.load(tournament_id).terms)
            except NotFound:
                return None
        if terms.time_control != "correspondence":
            return None
        return parse_time(game.created_at), terms.vacation_days_per_round * DAY

    def record_timeouts(self, game_id: str) -> list[str]:
        """Count every timed-out turn of a tournament game in its tournament (safe to repeat); who it withdrew."""
        tournament_id = tournament_of(game_id)
        if tournament_id is None:
            return []
        try:
            t = self.load(tournament_id)
        except NotFound:
            return []
        rnd = t.round_of(game_id)
        table = rnd.table(game_id) if rnd is not None else None
        if table is None:
            return []
        _, withdrawn = self._count_timeouts(t, table)
        return withdrawn

    def _count_timeouts(self, t: Tournament, table: Table) -> tuple[Tournament, list[str]]:
        """Every timeout of ``table``'s game not yet counted, counted; the tournament after, and who it withdrew."""
        if t.finished is not None or not self.games.store.exists(table.game_id):
            return t, []
        withdrawn: list[str] = []
        for number, player_id in timed_out_turns(self.games.store.read_all(table.game_id), table):
            if (table.game_id, number) in t.timeouts.get(player_id, set()):
                continue
            command = rules.RecordTimeout(player_id, table.game_id, number)
            before = t.entrants[player_id].withdrawn
            t, _ = self._write(t, SERVICE, partial(_decide, command))
            if before is None and t.entrants[player_id].withdrawn == "timeouts":
                withdrawn.append(player_id)
                self._seats_to_ai(t, player_id)
            if t.finished is not None:
                break
        return t, withdrawn


def timed_out_turns(stored: Iterable[StoredEvent], table: Table) -> list[tuple[int, str]]:
    """The (event number, player) of each timed-out turn of a game, its seats as the round records them (a seat an AI
    holds in the round's record is nobody's)."""
    found = []
    for event in stored:
        data = decode(event.payload)
        if data.get("type") != TIMED_OUT:
            continue
        seat = int(data["seat"])
        player_id = table.seats[seat] if 0 <= seat < len(table.seats) else None
        if player_id is not None:
            found.append((int(event.number), player_id))
    return found


def _decide(command: rules.RecordTimeout, t: Tournament, now: datetime) -> list[rules.TournamentEvent]:
    return rules.decide(t, command, now)
