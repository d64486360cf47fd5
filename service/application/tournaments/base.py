"""What every part of the tournament service shares: its stores, a tournament loaded, the one path every write
takes, and the summary the list shows.

The rules are :mod:`service.domain.tournaments` (pure); a write loads a tournament (the fold of its stream), lets
them decide at the service's time, and appends what they decided with the version and head it was decided on,
deciding again if another write came first (:meth:`TournamentServiceBase._write`).  After an append the list's
summary is put (:meth:`TournamentServiceBase._publish`): a crash in between leaves it a version behind until the
next write or read of the tournament puts it again.

A round's games have ids derived from the tournament, the round and the table (:func:`game_id_for`): recorded in
``round_started`` before any game is made, they name the tournament a finished game belongs to
(:func:`tournament_of`) without an index to keep.
"""

from __future__ import annotations

import copy
import logging
import random
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from service.application.commands import utc_now
from service.application.followups import tournament_notice
from service.application.games import GameService
from service.application.ratings import RatingService
from service.common.errors import Conflict, NotConfirmed, NotFound, Refused
from service.domain import tournaments as rules
from service.domain.tournaments import Tournament, TournamentEvent
from service.storage.events import Idempotency, IdempotencyMismatch, NotReplicated, Replayed, VersionConflict
from service.storage.idempotency import CreateRecords
from service.storage.players import Player, PlayerStore
from service.storage.tournaments import TournamentIndex, TournamentList, TournamentStreams

log = logging.getLogger("red7.tournaments")

#: How long a write goes on deciding again on the tournament as it is now before it gives up with a conflict.  A
#: field entering at once, or a round's last games ending together, all write the one stream: each loses to the
#: others for a while, and none of them is the caller's fault, so a count of tries (which a busy host runs through
#: in a few milliseconds) would answer 409 to people who did nothing wrong.
CONTENTION_SECONDS = 10.0

#: The longest pause between two tries; each pause is drawn at random up to twice the last (capped here), so the
#: writers that collided spread out instead of colliding again in step.
LONGEST_PAUSE = 0.05

#: Seconds after a round's start that its tournament is looked at (any game of it still missing is made then).
MAKING_CHECK = 5

_GAME_ID = re.compile(r"^(t_[0-9a-f]+)_r(\d+)_(\d+)$")


_TOURNAMENT_ID = re.compile(r"^t_[0-9a-f]+$")


def is_tournament(subject_id: str) -> bool:
    """Whether an id on the agenda is a tournament's (a game's id never has this form)."""
    return _TOURNAMENT_ID.match(subject_id) is not None


def game_id_for(tournament_id: str, round_number: int, table: int) -> str:
    """The id of table ``table`` of round ``round_number``: the same whoever starts the round, however often."""
    return f"{tournament_id}_r{round_number}_{table}"


def tournament_of(game_id: str) -> str | None:
    """The tournament a game was made for (``None``: no tournament's)."""
    found = _GAME_ID.match(game_id)
    return found.group(1) if found else None


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as the service writes it (``...Z``)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _ms(at: str) -> int:
    return int(parse_time(at).timestamp() * 1000)


