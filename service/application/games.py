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
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from engine import Event, RuleViolation, Step, decide_steps
from service.application import compaction
from service.application.appending import OVER, GameWrites, OnConflict
from service.application.calendars import Calendars, TurnClock, turn_of
from service.application.commands import GamePage, NewGame, Outcome, utc_now
from service.application.erasure import DELETED_NAME
from service.application.followups import Due, FollowUps, NoFollowUps, due
from service.application.listing import GameLists
from service.application.loading import GameLoader
from service.application.quotas import Quotas
from service.application.rated_play import RatedPlay
from service.application.reading import GameFeeds
from service.application.rematches import RematchPlan, plan_rematch
from service.application.tables import OpenTablePage, OpenTables, TableFilter
from service.common.config import Settings
from service.common.errors import Conflict, NotConfirmed, NotFound, Refused
from service.domain.deadlines import Turn
from service.domain.deadlines import deadline as turn_deadline
from service.domain.game import Game
from service.domain.lobby import (
    Abort,
    Cancel,
    DeclineRematch,
    GiveTime,
    Join,
    Leave,
    LobbyEvent,
    OfferRematch,
    RematchOffered,
    RematchStarted,
    SeatSpec,
    SetUp,
)
from service.domain.lobby import decide as lobby_decide
from service.storage.changes import ChangeWatch
from service.storage.events import EventStore, Idempotency, IdempotencyMismatch, Replayed, Waiter
from service.storage.idempotency import CreateRecords
from service.storage.inplay import GamesInPlay
from service.storage.players import Player, PlayerStore, games_key, new_id, records_key
from service.storage.tables import TableIndex

log = logging.getLogger("red7.games")

#: The AI that takes the seat of a player whose account was deleted while the game is in play.
DEPARTED_LEVEL = "greedy"
#: How often a deleted player's departure from one game is decided again when the game moved on between its read and
#: its write.
DEPARTURE_ATTEMPTS = 3


