"""Loading games: a fold of the stream, from this process's cache or the stored snapshot, never of a lost history."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections import OrderedDict

import redis

from service.common.config import Settings
from service.common.errors import NotFound
from service.domain.game import Game, load
from service.storage.changes import ChangeWatch
from service.storage.events import EventStore

#: How long the snapshot of a game that is over is kept (seconds): a day of people looking at the result and
#: its replay; a reader after that folds the stream again (a few ms) and keeps a snapshot for another day.
FINISHED_SNAPSHOT_TTL = 24 * 3600

log = logging.getLogger("red7.games")


class GameCache:
    """This process's newest fold of the games it served, least recently used first out.

    It keeps private copies and hands out the shared object: a reader renders
    it, a writer folds into a copy (``Game.copy``).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Game | None:
        """The cached game itself, shared: fold into a copy of it, never into it."""
        with self._lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games.move_to_end(game_id)
            return game

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def put(self, game: Game) -> None:
        with self._lock:
            known = self._games.get(game.id)
            if known is None or known.version < game.version:
                self._games[game.id] = game.copy()
            self._games.move_to_end(game.id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


class GameLoader:
    """Games folded from their streams, through this process's cache and the stored snapshots."""

    def __init__(
        self, store: EventStore, *, snapshot_every: int = Settings.snapshot_every, changes: ChangeWatch | None = None
    ) -> None:
        self.store = store
        #: Which games nobody changed since this process read them (``None``: every load asks Redis).
        self.changes = changes
        self.snapshot_every = snapshot_every
        self._cache = GameCache()
        self._snapshot_at: dict[str, int] = {}  # the version of the newest snapshot this process knows of

    def cached(self, game_id: str) -> Game | None:
        """This process's newest fold of the game, if it has one (shared: fold into a copy)."""
        return self._cache.get(game_id)

    def forget(self, game_id: str) -> None:
        """Drop the cached fold (a refused append showed it behind, or of a history Redis lost)."""
        self._cache.drop(game_id)
        if self.changes is not None:
            self.changes.forget(game_id)

    def load(self, game_id: str) -> Game:
        """The game now: this process's newest fold of it (or the stored snapshot) plus the events after it.

        Events are never changed once appended, so a fold at version v plus
        the events after v is the game — as long as Redis still holds the
        history the fold came from.  It may not: a crash between fsyncs or a
        failover to a lagging replica loses the last writes, and the numbers
        are then given to other events.  So the read starts *at* v, and a fold
        whose last event is not what the stream holds there is dropped and the
        game folded again from what Redis has (:meth:`_drop_lost`).
        The game returned may be shared with the cache: never change it in place
        (writers fold into ``game.copy()``).

        With a :class:`ChangeWatch`, a cached fold whose keys nobody changed since it was read is the game: no read.
        """
        return self.load_reading(game_id)[0]

    def peek(self, game_id: str) -> Game:
        """The game folded from its whole stream, as Redis holds it now, and neither cached nor snapshotted: a read of
        thousands of finished games once each (an archive's export, a rebuild) pushes out no game in play and writes
        nothing."""
        stored = [(e.number, e.payload) for e in self.store.read_all(game_id)]
        if not stored:
            raise NotFound("game_not_found", f"There is no game {game_id!r}.")
        return load(game_id, stored)

    def load_reading(self, game_id: str) -> tuple[Game, list[tuple[int, str]]]:
        """:meth:`load`, with the stored events its read brought: (number, payload), in order, from where the fold it
        started from ends (or the first event) up to the game's version, the game's head among them (none when the
        cached fold was known unchanged).  A feed of the game after a version among them needs no read of its own."""
        if self.changes is None:
            return self._read(game_id, self._cache.get(game_id))
        if self.changes.unchanged(game_id):
            # The cache asked after the watch, never before: a fold taken first could be older than one another
            # reader cached and settled while this one waited for the watch's lock.
            cached = self._cache.get(game_id)
            if cached is not None:
                return cached, []
        ticket = self.changes.ticket(game_id)
        held = False
        try:
            game, read = self._read(game_id, self._cache.get(game_id))
            held = True
        finally:
            self.changes.settle(game_id, ticket, current=held)
        return game, read

    def _read(self, game_id: str, cached: Game | None) -> tuple[Game, list[tuple[int, str]]]:
        """The game folded from ``cached`` (or the stored snapshot, or nothing) and the events Redis holds after it."""
        start = cached
        if start is None:
            snapshot = self.store.snapshot(game_id)
            if snapshot is not None:
                start = self._from_snapshot(game_id, snapshot[1])
                if start is not None:
                    self._snapshot_at[game_id] = start.version
        tail: list[tuple[int, str]] = []
        read: list[tuple[int, str]] = []
        if start is not None:
            stored = [(e.number, e.payload) for e in self.store.read_all(game_id, after=start.version - 1)]
            if not stored or stored[0][0] != start.version or (start.head and stored[0][1] != start.head):
                self._drop_lost(game_id, start, from_cache=cached is not None)
                start = cached = None
            else:
                read, (base, tail) = stored, (stored[0], stored[1:])
                if not start.head:  # a snapshot written before games kept their head
                    start = start.copy() if cached is not None else start
                    start.head = base[1]
        if start is None:
            read = tail = [(e.number, e.payload) for e in self.store.read_all(game_id)]
            if not tail:
                raise NotFound("game_not_found", f"There is no game {game_id!r}.")
        if cached is not None and not tail:
            return cached, read  # shared with the cache: callers that change a game work on a copy
        game = load(game_id, tail, start.copy() if cached is not None and start is not None else start)
        self.remember(game)
        return game, read

    def _from_snapshot(self, game_id: str, data: str) -> Game | None:
        """The stored snapshot as a game, or ``None`` for one this version cannot read (written by an older one that
        kept less, or in another format): a snapshot is only a shortcut, so the stream is folded instead, and the
        snapshot dropped for the one the fold leaves (one of the same version would not replace it)."""
        try:
            return Game.from_dict(json.loads(data))
        except (ValueError, KeyError, TypeError) as error:
            log.warning("game %s: the stored snapshot is of no use here (%s): folding the game from its stream", game_id, error)
            with contextlib.suppress(redis.RedisError):  # else the next cold reader finds it of no use, and tries again
                self.store.drop_snapshot(game_id)
            return None

    def _drop_lost(self, game_id: str, stale: Game, *, from_cache: bool) -> None:
        """Forget a fold of a history Redis no longer holds (the caller folds the game again from the stream)."""
        log.warning(
            "game %s: Redis no longer holds the history of this process's %s at version %s: folding it again from the stream",
            game_id,
            "cached game" if from_cache else "snapshot",
            stale.version,
        )
        self.forget(game_id)
        self._snapshot_at.pop(game_id, None)
        if not from_cache:
            self.store.drop_snapshot(game_id)  # written from a history that was lost: it would only mislead

    def remember(self, game: Game) -> None:
        """Cache the game, and store a snapshot every ``snapshot_every`` events (for cold readers)."""
        self._cache.put(game)
        behind = game.version - self._snapshot_at.get(game.id, 0)
        if behind >= self.snapshot_every or (game.over and behind > 0):
            # A game that is over gets its last snapshot, kept only a while: its stream is what it keeps for good
            # (a snapshot taken in play, with no TTL, would otherwise outlive it for ever beside its stream).
            ttl = FINISHED_SNAPSHOT_TTL if game.over else 0
            try:
                self.store.save_snapshot(game.id, game.version, json.dumps(game.to_dict(), separators=(",", ":")), ttl=ttl)
            except redis.RedisError as error:  # only a shortcut for cold readers: never fail what was done already
                log.warning("game %s: no snapshot at version %s (%s); the next one will be", game.id, game.version, error)
                return
            if len(self._snapshot_at) > 100_000:
                self._snapshot_at.clear()  # only a hint: forgetting costs one early snapshot per game
            self._snapshot_at[game.id] = game.version
