"""A finished game's decision analysis as requests and jobs ask for it (issue 23).

``requestAnalysis`` claims the analysis of a finished game and queues the ``analyse`` job (on a queue of its own,
worked apart from the games' jobs, so that it never delays an AI's turn); ``getAnalysis`` reads its progress, then its
result; the job (``workers/jobs.py``) runs :func:`replays.analysis.analyse_document` on the game's full replay and keeps
the result with the game (:mod:`service.storage.analyses`), where the replay document and its export find it.  A game
in play is refused (``game_not_finished``): its analysis would judge decisions from hidden cards still in play.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.analysis import VERSION
from replays.analysis import analyse_document
from service.errors import NotFound, Refused
from service.game import Game
from service.storage.analyses import AnalysisRecord, AnalysisStore

__all__ = ["AnalysisRecord", "AnalysisService"]

#: How often the job writes its progress (every this many decisions, and the last).
PROGRESS_EVERY = 5
#: An analysis queued or running that has not been heard of for this long is lost (its worker died): asked for again,
#: it is queued again.  A decision takes well under a second; a job waits at most this long behind others (ms).
STALE_MS = 10 * 60 * 1000


class AnalysisService:
    def __init__(
        self,
        store: AnalysisStore,
        load: Callable[[str], Game],
        replay: Callable[[Game], dict[str, Any]],
        enqueue: Callable[[str], None],
        clock: Callable[[], datetime],
    ) -> None:
        self.store, self.load, self.replay, self.enqueue, self.clock = store, load, replay, enqueue, clock

    def _now_ms(self) -> int:
        return int(self.clock().timestamp() * 1000)

    def _finished(self, game_id: str) -> Game:
        game = self.load(game_id)  # NotFound: game_not_found
        if game.status != "finished":
            raise Refused(
                "game_not_finished",
                f"The game is {game.status}: only a finished game is analysed, since its analysis would show hidden cards.",
            )
        return game

    def request(self, game_id: str) -> AnalysisRecord:
        """Queue the analysis of a finished game unless it is queued, running or done already; its record now."""
        self._finished(game_id)
        if self.store.claim(game_id, VERSION, self._now_ms(), STALE_MS):
            self.enqueue(game_id)
        record = self.store.get(game_id)
        assert record is not None
        return record

    def get(self, game_id: str) -> AnalysisRecord:
        """The analysis' progress, or its result once done; ``analysis_not_found`` if none was requested."""
        self._finished(game_id)
        record = self.store.get(game_id)
        if record is None or record.version != VERSION:
            raise NotFound("analysis_not_found", "No analysis of this game was requested yet: POST to request one.")
        return record

    def result_of(self, game: Game) -> dict[str, Any] | None:
        """The finished analysis of ``game`` if there is one: what its replay document carries."""
        if game.status != "finished":
            return None
        record = self.store.get(game.id)
        return record.result if record is not None and record.status == "done" and record.version == VERSION else None

    def run(self, game_id: str) -> str:
        """The job's work: analyse the game, writing progress, and keep the result."""
        game = self._finished(game_id)
        record = self.store.get(game_id)
        if record is not None and record.status == "done" and record.version == VERSION:
            return "analysed already"

        def progress(done: int, total: int) -> None:
            if done % PROGRESS_EVERY == 0 or done == total:
                self.store.progress(game_id, done, total, self._now_ms())

        self.store.progress(game_id, 0, 0, self._now_ms())
        try:
            result = analyse_document(self.replay(game), progress=progress)
        except Exception:
            self.store.fail(game_id)
            raise
        self.store.finish(game_id, result)
        return f"analysed {len(result['decisions'])} decisions"