class GameService(GameWrites):
    """Every command on a game, and the reads the entry points need, over the loader, the lists and the feeds."""

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

    def open_tables(self, filters: TableFilter, *, limit: int = 20, cursor: str | None = None) -> OpenTablePage:
        """A page of the listed games with a human seat open, newest first (see :mod:`service.application.tables`)."""
        return self.tables.page(filters, limit, cursor)

    def feed(
        self, game: Game, viewer: str | None, after: int = 0, limit: int = 100, read: Sequence[tuple[int, str]] = ()
    ) -> list[dict[str, Any]]:
        return self.feeds.feed(game, viewer, after, limit, read)

    def replay(self, game: Game, viewer: str | None) -> dict[str, Any]:
        return self.feeds.replay(game, viewer)

    def wait(self, game_id: str, after: int, timeout: float, waiter: Waiter | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the game to hold an event above ``after`` (``False``: none came in time, or
        ``waiter`` stopped the wait: its client left); a long-poll's and a stream's wait."""
        return self.store.wait(game_id, after, timeout, waiter)

    def check_store(self) -> None:
        """Ask the event store whether it answers (a readiness check): it raises its own error when it does not."""
        self.store.redis.ping()

    # --- writing ----------------------------------------------------------------------

    def create(self, creator: Player, request: NewGame, idempotency: Idempotency | None = None) -> Outcome:
        """A new game (``Outcome.game``); with ``idempotency``, once per key of the creator.

        The key's record (the game's id and the version its creation makes) is claimed on the creator's slot with
        the game's place in their list, before the game is appended: a retry that finds the game answers with it
        as it was made (``replayed``), and one that does not (the first attempt stopped, or Redis refused its
        append) makes it under the recorded id, which only one append can ever do.
        """
        try:
            return self._create(creator, request, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None

    def _create(self, creator: Player, request: NewGame, idempotency: Idempotency | None) -> Outcome:
        records = records_key(self.players.prefix, creator.id)
        if idempotency is not None and (first := self.records.find(records, idempotency)) is not None:
            return self._create_again(creator, request, first)
        if request.rated and any(seat.kind == "human" for seat in request.seats):
            self.check_rated(creator)  # they take the first human seat
        self.quotas.check_new_game(creator, sum(1 for seat in request.seats if seat.kind == "ai"))
        if request.listed:
            self.tables.check_cap(creator, self.lists.in_play, self.players.count_games(creator.id))
        if request.deck is not None and not self.allow_custom_decks:
            raise Refused("custom_decks_disabled", "This server does not accept explicit decks (RED7_ALLOW_CUSTOM_DECKS).")
        if request.deck is not None and sorted(request.deck) != list(range(49)):
            raise Refused(
                "invalid_request",
                "A deck must list each of the 49 cards exactly once.",
                errors=[{"field": "deck", "message": "must list each of the 49 cards exactly once", "location": "json"}],
            )
        new = Game(new_id("g"))
        events = lobby_decide(new, self._set_up(creator, request))
        self._list_table(new.id, request)
        if idempotency is None:
            self.players.add_game(creator.id, new.id)  # listed first: a crash before the append lists a game not there
        else:
            made = {"id": new.id, "version": len(events)}
            listed = games_key(self.players.prefix, creator.id)
            first = self.records.claim(records, idempotency, made, also=lambda pipe: pipe.sadd(listed, new.id))
            if first is not None:  # an attempt with this key beside this one claimed it first
                return self._create_again(creator, request, first)
        return self.append(new, events, f"player:{creator.id}")

    def _create_again(self, creator: Player, request: NewGame, first: dict[str, Any]) -> Outcome:
        """A retry of a create: the game as its first attempt made it, or made now if that attempt never did."""
        game_id, version = first["id"], first["version"]
        if not self.store.exists(game_id):
            new = Game(game_id)
            self._list_table(game_id, request)
            try:
                return self.append(new, lobby_decide(new, self._set_up(creator, request)), f"player:{creator.id}")
            except Conflict:
                pass  # the first attempt made it meanwhile: its answer, below
        return Outcome(game=self.as_of(game_id, version), replayed=Replayed(version))

    def set_up(
        self, creator: Player, request: NewGame, seated: Sequence[tuple[int, Player]] = (), *, game_id: str | None = None
    ) -> Game | None:
        """A game with players seated at once (a match, an accepted challenge, a rematch): ``creator`` on the first
        human seat (it owns the AI seats), each of ``seated`` on theirs.  Under ``game_id``, a second set-up of the
        same game makes nothing (``None``): whoever finishes a set-up that stopped half-way may simply do it again.

        Its players may not be the ones who asked for it (a challenge accepted, a match the matchmaker found), and
        one of them may be deleting their account meanwhile: once the game is there, its players' tombstones are
        read, and a deleted player leaves it at once (:meth:`depart`).  The game was listed on each player's slot
        before it was appended, so a deletion whose tombstone came after that read finds it there
        (:class:`~service.application.players.PlayerService`): either way no deleted player keeps a seat in it.
        """
        new = Game(game_id or new_id("g"))
        events = lobby_decide(new, self._set_up(creator, request, seated))
        self._list_table(new.id, request, len(seated))
        players = (creator, *(player for _, player in seated))
        for player in players:
            self.players.add_game(player.id, new.id)  # listed first: a crash before the append lists a game not there
        try:
            made = self.append(new, events, f"player:{creator.id}").game
        except Conflict:
            made = None  # made already, by this set-up's first attempt
        gone = self.players.deleted_among({player.id for player in players})
        for player_id in sorted(gone):
            self.depart(new.id, player_id)
        return self.load(new.id) if gone and made is not None else made

    def depart(self, game_id: str, player_id: str, level: str = DEPARTED_LEVEL) -> None:
        """A deleted player leaves a game: called off if it is waiting and theirs, their seat opened if it is waiting,
        taken by an AI of ``level`` if it is in play; safe to repeat.  Once their part in it is over, the game leaves
        their list; a game still waiting without them stays listed, for a join of theirs that may still be on its way
        seats them (that join ends it, :meth:`PlayerService.still_there`), as does a game not there yet."""
        player = Player(player_id, DELETED_NAME, "")
        for _ in range(DEPARTURE_ATTEMPTS):
            try:
                game = self.load(game_id)
            except NotFound:
                return  # not made yet (a create on its way), or never: its maker looks again once it is
            seat = game.seat_of(player_id)
            try:
                if game.status == "waiting" and game.created_by == player_id:
                    self.cancel(game_id, player)  # and it leaves everyone's list
                    return
                if game.status in ("waiting", "active") and seat is not None and not game.seats[seat].resigned:
                    self.leave(game_id, player, level)
                    continue  # looked at again: over for them once it shows so
            except Refused as refused:  # the game moved on (it started, say): look at it again
                log.info("game %s refused deleted player %s's departure (%s); deciding again", game_id, player_id, refused.code)
                continue
            if game.status != "waiting" or seat is not None:
                self.players.forget_game({player_id}, game_id)  # over, left, or an AI plays the seat: their part is over
            return
        log.warning("deleted player %s could not leave game %s in %d attempts", player_id, game_id, DEPARTURE_ATTEMPTS)

    def _list_table(self, game_id: str, request: NewGame, seated: int = 0) -> None:
        """Enter a listed game that will have a human seat open in the open tables, before its first append (a crash
        between the two leaves an entry for a game that is not there, which a reader drops)."""
        humans = sum(1 for seat in request.seats if seat.kind == "human")
        if request.listed and humans > 1 + seated:
            self.tables.enter(game_id, request, _turn_timeout(request))

    @staticmethod
    def _set_up(creator: Player, request: NewGame, seated: Sequence[tuple[int, Player]] = ()) -> SetUp:
        """The lobby's command for ``request``: the creator on the first human seat, ``seated`` on theirs."""
        turn_timeout = _turn_timeout(request)
        return SetUp(
            creator_id=creator.id,
            creator_name=creator.name,
            seats=tuple(SeatSpec(s.kind, s.level) for s in request.seats),
            variant=request.variant,
            action_rules=request.action_rules,
            turn_timeout=turn_timeout,
            timeout_action=request.timeout_action,
            listed=request.listed,
            rated=request.rated,
            days_per_turn=request.days_per_turn,
            origin=request.origin,
            rematch_of=request.rematch_of,
            seated=tuple((seat, player.id, player.name) for seat, player in seated),
            dealing="custom" if request.deck is not None else "seeded" if request.seed is not None else "random",
            seed=request.seed if request.seed is not None else secrets.randbits(53),  # exact in JavaScript too
            deck=tuple(request.deck) if request.deck is not None else None,
            join_code=secrets.token_urlsafe(6),
        )

    def join(
        self, game_id: str, player: Player, code: str = "", seat: int | None = None, idempotency: Idempotency | None = None
    ) -> Outcome:
        """Take an open human seat (with the join code, unless the game is listed); the game starts when the last seat
        is taken (and a listed one leaves the open tables: the append path sees to it).

        With ``idempotency``, a retry gets the game as the first attempt left it (its record goes down in the
        same append as the seat), not ``already_seated``.
        """

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, Join(player.id, player.name, code, seat))
            if game.rated:
                self.check_rated(player)
            self.quotas.check_join(player)
            self.players.add_game(player.id, game_id)
            return events

        return self._lobby_write(game_id, player, decide, idempotency)

    def leave(self, game_id: str, player: Player, level: str = "greedy", idempotency: Idempotency | None = None) -> Outcome:
        """Give up a seat: before the start it opens again; in play an AI of ``level`` takes it, so the others play on.

        With ``idempotency``, a retry gets the game as the first attempt left it, not ``seat_resigned``.
        """
        outcome = self._lobby_write(game_id, player, lambda game: lobby_decide(game, Leave(player.id, level)), idempotency)
        game = outcome.game
        if (
            outcome.replayed is None
            and game is not None
            and game.seat_of(player.id) is None
            and self.load(game_id).seat_of(player.id) is None
        ):
            self.players.forget_game({player.id}, game.id)  # left before the start (and not back already)
        return outcome

    def cancel(self, game_id: str, player: Player) -> Game:
        """Call off a game that has not started; it leaves everyone's list of games."""
        game = self._lobby_write(game_id, player, lambda game: lobby_decide(game, Cancel(player.id))).game
        assert game is not None  # no idempotency: never a replayed answer
        self.lists.forget(game)
        return game

    def abort(self, game_id: str, player: Player, idempotency: Idempotency | None = None) -> Outcome:
        """Call off a game in play before every seat has moved once (any of its players): it ends with no winner, is
        never rated, and leaves every list (the players', and the open tables should it still be there).  The abort
        of a rated game is noted for its player (too many suspend them from rated play: ``rated_play``).

        A game still waiting is its creator's to cancel (:meth:`cancel`); once every seat has moved, a player who wants
        out resigns (:meth:`leave`) and an AI plays on.
        """

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, Abort(player.id))
            if game.rated and self.rated_play is not None:  # noted before the append: a retry notes the same game
                self.rated_play.note_abort(player.id, game.id)
            return events

        outcome = self._lobby_write(game_id, player, decide, idempotency)
        game = outcome.game
        if game is not None and game.status == "aborted":
            self.lists.forget(game)
        return outcome

    def offer_rematch(self, game_id: str, player: Player, idempotency: Idempotency | None = None) -> Outcome:
        """Offer (or accept) a rematch at a finished game's end; offering again changes nothing.

        The offer that completes the set (every human seat's player wants one) names the new game in the event that
        records it, and the rematch is then made here at once (:meth:`start_rematch`); should this stop before it
        is, the next read of the game, or the job the append queued, makes it under that id.  Each player must have
        room for another game in play (``game_limit_reached``), and the rematch's creator for its AI seats.
        """
        rematch_id = new_id("g")

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, OfferRematch(player.id, rematch_id))
            if events:
                if game.rated:
                    self.check_rated(player)
                self.quotas.check_join(player)
                if any(isinstance(e, RematchOffered) and e.rematch_id for e in events):
                    plan = plan_rematch(game)
                    self._check_rematch_quotas(plan, player)
                    if game.rated:  # the rematch is rated too: everyone in it must be able to play one
                        people = [plan.creator, *((player_id, name) for _, player_id, name in plan.seated)]
                        self.check_rated(*(self._player(player_id, name) for player_id, name in people))
            return events

        outcome = self.write(game_id, decide, f"player:{player.id}", OnConflict.RETRY, idempotency=idempotency)
        now = self.load(game_id)
        if now.rematch is not None and not now.rematch_started:
            try:
                now = self.start_rematch(game_id)
            except Exception:  # the offer was stored: its job, or the next read of the game, makes the rematch
                log.exception("could not make the rematch %s of game %s now; its job or the next read will", now.rematch, game_id)
        if outcome is None or outcome.replayed is None:
            return Outcome(game=now)
        return outcome

    def decline_rematch(self, game_id: str, player: Player, idempotency: Idempotency | None = None) -> Outcome:
        """Want no rematch of a finished game (an offer made before is withdrawn): there will be none; declining again
        changes nothing."""

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            return lobby_decide(game, DeclineRematch(player.id))

        outcome = self.write(game_id, decide, f"player:{player.id}", OnConflict.RETRY, idempotency=idempotency)
        return outcome if outcome is not None else Outcome(game=self.load(game_id))

    def start_rematch(self, game_id: str) -> Game:
        """Make the rematch a finished game's players agreed on, then note on that game that it was made.

        Safe to do again and from anywhere (the offering request, a ``start_rematch`` job, a read of the game): the
        set-up is made under the id the last offer named, which only one append can ever do, and the note is appended
        once.  Returns the finished game as it is after.
        """
        game = self.load(game_id)
        if game.rematch is None or game.rematch_started:
            return game
        plan = plan_rematch(game)
        seated = [(seat, self._player(player_id, name)) for seat, player_id, name in plan.seated]
        self.set_up(self._player(*plan.creator), plan.request, seated, game_id=game.rematch)

        def note(current: Game) -> Sequence[LobbyEvent | Event]:
            rematch = current.rematch
            return [RematchStarted(rematch)] if rematch is not None and not current.rematch_started else []

        outcome = self.write(game_id, note, "system:rematch", OnConflict.RETRY)
        return outcome.game if outcome is not None and outcome.game is not None else self.load(game_id)

    def _player(self, player_id: str, name: str) -> Player:
        """A player of a finished game as they are now (one who deleted their account: as the game knew them)."""
        return self.players.get(player_id) or Player(player_id, name or "player", "")

    def _check_rematch_quotas(self, plan: RematchPlan, asking: Player) -> None:
        """Refuse the offer that would start a rematch one of its players has no room for (games in play, or the
        creator's AI seats); it starts once they have room and the offer is made again."""
        for player_id, name in [plan.creator, *((player_id, name) for _, player_id, name in plan.seated)]:
            player = asking if player_id == asking.id else self._player(player_id, name)
            try:
                if player_id == plan.creator[0]:
                    self.quotas.check_new_game(player, plan.ai_seats)
                else:
                    self.quotas.check_join(player)
            except Refused as refusal:
                if player_id == asking.id:
                    raise
                raise Refused(
                    refusal.code,
                    f"The rematch cannot start yet: {player.name} is at a limit of the games a player may hold "
                    f"({refusal.code}). Offer again once they have finished one.",
                    player_id=player_id,
                    **refusal.facts,
                ) from None

    def _lobby_write(
        self,
        game_id: str,
        player: Player,
        decide: Callable[[Game], Sequence[LobbyEvent | Event]],
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """A lobby command: decided again on the game as it is now if another write came first."""
        outcome = self.write(game_id, decide, f"player:{player.id}", OnConflict.RETRY, idempotency=idempotency)
        assert outcome is not None  # a lobby command either decides events or is refused
        return outcome

    def act(
        self,
        game_id: str,
        player: Player,
        steps: Sequence[Step],
        *,
        expected_version: int | frozenset[int] | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """A player's steps, all or nothing, as one atomic append.

        ``expected_version``: the version the player acted on, or any of several (an If-Match list); ``None``: any.

        With ``idempotency``, a retry gets back what the first attempt made (the
        version it appended: :meth:`as_of` gives that game) instead of acting twice.

        The first attempt decides on this process's cached fold of the game,
        which saves reading the stream; the append's version check catches a
        cache that was behind, and any refusal on a cached fold is decided
        again on the game read afresh.  A conflict on the game read afresh is
        the caller's to resolve (it decided on what it saw).
        """
        expected = frozenset({expected_version}) if isinstance(expected_version, int) else expected_version
        cached = self.loader.cached(game_id)
        if cached is not None and (expected is None or min(expected) <= cached.version):
            try:
                return self._act_on(cached, player, steps, expected, idempotency)
            except NotConfirmed:
                raise  # the append may have happened (unconfirmed by replicas): never decide it a second time
            except (Refused, RuleViolation):
                pass  # perhaps only the cache was behind: decide again on the stream itself
        return self._act_on(self.load(game_id), player, steps, expected, idempotency)

    def _act_on(
        self,
        game: Game,
        player: Player,
        steps: Sequence[Step],
        expected: frozenset[int] | None,
        idempotency: Idempotency | None,
    ) -> Outcome:
        try:
            return self._decide_and_append(game, player, steps, expected, idempotency)
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
        outcome = self.append(game, events, f"player:{player.id}", idempotency=idempotency)
        if game.days_per_turn and self.calendars is not None:
            self.calendars.on_vacation_back(player.id)  # they are back: an automatic vacation ends
        return outcome

    def give_time(self, game_id: str, player: Player, seconds: int, idempotency: Idempotency | None = None) -> Outcome:
        """Give ``seconds`` to the turn of the player to move (another's): refused without a turn limit
        (``no_turn_limit``), when it is nobody else's turn (``not_their_turn``), or beyond what the turn may still be
        given (``give_time_limit_reached``: in all, as much as its own limit)."""
        return self._lobby_write(game_id, player, lambda game: lobby_decide(game, GiveTime(player.id, seconds)), idempotency)

    def advance(
        self,
        game_id: str,
        expected_version: int,
        decide: Callable[[Game], Sequence[LobbyEvent | Event]],
        *,
        by: str | Callable[[], Sequence[str]],
        playing_on: bool = False,
    ) -> Game | None:
        """A job's write: only if the game is still at ``expected_version``, else nothing.

        ``decide`` gets the loaded game and returns the events to append
        (empty: nothing to do).  A job that finds the game moved on — a
        duplicate, a retry, a late deadline — returns ``None`` and appends
        nothing, which makes every job safe to run twice.  ``playing_on``: the
        job plays the game's next quick AI turn itself, so it is not queued.  ``by``: as
        :meth:`~service.application.appending.GameWrites.write` takes it.
        """

        def still_due(game: Game) -> Sequence[LobbyEvent | Event]:
            return decide(game) if game.version == expected_version else ()

        outcome = self.write(game_id, still_due, by, OnConflict.GIVE_UP, playing_on=playing_on)
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
        if (datetime.now(UTC) - updated).total_seconds() < self.recover_after:
            return
        try:
            self.followups.reoffer(game, self.needs(game))
        except Exception:
            log.exception("could not re-offer what game %s needs at version %s", game.id, game.version)
            return
        if len(self._reoffered) > 10_000:
            self._reoffered.clear()  # only spares repeats: forgetting costs one more re-offer a game
        self._reoffered[game.id] = (game.version, now)


def _turn_timeout(request: NewGame) -> int | None:
    """Seconds a turn may take: ``days_per_turn`` days, else the request's ``turn_timeout``."""
    return request.days_per_turn * 24 * 3600 if request.days_per_turn else request.turn_timeout
