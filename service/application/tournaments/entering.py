"""Making a tournament (once per Idempotency-Key of its organiser), entering it and withdrawing from it.

Entry gates read what the service keeps: a player's rating is their displayed rating on the ladder of the
tournament's variant (:meth:`RatingService.rating`); their record is :meth:`PlayerStore.record`.  The service keeps
no count of games lost on time yet, so the ``min_finished_percent`` gate counts every finished game as finished:
a player with a finished game passes it, one with none is refused (``record_too_low``), which is what a minimum
share asks of a player with no record.  The share becomes a real one when the record of time losses lands.

A tournament is indexed under its organiser, and an entrant under their entry, *before* the append: a crash in
between leaves an index entry readers skip, never a tournament or an entry nobody can find.
"""

from __future__ import annotations

import contextlib

from service.application.tournaments.base import TournamentServiceBase, _ms
from service.common.errors import Conflict, Refused
from service.domain import tournaments as rules
from service.domain.ratings import ladder_of
from service.domain.tournaments import Tournament
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.players import Player, new_id


class Entering(TournamentServiceBase):
    """Create, enter, withdraw (a part of :class:`~service.application.tournaments.TournamentService`)."""

    def create(
        self, organiser: Player, name: str, settings: rules.Settings, idempotency: Idempotency | None = None
    ) -> tuple[Tournament, bool]:
        """A new tournament, and whether this is a retry's answer (with ``idempotency``: once per key)."""
        try:
            return self._create(organiser, name, settings, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None

    def _create(
        self, organiser: Player, name: str, settings: rules.Settings, idempotency: Idempotency | None
    ) -> tuple[Tournament, bool]:
        records = self.players.create_records_key(organiser.id)
        at = self.clock()
        tournament_id = new_id("t")
        if idempotency is not None:
            first = self.records.find(records, idempotency)
            if first is None:
                first = self.records.claim(records, idempotency, {"id": tournament_id, "version": 1})
            if first is not None:
                return self._create_again(organiser, name, settings, str(first["id"])), True
        new = Tournament(tournament_id)
        events = rules.decide(new, rules.Create(organiser.id, name, settings), self.now())
        self.tournament_index.add([organiser.id], tournament_id, _ms(at))
        made, _ = self._write(new, f"player:{organiser.id}", lambda t, now: events)
        return made, False

    def _create_again(self, organiser: Player, name: str, settings: rules.Settings, tournament_id: str) -> Tournament:
        """A retry of a create: the tournament as its first attempt made it, made now if that attempt never did."""
        if not self.streams.exists(tournament_id):
            new = Tournament(tournament_id)
            events = rules.decide(new, rules.Create(organiser.id, name, settings), self.now())
            self.tournament_index.add([organiser.id], tournament_id, _ms(self.clock()))
            with contextlib.suppress(Conflict):  # the first attempt made it meanwhile
                self._write(new, f"player:{organiser.id}", lambda t, now: events)
        return self._as_of(tournament_id, 1)

    def join(self, tournament_id: str, player: Player) -> tuple[Tournament, bool]:
        """Enter the tournament (its gates checked at entry); the tournament after it, and whether this entered (a
        second entry is refused: ``already_entered``)."""
        t = self.load(tournament_id)
        s = t.terms
        rating = self.ratings.rating(player.id, ladder_of(s.variant == "advanced"))
        played = self.players.record(player.id).played
        command = rules.Enter(player.id, player.name, rating, finished=played, counted=played)
        rules.decide(t, command, self.now())  # refused before it is indexed
        self.tournament_index.add([player.id], tournament_id, _ms(t.created_at))
        return self._write(t, f"player:{player.id}", lambda t, now: rules.decide(t, command, now))

    def withdraw(self, tournament_id: str, player: Player) -> Tournament:
        """Withdraw from the tournament, for good: the player's seats in games still running are played out by an AI
        of the tournament's level (as a player leaving a game does); safe to repeat."""
        command = rules.Withdraw(player.id)
        after, _ = self._write(tournament_id, f"player:{player.id}", lambda t, now: rules.decide(t, command, now))
        self._seats_to_ai(after, player.id)
        return after
