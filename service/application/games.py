"""The application layer: what a request or a job may do to a game, and nothing else.

Every write follows one path (:mod:`service.application.appending`): load
the game, check who may act, let the engine or the lobby's rules
(:mod:`service.domain.lobby`) decide, append the events with the version that was
read, then hand the game to the job system with what it needs next
(:class:`~service.application.followups.FollowUps`).  Nothing here speaks
HTTP: a refusal is a :class:`~service.common.errors.Refused` with a stable code, or
the engine's :class:`~engine.RuleViolation`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from engine import Event, RuleViolation, Step, decide_steps
from service.application import compaction
from service.application.appending import OVER, OnConflict
from service.application.blocks import kept_apart
from service.application.calendars import Calendars, TurnClock, turn_of
from service.application.commands import GamePage, Outcome, utc_now
from service.application.creating import GameCreation
from service.application.followups import Due, FollowUps, NoFollowUps, due
from service.application.listing import GameLists
from service.application.loading import GameLoader
from service.application.lobby_commands import LobbyCommands
from service.application.quotas import Quotas
from service.application.rated_play import RatedPlay
from service.application.reading import GameFeeds
from service.application.tables import OpenTablePage, OpenTables, TableFilter
from service.common.config import Settings
from service.common.errors import Conflict, NotConfirmed, NotFound, Refused
from service.domain.deadlines import Turn
from service.domain.deadlines import deadline as turn_deadline
from service.domain.game import Game
from service.domain.lobby import (
    LobbyEvent,
)
from service.storage.blocks import BlockStore
from service.storage.changes import ChangeWatch
from service.storage.events import EventStore, Idempotency, Waiter
from service.storage.idempotency import CreateRecords
from service.storage.inplay import GamesInPlay
from service.storage.players import Player, PlayerStore
from service.storage.tables import TableIndex

log = logging.getLogger("red7.games")


class GameService(GameCreation, LobbyCommands):
    """Every command on a game, and the reads the entry points need, over the loader, the lists and the feeds: making
    a game (:mod:`service.application.creating`), the lobby's commands (:mod:`service.application.lobby_commands`), a
    player's steps, a job's write, and what keeps a game moving."""

    def __init__(
        self,
        store: EventStore,
        players: PlayerStore,
        *,
        allow_custom_decks: bool = False,
        snapshot_every: int = Settings.snapshot_every,
        recover_after: float = Settings.recover_after,
        clock: Callable[[], str] = utc_now,
        followups: FollowUps | None = None,
        max_games_in_play: int = 0,
        max_ai_seats_in_play: int = 0,
        max_listed_tables: int = 0,
        calendars: Calendars | None = None,
        changes: ChangeWatch | None = None,
        blocks: BlockStore | None = None,
    ) -> None:
        self.store = store
        #: Players' calendars, which time correspondence turns (none: no vacation or weekend pauses a clock).
        self.calendars = calendars
        self.players = players
        self.allow_custom_decks = allow_custom_decks
        self.recover_after = recover_after
        self.clock = clock
        self.followups: FollowUps = followups if followups is not None else NoFollowUps()
        self.records = CreateRecords(store.redis)  # of games created with an Idempotency-Key
        #: Who never sits with whom: one store the composition root builds and every service that seats players shares
        #: (none given: one over the players' Redis, for the tests and tools that build a GameService alone).
        self.block_store = blocks if blocks is not None else BlockStore(players.redis, players.prefix)
        self.loader = GameLoader(store, snapshot_every=snapshot_every, changes=changes)
        self.lists = GameLists(players, self.loader.load, self.deadline)
        self.feeds = GameFeeds(store, players)  # a deleted player's seat is shown as such
        self.quotas = Quotas(players, self.lists.in_play, max_games_in_play, max_ai_seats_in_play)
        self.tables = OpenTables(TableIndex(store.redis, players.prefix), self.loader.load, max_listed=max_listed_tables)
        self.in_play = GamesInPlay(store.redis, players.prefix)
        #: The games this process re-offered on a read, with the version and when (monotonic s): see ensure_progress.
        self._reoffered: dict[str, tuple[int, float]] = {}
        #: Who may take a seat in a rated game, and the aborts of rated games noted (none: anyone, and nothing noted);
        #: the composition root sets it (it reads the games).
        self.rated_play: RatedPlay | None = None

    def check_rated(self, *players: Player) -> None:
        """Refuse a seat in a rated game to a player who may not take one now (:mod:`service.application.rated_play`:
        ``rated_play_needs_history``, ``rated_play_suspended``), naming them when there are several."""
        if self.rated_play is not None:
            self.rated_play.check_all(players)

    # --- time ----------------------------------------------------------------------------

    def turn(self, game: Game) -> Turn | None:
        """The clock of the turn being played (:mod:`service.domain.deadlines`), with the mover's calendar for a correspondence
        turn: what every deadline, reminder and time left is computed from."""
        return self.calendars.turn(game) if self.calendars is not None else turn_of(game)

    def deadline(self, game: Game) -> datetime | None:
        turn = self.turn(game)
        return turn_deadline(turn) if turn is not None else None

    def clock_of(self, game: Game) -> TurnClock:
        """The game's clock as a view shows it now: deadline, time left, pause, players on vacation."""
        if self.calendars is not None:
            return self.calendars.clock_of(game)
        turn = turn_of(game) if game.status == "active" else None
        return TurnClock(turn_deadline(turn)) if turn is not None else TurnClock()

    def needs(self, game: Game, appended: Sequence[LobbyEvent | Event] = ()) -> list[Due]:
        """What the game needs now (:func:`~service.application.followups.due`), its turn timed by the mover's calendar."""
        return due(game, appended, self.turn(game) if game.seat_to_move() is not None else None)

    # --- compaction ---------------------------------------------------------------------

    def compacted(self, game: Game) -> bool:
        """Whether the game's stream is compacted up to its version (``EventStore.compact``)."""
        return self.store.compacted(game.id) >= game.version

    def compact(self, game_id: str) -> str:
        """Fold an over game's stream into one packed record (reads, replays and their verification give the same
        after): :mod:`service.application.compaction`.  What was done, in words."""
        return compaction.compact(self.store, game_id, self.loader.cached(game_id))

    def retime(self, player_id: str) -> None:
        """A player's calendar changed: their games in play are offered again, so that the agenda looks at each at its
        deadline as it is now (a vacation ended early brings it nearer)."""
        player = self.players.get(player_id)
        if player is None:
            return
        for game in self.lists.in_play(player):
            if game.status == "active" and game.days_per_turn:
                self.followups.reoffer(game, self.needs(game))

    # --- reading ----------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        return self.loader.load(game_id)

    def peek(self, game_id: str) -> Game:
        """The game as its stream holds it, cached nowhere (:meth:`GameLoader.peek`)."""
        return self.loader.peek(game_id)

    def load_reading(self, game_id: str) -> tuple[Game, list[tuple[int, str]]]:
        """The game, with the stored events its load read (:meth:`GameLoader.load_reading`): hand them to :meth:`feed`."""
        return self.loader.load_reading(game_id)

    @property
    def snapshot_every(self) -> int:
        return self.loader.snapshot_every

    @snapshot_every.setter
    def snapshot_every(self, every: int) -> None:
        self.loader.snapshot_every = every

    def games_of(self, player: Player, *, status: str | None = None, limit: int = 50, cursor: str | None = None) -> GamePage:
        return self.lists.games_of(player, status=status, limit=limit, cursor=cursor)

    def open_tables(
        self, filters: TableFilter, *, limit: int = 20, cursor: str | None = None, viewer: str | None = None
    ) -> OpenTablePage:
        """A page of the listed games with a human seat open, newest first (see :mod:`service.application.tables`);
        for a ``viewer``, none whose seated players and they are kept apart by a block (they could not sit there)."""

        def apart(game: Game) -> bool:
            seated = {s.player_id for s in game.seats if s.player_id and s.player_id != viewer}
            return viewer is not None and kept_apart(self.block_store, viewer, seated)

        return self.tables.page(filters, limit, cursor, hidden=apart if viewer is not None else None)

    def feed(
        self, game: Game, viewer: str | None, after: int = 0, limit: int = 100, read: Sequence[tuple[int, str]] = ()
    ) -> list[dict[str, Any]]:
        return self.feeds.feed(game, viewer, after, limit, read)

    def replay(self, game: Game, viewer: str | None, *, keep: bool = True) -> dict[str, Any]:
        return self.feeds.replay(game, viewer, keep=keep)

    def wait(
        self, game_id: str, after: int, timeout: float, waiter: Waiter | None = None, also: Mapping[str, str] | None = None
    ) -> bool:
        """Wait up to ``timeout`` seconds for the game to hold an event above ``after`` (``False``: none came in time, or
        ``waiter`` stopped the wait: its client left); a long-poll's and a stream's wait.  ``also``: other streams of
        the game's that end the wait too (its table talk: :meth:`TalkService.follow
        <service.application.talk.TalkService.follow>`)."""
        return self.store.wait(game_id, after, timeout, waiter, also)

    def check_store(self) -> None:
        """Ask the event store whether it answers (a readiness check): it raises its own error when it does not."""
        self.store.redis.ping()

    # --- writing ----------------------------------------------------------------------

    def act(
        self,
        game_id: str,
        player: Player,
        steps: Sequence[Step],
        *,
        expected_version: int | frozenset[int] | None = None,
        idempotency: Idempotency | None = None,
        request_id: str | None = None,
    ) -> Outcome:
        """A player's steps, all or nothing, as one atomic append.

        ``expected_version``: the version the player acted on, or any of several (an If-Match list); ``None``: any.

        With ``idempotency``, a retry gets back what the first attempt made (the
        version it appended: :meth:`as_of` gives that game) instead of acting twice.

        The first attempt decides on this process's cached fold of the game,
        which saves reading the stream; the append's version check catches a
        cache that was behind, and any refusal on a cached fold is decided
        again on the game read afresh.  A conflict on the game read afresh is
        the caller's to resolve (it decided on what it saw).  ``request_id``: the request's, for the jobs it causes.
        """
        expected = frozenset({expected_version}) if isinstance(expected_version, int) else expected_version
        return self.decided_afresh(
            game_id,
            lambda game, _: self._act_on(game, player, steps, expected, idempotency, request_id),
            cache_ok=lambda cached: expected is None or min(expected) <= cached.version,
        )

    def _act_on(
        self,
        game: Game,
        player: Player,
        steps: Sequence[Step],
        expected: frozenset[int] | None,
        idempotency: Idempotency | None,
        request_id: str | None = None,
    ) -> Outcome:
        try:
            return self._decide_and_append(game, player, steps, expected, idempotency, request_id)
        except NotConfirmed:
            raise  # the append may have happened (unconfirmed by replicas): never decide it a second time
        except (Refused, RuleViolation):
            # A retry of a request made before (Idempotency-Key) is answered as its first attempt left the game. Asked
            # only when the steps are refused: one that goes through is answered by the append's script, which finds
            # the record first; so the usual request pays no read of the record.
            if (replay := self.recorded(game.id, idempotency)) is not None:
                return Outcome(replayed=replay)
            raise

    def _decide_and_append(
        self,
        game: Game,
        player: Player,
        steps: Sequence[Step],
        expected: frozenset[int] | None,
        idempotency: Idempotency | None,
        request_id: str | None = None,
    ) -> Outcome:
        seat = game.seat_of(player.id)
        if seat is None:
            raise Refused("not_a_player", "Only seated players act in a game; you can watch it.")
        if game.seats[seat].resigned:
            raise Refused("seat_resigned", "You resigned from this game; an AI plays your seat.")
        if game.status == "aborted":  # the engine's state stopped mid-turn: the lobby knows it is over
            raise Refused("game_not_active", "The game was aborted: nothing more is played in it.")
        if expected is not None and game.version not in expected:
            raise Conflict(max(expected), game.version)
        events, _ = decide_steps(game.state, steps, seat)
        outcome = self.append(game, events, f"player:{player.id}", idempotency=idempotency, request_id=request_id)
        if game.days_per_turn and self.calendars is not None:
            self.calendars.on_vacation_back(player.id)  # they are back: an automatic vacation ends
        return outcome

    def advance(
        self,
        game_id: str,
        expected_version: int,
        decide: Callable[[Game], Sequence[LobbyEvent | Event]],
        *,
        by: str | Callable[[], Sequence[str]],
        playing_on: bool = False,
        request_id: str | None = None,
    ) -> Game | None:
        """A job's write: only if the game is still at ``expected_version``, else nothing.

        ``decide`` gets the loaded game and returns the events to append
        (empty: nothing to do).  A job that finds the game moved on — a
        duplicate, a retry, a late deadline — returns ``None`` and appends
        nothing, which makes every job safe to run twice.  ``playing_on``: the
        job plays the game's next quick AI turn itself, so it is not queued.  ``by``: as
        :meth:`~service.application.appending.GameWrites.write` takes it.  ``request_id``: the request that caused
        the job, carried on into the jobs this write queues.
        """

        def still_due(game: Game) -> Sequence[LobbyEvent | Event]:
            return decide(game) if game.version == expected_version else ()

        outcome = self.write(game_id, still_due, by, OnConflict.GIVE_UP, playing_on=playing_on, request_id=request_id)
        return outcome.game if outcome is not None else None

    def ai_turn_finished(self, game: Game, version: int) -> None:
        """An AI turn of ``game`` queued for ``version`` ran (whatever came of it): the place it held in its owner's
        share of the workers goes to the first of the owner's games waiting for one that still needs it."""
        for game_id in self.followups.turn_finished(game, version):
            try:
                waiting = self.load(game_id)
            except NotFound:
                waiting = Game(game_id)  # gone: nothing is due, so it leaves the line
            if self.followups.offer_place(waiting, self.needs(waiting)):
                return

    def games_in_play(self) -> Iterator[str]:
        """The ids of every game the stores hold as in play (an over one still owing something included): what the
        ticker puts on the agenda again when the queue's Redis lost its data (:mod:`service.storage.inplay`)."""
        return self.in_play.scan()

    def index_games_in_play(self) -> tuple[int, int]:
        """Enter every game of the stores not over in the index of games in play (``red7 migrate``: games made before
        the index was kept); how many games were looked at, and how many are in play.  Safe to run again."""
        looked = entered = 0
        for game_id in self.store.streams():
            looked += 1
            try:
                game = self.load(game_id)
            except NotFound:
                continue
            if game.status not in OVER or (game.rematch is not None and not game.rematch_started):
                self.in_play.add(game_id)
                entered += 1
        return looked, entered

    def settle(self, game_id: str, game: Game | None, looked_at_again: bool) -> None:
        """The ticker looked at a game (``None``: it is not there): one over (or gone) that nothing will look at
        again leaves the games in play."""
        if game is None or (game.status in OVER and not looked_at_again):
            self.in_play.discard(game_id)

    def ensure_progress(self, game: Game) -> None:
        """Re-offer what a game quiet for ``recover_after`` seconds needs: a read must never find it stalled (nor a
        rematch agreed on and not made).

        A game in play is moved on by its appends themselves; a quiet one may
        be waiting on a job that was lost, killed with its worker or never
        queued (the dispatcher queues again only what is not on its way).
        Never fails the read: the ticker's sweep does the same a moment later.

        A process re-offers a version of a game at most once every ``recover_after`` seconds, however often it is
        read: a quiet game is polled many times a second, and what a re-offer queued a moment ago is on its way (a
        timed game's re-offer writes the agenda each time).  A job lost just after a re-offer is queued again by a
        read at most ``recover_after`` seconds later (the ticker's look does the same meanwhile).
        """
        if game.rematch is not None and not game.rematch_started:
            try:
                self.start_rematch(game.id)  # its offering request stopped before it made the rematch
            except Exception:
                log.exception("could not make the rematch %s of game %s; the next read or the ticker will", game.rematch, game.id)
            return
        if game.status != "active" or not game.updated_at:
            return
        now = time.monotonic()
        offered = self._reoffered.get(game.id)
        if offered is not None and offered[0] == game.version and now - offered[1] < self.recover_after:
            return
        updated = datetime.fromisoformat(game.updated_at.replace("Z", "+00:00"))
        if (datetime.fromisoformat(self.clock().replace("Z", "+00:00")) - updated).total_seconds() < self.recover_after:
            return
        try:
            self.followups.reoffer(game, self.needs(game))
        except Exception:
            log.exception("could not re-offer what game %s needs at version %s", game.id, game.version)
            return
        if len(self._reoffered) > 10_000:
            self._reoffered.clear()  # only spares repeats: forgetting costs one more re-offer a game
        self._reoffered[game.id] = (game.version, now)
