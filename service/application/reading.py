"""Reading a game as a viewer may: its event feed and its replay, up to the version the viewer's sight was decided on.

A deleted player's seat is named "deleted player" in both (:mod:`service.application.erasure`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from replays.build import FULL, Perspective, build_replay
from service.application.erasure import erase_names, seated_in
from service.domain.game import Game, decode, redact_envelope
from service.storage.events import EventStore
from service.storage.players import PlayerStore

log = logging.getLogger("red7.games")


class GameFeeds:
    """What a viewer reads of a game besides its view: the redacted event feed and the replay."""

    def __init__(self, store: EventStore, players: PlayerStore | None = None) -> None:
        self.store = store
        self.players = players  # who was deleted (none: nobody is)
        #: finished games' replays, by game, version, head and perspective, with the players seated in them and which
        #: of those were deleted when it was built (a deletion since makes it stale)
        self._replays: OrderedDict[tuple[str, int, str, str], tuple[dict[str, Any], set[str], frozenset[str]]] = OrderedDict()
        self._replays_lock = threading.Lock()

    def feed(
        self, game: Game, viewer: str | None, after: int = 0, limit: int = 100, read: Sequence[tuple[int, str]] = ()
    ) -> list[dict[str, Any]]:
        """Stored events above ``after`` as the viewer may see them, up to ``game``'s version.

        What the viewer may see is decided on ``game``; events appended since
        it was loaded (a resignation among them) wait for the next read.  ``read``: the events the game's load read
        (:meth:`GameLoader.load_reading`); when they hold every event above ``after``, they are the feed's, read once.
        """
        seat = game.sight_of(viewer)
        finished = game.status == "finished"
        if after >= game.version:
            stored = []  # caught up: nothing to read (a long-poll that waited in vain)
        elif read and read[0][0] <= after + 1 and read[-1][0] == game.version:
            stored = [(number, decode(payload)) for number, payload in read if after < number][:limit]
        else:
            stored = [(e.number, decode(e.payload)) for e in self.store.read(game.id, after, limit) if e.number <= game.version]
        deleted = self._deleted(seated_in(data for _, data in stored))
        out = []
        for number, data in stored:
            shown = redact_envelope(erase_names(data, deleted), seat, is_creator=viewer == game.created_by, finished=finished)
            out.append({"n": number, **shown})
        return out

    def _deleted(self, seated: set[str]) -> frozenset[str]:
        """Which of these players' accounts were deleted."""
        if self.players is None or not seated:
            return frozenset()
        return frozenset(player_id for player_id, tag in self.players.tags(seated).items() if tag.deleted)

    def replay(self, game: Game, viewer: str | None, *, keep: bool = True) -> dict[str, Any]:
        """The replay of ``game`` for ``viewer``: all of it once the game is finished, else what the viewer has seen.
        ``keep``: a finished game's replay is kept for the next reader (an export of thousands, read once each, keeps
        none: each would push out a replay someone is viewing, and 64 kept are tens of MB)."""
        perspective: Perspective = FULL if game.status == "finished" else game.sight_of(viewer)
        return self._replay(game, perspective, keep=keep)[0]

    def finished_replay(self, game: Game, *, keep: bool = True) -> tuple[dict[str, Any], set[str], frozenset[str]]:
        """A finished game's full replay, with the players seated in it and which of them were deleted when it was
        built (what an export line kept for the game records: ``service/storage/export_lines.py``)."""
        return self._replay(game, FULL, keep=keep)

    def _replay(self, game: Game, perspective: Perspective, *, keep: bool) -> tuple[dict[str, Any], set[str], frozenset[str]]:
        key = (game.id, game.version, game.head, str(perspective))
        with self._replays_lock:
            cached = self._replays.get(key)
        if cached is not None and self._deleted(cached[1]) == cached[2]:
            return cached
        # Up to the version the perspective was decided on (a resignation may have been appended since).
        stored = [(e.number, decode(e.payload)) for e in self.store.read_all(game.id) if e.number <= game.version]
        seated = seated_in(data for _, data in stored)  # a player who left before the start too
        deleted = self._deleted(seated)
        document = build_replay(game.id, [(number, erase_names(data, deleted)) for number, data in stored], perspective)
        if perspective == FULL and keep:  # a finished game's replay never changes (but for an account deleted since)
            with self._replays_lock:  # request threads share it
                self._replays[key] = (document, seated, deleted)
                while len(self._replays) > 64:
                    self._replays.popitem(last=False)
        return document, seated, deleted
