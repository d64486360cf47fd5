"""Appending what was decided: the one append path every writer takes, and its policy on conflicts.

Every write ends in :meth:`GameWrites.append`: the events (the lobby's and
the engine's, typed) are folded into a copy of the game, stored in one
append checked against the version and head they were decided on, and the
game after them is cached and handed to the job system with what it needs
next (:func:`~service.application.followups.due`, computed once, before the
write: an append with nothing for the agenda to time is not noted on it,
:func:`~service.application.followups.noted`).
:meth:`GameWrites.write` is load, decide, append, with what to do when
another write came first said by the caller (:class:`OnConflict`).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Sequence
from typing import TypeVar

from engine import Event, GameStarted, RuleViolation
from service.application.commands import Outcome
from service.application.followups import WATCHED, Due, FollowUps, noted
from service.application.listing import GameLists
from service.application.loading import GameLoader
from service.application.tables import OpenTables
from service.common.errors import Conflict, NotConfirmed, Refused
from service.domain.game import Game, apply_event, event_envelope
from service.domain.game import load as load_game
from service.domain.lobby import GameAborted, GameCancelled, LobbyEvent
from service.storage.events import EventStore, Idempotency, IdempotencyMismatch, NotReplicated, Replayed, VersionConflict
from service.storage.inplay import GamesInPlay

log = logging.getLogger("red7.games")

#: What a decision makes: lobby and engine events, in the order they happen.
Decided = Sequence[LobbyEvent | Event]


class OnConflict(enum.Enum):
    """What a writer does when the game moved on between its read and its append."""

    #: Decide again on the game as it is now (a lobby command: its rules are checked again).
    RETRY = "retry"
    #: Append nothing: what the write was for is done or moot (a job queued for a version the game left).
    GIVE_UP = "give_up"
    #: Tell the caller (:class:`~service.common.errors.Conflict`): it decided on a version it saw (``If-Match``).
    RAISE = "raise"


#: A game's statuses once it is over: it leaves the index of games in play when it owes nothing more.
OVER = frozenset({"finished", "aborted", "cancelled"})

#: How often a writer with :attr:`OnConflict.RETRY` decides again before it gives up with a conflict.
RETRIES = 5

T = TypeVar("T")


class _Again:
    """What an attempt of :meth:`GameWrites.decided_afresh` returns to be tried again on the game read afresh."""


#: Try again on the game read afresh (see :meth:`GameWrites.decided_afresh`).
AGAIN = _Again()


class GameWrites:
    """The append path shared by every command (see :class:`~service.application.games.GameService`)."""

    store: EventStore
    loader: GameLoader
    lists: GameLists
    tables: OpenTables
    #: The games in play, on the stores: what a queue Redis that lost its data is rebuilt from.
    in_play: GamesInPlay
    clock: Callable[[], str]
    followups: FollowUps
    needs: Callable[[Game, Decided], list[Due]]

    def write(
        self,
        game_id: str,
        decide: Callable[[Game], Decided],
        by: str | Callable[[], Sequence[str]],
        on_conflict: OnConflict,
        *,
        idempotency: Idempotency | None = None,
        playing_on: bool = False,
        request_id: str | None = None,
    ) -> Outcome | None:
        """Load the game, ``decide`` on it, append what it decided; ``None`` if it decided nothing, or gave up.

        With ``idempotency``, a request made before is answered as its first attempt left the game
        (``Outcome.replayed``), whatever the game is now: it is not decided a second time.

        The first attempt decides on this process's cached fold of the game, if it has one, which saves reading the
        stream (a job playing AI turns one after another reads it once): the append checks the version and the head
        it was decided on, so a fold that was behind, or of a history Redis lost, appends nothing, and whatever the
        cached fold decided or refused (nothing to do, a conflict, a refusal) is decided again on the game read
        afresh.

        ``by``: who decided (``ai:1``, ``player:<id>``, ``system:…``); or, for a decision that several actors made one
        after another (a job playing quick AIs' turns in one append), a callable asked after each ``decide`` for the
        actor of each event it returned.  ``request_id``: the request (or the job a request caused) that decided,
        handed to the jobs the append causes.
        """

        def attempt(game: Game, from_cache: bool) -> Outcome | _Again | None:
            if (replayed := self.recorded(game_id, idempotency)) is not None:
                return Outcome(game=self.as_of(game_id, replayed.version), replayed=replayed)
            events = decide(game)  # a refusal on a cached fold is decided again on the stream (decided_afresh)
            if not events:
                return AGAIN if from_cache else None
            try:
                authors = by if isinstance(by, str) else by()
                outcome = self.append(
                    game, events, authors, idempotency=idempotency, playing_on=playing_on, request_id=request_id
                )
            except NotConfirmed:
                raise
            except Conflict:
                if from_cache or on_conflict is OnConflict.RETRY:
                    return AGAIN  # the cache was behind (append forgot it), or decide again on the game as it is now
                if on_conflict is OnConflict.GIVE_UP:
                    return None
                raise
            if outcome.replayed is not None:
                return Outcome(game=self.as_of(game_id, outcome.replayed.version), replayed=outcome.replayed)
            return outcome

        return self.decided_afresh(game_id, attempt, tries=RETRIES)

    def decided_afresh(
        self,
        game_id: str,
        attempt: Callable[[Game, bool], T | _Again],
        *,
        tries: int = 2,
        cache_ok: Callable[[Game], bool] = lambda cached: True,
    ) -> T:
        """``attempt`` on this process's cached fold of the game, then on the game read afresh: the one loop of every
        writer (:meth:`write`, and a player's steps, ``GameService.act``).

        The first try decides on the cached fold, if there is one and ``cache_ok`` says it will do, which saves reading
        the stream; the append checks the version and the head it was decided on, so a fold that was behind appends
        nothing.  Whatever the cached fold refused (a :class:`~service.common.errors.Refused`, a conflict, the engine's
        :class:`~engine.RuleViolation`) is tried again on the game read afresh, where a refusal is the caller's.
        ``attempt(game, from_cache)`` returns :data:`AGAIN` to be tried again on a fresh read (at most ``tries`` in
        all, then a :class:`~service.common.errors.Conflict`).  A :class:`~service.common.errors.NotConfirmed` is
        never tried again: the append may have happened.
        """
        cached = self.loader.cached(game_id)
        if cached is not None and not cache_ok(cached):
            cached = None
        for _ in range(tries):
            game = cached if cached is not None else self.loader.load(game_id)
            from_cache, cached = cached is not None, None
            try:
                result = attempt(game, from_cache)
            except NotConfirmed:
                raise  # the append may have happened (unconfirmed by replicas): never decide it a second time
            except (Refused, RuleViolation):
                if from_cache:
                    continue  # perhaps only the cache was behind: decide again on the stream itself
                raise
            if not isinstance(result, _Again):
                return result
        raise Conflict(game.version, self.loader.load(game_id).version, "The game kept changing; try again.")

    def recorded(self, game_id: str, idempotency: Idempotency | None) -> Replayed | None:
        """What answers this request again, if it was made before.

        Checked after loading the game: a first attempt whose events that load saw stored its record in the same
        atomic append, so a retry never decides anew.  (A fold older than the first attempt decides as the first
        attempt did, and the append then finds the stored record first.)
        """
        if idempotency is None:
            return None
        try:
            return self.store.idempotent_response(game_id, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            raise NotConfirmed(short.version, short.replicas, short.wanted) from None

    def as_of(self, game_id: str, version: int) -> Game:
        """The game as it was at ``version`` (a retried request is answered with the view its first attempt made)."""
        game = self.loader.load(game_id)
        if game.version == version:
            return game  # the usual retry: nothing happened since
        events = self.store.read(game_id, 0, version)
        return load_game(game_id, [(e.number, e.payload) for e in events])

    def append(
        self,
        game: Game,
        events: Decided,
        by: str | Sequence[str],
        *,
        idempotency: Idempotency | None = None,
        playing_on: bool = False,
        request_id: str | None = None,
    ) -> Outcome:
        """Append ``events``, decided on ``game``, as one atomic write; ``by``: who made them, or who made each.

        Raises :class:`Conflict` if the game is no longer the one they were decided on, :class:`NotConfirmed` if
        too few replicas confirmed the write (it was stored, and the game moves on as if it had been confirmed).
        ``request_id``: the request that decided them, handed to the jobs the append causes (for their log lines).
        """
        at = self.clock()
        after = game.copy()
        authors = [by] * len(events) if isinstance(by, str) else by
        payloads = []
        for event, author in zip(events, authors, strict=True):
            payloads.append(event_envelope(event, at=at, by=author))
            apply_event(after, after.version + 1, event, at)
        after.head = payloads[-1]
        if game.version == 0:
            self.in_play.add(game.id)  # before its first append: a crash between indexes a game not there, never misses one
        items = self.needs(after, events)  # known before the write: whether the agenda need note it at all
        mark = self.followups.before_append(game.id) if noted(game, items) else None
        try:
            result = self.store.append(game.id, game.version, payloads, expected_head=game.head, idempotency=idempotency)
        except VersionConflict as conflict:
            self.loader.forget(game.id)  # this process's fold was behind, or (diverged) of a history Redis lost
            raise Conflict(conflict.expected, conflict.current) from None
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            if short.version is not None:  # appended now (not a retry answered from its record)
                self._stored(after, events, items, mark, playing_on, request_id)
            raise NotConfirmed(short.version, short.replicas, short.wanted) from None
        if isinstance(result, Replayed):
            return Outcome(replayed=result)
        self._stored(after, events, items, mark, playing_on, request_id)
        return Outcome(game=after)

    def _stored(
        self, game: Game, events: Decided, items: list[Due], mark: int | None, playing_on: bool, request_id: str | None = None
    ) -> None:
        """Cache the game, index it if it finished, unlist it from the open tables once it is no longer one, and hand
        it to the job system with what it needs now.

        None of these may fail a write that happened: a lost index move is made by the next listing of the
        game (or page of open tables), a lost enqueue by the next read or the ticker's next look.
        """
        self.loader.remember(game)
        if game.status == "finished":
            try:
                self.lists.archive(game)
            except Exception:
                log.exception("could not index game %s as finished; the next listing will", game.id)
        if game.listed and any(isinstance(e, GameStarted | GameCancelled | GameAborted) for e in events):
            try:
                self.tables.leave(game.id)  # its last seat taken, called off or aborted
            except Exception:
                log.exception("could not unlist game %s from the open tables; the next page of them will", game.id)
        if game.status in OVER:
            try:
                if any(item.job in WATCHED for item in items):
                    self.in_play.add(game.id)  # still owing something (rated, a rematch to make): looked at again
                else:
                    self.in_play.discard(game.id)  # owes nothing more
            except Exception:
                log.exception("could not index game %s (in play or not); the ticker's next look at it will", game.id)
        try:
            self.followups.after_append(game, items, mark, playing_on=playing_on, request_id=request_id)
        except Exception:
            log.exception("could not enqueue what game %s needs at version %s; the next read will retry", game.id, game.version)
