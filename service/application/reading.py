"""Reading a game as a viewer may: its event feed and its replay, up to the version the viewer's sight was decided on."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from replays.build import FULL, Perspective, build_replay
from service.game import Game, decode, redact_envelope
from service.storage.events import EventStore

log = logging.getLogger("red7.games")


class GameFeeds:
    """What a viewer reads of a game besides its view: the redacted event feed and the replay."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._replays: OrderedDict[tuple[str, int, str, str], dict[str, Any]] = OrderedDict()  # finished games' replays
        self._replays_lock = threading.Lock()

    def feed(self, game: Game, viewer: str | None, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """Stored events above ``after`` as the viewer may see them, up to ``game``'s version.

        What the viewer may see is decided on ``game``; events appended since
        it was loaded (a resignation among them) wait for the next read.
        """
        seat = game.sight_of(viewer)
        finished = game.status == "finished"
        out = []
        for stored in self.store.read(game.id, after, limit):
            if stored.number > game.version:
                break
            data = decode(stored.payload)
            shown = redact_envelope(data, seat, is_creator=viewer == game.created_by, finished=finished)
            out.append({"n": stored.number, **shown})
        return out

    def replay(self, game: Game, viewer: str | None) -> dict[str, Any]:
        """The replay of ``game`` for ``viewer``: all of it once the game is finished, else what the viewer has seen."""
        perspective: Perspective = FULL if game.status == "finished" else game.sight_of(viewer)
        key = (game.id, game.version, game.head, str(perspective))
        with self._replays_lock:
            cached = self._replays.get(key)
        if cached is not None:
            return cached
        # Up to the version the perspective was decided on (a resignation may have been appended since).
        stored = [(e.number, decode(e.payload)) for e in self.store.read_all(game.id) if e.number <= game.version]
        document = build_replay(game.id, stored, perspective)
        if perspective == FULL:  # a finished game's replay never changes
            with self._replays_lock:  # request threads share it
                self._replays[key] = document
                while len(self._replays) > 64:
                    self._replays.popitem(last=False)
        return document
