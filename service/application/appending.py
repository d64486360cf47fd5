"""Appending what was decided: the one atomic append, its refusals, and what every append sets off.

Every write ends here: the events go down in one append checked against the
version and head the decision was made on; the game after them is cached,
and handed to ``on_append`` (the dispatcher queues what is due next).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from engine import (
    Event,
    RuleViolation,
)
from service.application.commands import Outcome
from service.application.listing import GameLists
from service.application.loading import GameLoader
from service.errors import ApiError
from service.game import Game, apply, apply_engine, engine_envelope, envelope
from service.storage.events import EventStore, Idempotency, IdempotencyMismatch, NotReplicated, Replayed, VersionConflict

log = logging.getLogger("red7.games")




#: Told of every append: the game after it, the engine events appended, and what ``BeforeAppend`` returned.
OnAppend = Callable[[Game, Sequence[Event], "int | None"], None]
#: Called with the game id just before an append (the dispatcher notes the game on its agenda, so that a
#: process that dies between the append and ``OnAppend`` leaves the game to the ticker, not stalled).
BeforeAppend = Callable[[str], "int | None"]


class GameWrites:
    """The append path shared by every command (see :class:`~service.application.games.GameService`)."""

    store: EventStore
    loader: GameLoader
    lists: GameLists
    clock: Callable[[], str]
    on_append: OnAppend | None
    before_append: BeforeAppend | None

    def _commit(
        self,
        game: Game,
        events: Sequence[Event],
        by: str,
        *,
        lobby: Sequence[dict[str, Any]] = (),
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        expected = game.version
        at = self.clock()
        payloads = [envelope(fields, at=at, by=by) for fields in lobby]
        payloads += [engine_envelope(e, at=at, by=by) for e in events]
        after = game.copy()
        for fields in lobby:
            apply(after, after.version + 1, {**fields, "at": at})
        for event in events:
            apply_engine(after, after.version + 1, event, at)
        after.head = payloads[-1]
        mark = self._mark(game.id)
        try:
            result = self.store.append(game.id, expected, payloads, expected_head=game.head, idempotency=idempotency)
        except VersionConflict as conflict:
            raise self._conflict(game.id, conflict) from None
        except IdempotencyMismatch as exc:
            raise ApiError("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            if short.version is not None:  # appended now (not a retry answered from its record)
                self._stored(after, events, mark)
            raise not_replicated_error(short) from None
        if isinstance(result, Replayed):
            return Outcome(replayed=result)
        self._stored(after, events, mark)
        return Outcome(game=after)

    def _append(
        self,
        game: Game,
        expected: int,
        head: str,
        payloads: list[str],
        events: Sequence[Event],
        idempotency: Idempotency | None = None,
    ) -> Replayed | None:
        """Append payloads already folded into ``game`` (``events``: the engine events among them).

        ``expected`` and ``head`` name the game the payloads were decided on.  With ``idempotency``, its record
        goes down with the payloads; a :class:`Replayed` comes back instead if the request was made before.
        """
        game.head = payloads[-1]
        mark = self._mark(game.id)
        try:
            result = self.store.append(game.id, expected, payloads, expected_head=head, idempotency=idempotency)
        except VersionConflict as conflict:
            raise self._conflict(game.id, conflict) from None
        except IdempotencyMismatch as exc:
            raise ApiError("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            if short.version is not None:  # appended now (not a retry answered from its record)
                self._stored(game, events, mark)
            raise not_replicated_error(short) from None
        if isinstance(result, Replayed):
            return result
        self._stored(game, events, mark)
        return None

    def _recorded(self, game_id: str, idempotency: Idempotency | None) -> Replayed | None:
        """What answers this request again, if it was made before (checked after loading the game: a first attempt
        whose events that load saw stored its record in the same atomic append, so a retry never decides anew)."""
        if idempotency is None:
            return None
        try:
            return self.store.idempotent_response(game_id, idempotency)
        except IdempotencyMismatch as exc:
            raise ApiError("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            raise not_replicated_error(short) from None

    def _mark(self, game_id: str) -> int | None:
        return self.before_append(game_id) if self.before_append is not None else None

    def _stored(self, game: Game, events: Sequence[Event], mark: int | None) -> None:
        self.loader.remember(game)
        self._appended(game, events, mark)

    def _conflict(self, game_id: str, conflict: VersionConflict) -> ApiError:
        """A refused append: this process's fold was behind, or (diverged) of a history Redis lost — drop it."""
        self.loader.forget(game_id)
        return conflict_error(conflict.expected, conflict.current)

    def _appended(self, game: Game, events: Sequence[Event], mark: int | None) -> None:
        """Index a game that has finished and hand the new game to the dispatcher.

        Neither may fail a write that happened: a lost index move is made by
        the next listing of the game, a lost enqueue by the next read.
        """
        if game.status == "finished":
            try:
                self.lists.archive(game)
            except Exception:
                log.exception("could not index game %s as finished; the next listing will", game.id)
        if self.on_append is None:
            return
        try:
            self.on_append(game, events, mark)
        except Exception:
            log.exception("could not enqueue what game %s needs at version %s; the next read will retry", game.id, game.version)


def not_replicated_error(short: NotReplicated) -> ApiError:
    stored = f"stored as version {short.version}" if short.version else "stored"
    error = ApiError(
        "store_unavailable",
        f"Your action was {stored}, but only {short.replicas} of {short.wanted} Redis replicas confirmed it in time, "
        "so it could still be lost; reload the game, or retry with the same Idempotency-Key.",
    )
    error.headers["Retry-After"] = "1"
    return error


def rule_error(refusal: RuleViolation) -> ApiError:
    return ApiError(refusal.code, refusal.message, status=422, **refusal.details)


def conflict_error(expected: int, current: int) -> ApiError:
    error = ApiError(
        "version_conflict",
        f"You sent version {expected} but the game is at version {current}; reload it and try again.",
        current_version=current,
    )
    error.headers["ETag"] = f'"{current}"'
    return error