class TournamentServiceBase:
    """The state and the shared machinery of :class:`~service.application.tournaments.TournamentService`."""

    def __init__(
        self,
        streams: TournamentStreams,
        index: TournamentIndex,
        listing: TournamentList,
        players: PlayerStore,
        games: GameService,
        ratings: RatingService,
        *,
        clock: Callable[[], str] = utc_now,
        look_at: Callable[[str, datetime], None] | None = None,
    ) -> None:
        self.streams = streams
        self.tournament_index = index
        self.tournament_list = listing
        self.players = players
        self.games = games
        self.ratings = ratings
        self.clock = clock
        #: Put a tournament on the job system's agenda at a time (the ticker then calls :meth:`Rounds.tick`): the
        #: composition root's, so that a tournament's clock runs with nobody reading it.
        self.look_at = look_at
        #: Each tournament's settings once read (they never change): what every game's clock asks of its tournament.
        self._terms: dict[str, rules.Settings] = {}
        self.records = CreateRecords(players.redis)  # of tournaments made with an Idempotency-Key, on the organiser's slot

    def now(self) -> datetime:
        return parse_time(self.clock())

    # --- reading ----------------------------------------------------------------------

    def load(self, tournament_id: str) -> Tournament:
        """The tournament as its stream leaves it (``tournament_not_found`` if it has none)."""
        stored = [(event.number, event.payload) for event in self.streams.read_all(tournament_id)]
        if not stored:
            raise NotFound("tournament_not_found", f"There is no tournament {tournament_id}.")
        return rules.fold(tournament_id, stored)

    def _as_of(self, tournament_id: str, version: int) -> Tournament:
        return rules.fold(tournament_id, [(e.number, e.payload) for e in self.streams.read(tournament_id, 0, version)])

    # --- the append path -----------------------------------------------------------------

    def _write(
        self,
        tournament: Tournament | str,
        by: str,
        decide: Callable[[Tournament, datetime], list[TournamentEvent]],
        idempotency: Idempotency | None = None,
    ) -> tuple[Tournament, bool]:
        """Load (unless given), decide, append; decided again on the tournament as it is now if another write came
        first.  The tournament after it, and whether this appended anything."""
        tournament_id = tournament if isinstance(tournament, str) else tournament.id
        t = self.load(tournament_id) if isinstance(tournament, str) else tournament
        give_up = time.monotonic() + CONTENTION_SECONDS
        pause = 0.001
        while True:
            events = decide(t, self.now())
            if not events:
                return t, False
            try:
                after = self._append(t, events, by, idempotency=idempotency)
            except Conflict:
                if time.monotonic() >= give_up:
                    break
                time.sleep(random.uniform(0, pause))  # a spread, not a secret
                pause = min(pause * 2, LONGEST_PAUSE)
                t = self.load(tournament_id)
                continue
            if isinstance(after, Replayed):
                return self._as_of(tournament_id, after.version), False
            self._publish(after)
            self._tell(after, events)
            return after, True
        raise Conflict(t.version, self.streams.version(tournament_id), "The tournament kept changing; try again.")

    def _append(
        self, t: Tournament, events: list[TournamentEvent], by: str, *, idempotency: Idempotency | None = None
    ) -> Tournament | Replayed:
        """Append ``events``, decided on ``t``, as one atomic write checked against its version and head."""
        at = self.clock()
        after = copy.deepcopy(t)
        payloads = []
        for event in events:
            payloads.append(rules.envelope(event, at=at, by=by))
            rules.apply(after, after.version + 1, event, at)
        after.head = payloads[-1]
        try:
            result = self.streams.append(t.id, t.version, payloads, expected_head=t.head, idempotency=idempotency)
        except VersionConflict as conflict:
            raise Conflict(conflict.expected, conflict.current) from None
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            raise NotConfirmed(short.version, short.replicas, short.wanted) from None
        return result if isinstance(result, Replayed) else after

    def _seats_to_ai(self, t: Tournament, player_id: str) -> None:
        """Each running game of the current round where ``player_id`` still sits: an AI takes their seat."""
        current = t.current
        if current is None or current.closed:
            return
        player = self.players.get(player_id) or Player(player_id, player_id, "")
        for table in current.running:
            if player_id not in table.players or not self.games.store.exists(table.game_id):
                continue
            game = self.games.load(table.game_id)
            seat = game.seat_of(player_id)
            if game.over or seat is None or game.seats[seat].resigned:
                continue
            try:
                self.games.leave(table.game_id, player, t.terms.ai_level)
            except Refused:
                continue  # it ended meanwhile

    def _tell(self, after: Tournament, events: list[TournamentEvent]) -> None:
        """Queue the notices the events make (:func:`~service.domain.tournaments.notices_of`); never fails the write
        that happened: a notice lost with its process is lost, as a challenge's is (the tournament's page says it too)."""
        try:
            notices = rules.notices_of(after, events)
            if notices:
                self.games.followups.notify(
                    [tournament_notice(kind, after.id, after.version, player, game) for player, kind, game in notices]
                )
        except Exception:
            log.exception("could not queue the notices of tournament %s at %s", after.id, after.version)

    def ids_in_play(self) -> Iterator[str]:
        """The ids of every tournament not finished (by its summary in the list, a version behind at most: one found
        finished since is taken off the agenda at its first look): what the ticker puts back on the agenda when the
        queue's Redis lost its data, as it puts back the games in play."""
        return self.tournament_list.unfinished()

    # --- the list ---------------------------------------------------------------------

    def _publish(self, t: Tournament, *, look: bool = True) -> None:
        """Put the tournament's summary in the list (an older one never replaces a newer one: safe in any order), and
        it on the agenda at its next time (``look``: not by the ticker's own look, which reschedules it itself)."""
        if t.version:
            self.tournament_list.put(t.id, _ms(t.created_at), summary_of(t), t.version)
            if look and self.look_at is not None and t.finished is None:
                self.look_at(t.id, self._next_look(t))

    def _next_look(self, t: Tournament) -> datetime:
        """When a tournament next waits on the clock: entries' close before round 1, a few seconds on for a round just
        started (its games made by the look, should the process making them have died), a running round's deadline,
        else a minute on (a look that finds nothing due puts it back at its next time, or takes it off)."""
        current = t.current
        if current is None:
            return parse_time(t.terms.entries_close)
        if not current.closed and not current.results:  # just started: are its games made? (a worker may have died)
            return self.now() + timedelta(seconds=MAKING_CHECK)
        if not current.closed and current.deadline is not None:
            return parse_time(current.deadline)
        return self.now() + timedelta(minutes=1)


def summary_of(t: Tournament) -> dict[str, Any]:
    """What the list filters and shows without loading the stream."""
    s = t.terms
    return {
        "name": t.name,
        "organiser": t.organiser,
        "format": s.format,
        "table_size": s.table_size,
        "rounds": s.rounds,
        "time_control": s.time_control,
        "variant": s.variant,
        "rated": s.rated,
        "duplicate": s.duplicate,
        "entries_open": s.entries_open,
        "entries_close": s.entries_close,
        "entrants": len(t.in_field()),
        "max_players": s.max_players,
        "started": t.started,
        "finished": t.finished,
        "created_at": t.created_at,
    }


def summary_status(summary: dict[str, Any], now: datetime) -> str:
    """A listed tournament's status as :func:`service.domain.tournaments.status` gives it, from its summary."""
    if summary.get("finished") is not None:
        return "finished"
    if summary.get("started"):
        return "playing"
    if now < parse_time(summary["entries_open"]):
        return "announced"
    return "entering" if now < parse_time(summary["entries_close"]) else "starting"
