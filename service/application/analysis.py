"""Decision analyses as requests and analysts ask for them: a finished game's, or an imported replay's (issue 23).

``requestAnalysis`` claims the analysis of a finished game and queues it in the asking player's turn (the analyses'
queue serves players in turn, ``service/jobqueue/analysis_queue.py``, apart from the games' jobs, so that it never delays an AI's
turn); ``getAnalysis`` reads its progress, then its result; an analyst (``workers/analysts.py``) runs
:func:`replays.analysis.analyse_document` on the game's full replay, in a process of its own at the lowest CPU priority,
and keeps the result with the game (:mod:`service.storage.analyses`), where the replay document and its export find it.
A game in play is refused (``game_not_finished``): its analysis would judge decisions from hidden cards still in play.

An imported replay file is a finished game too (only complete replays verify), so the people reviewing a replay they
were sent can have it analysed the same way (``requestImportedAnalysis``): the same queue and analysts, the result
kept as long as the import is kept and carried by the imported replay's document.  One :class:`AnalysisService`
serves each kind of subject; what differs is only how a subject is found and its full replay told
(:class:`Subjects`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.analysis import VERSION
from replays.analysis import analyse_document
from service.common.errors import NotFound, Refused
from service.domain.game import Game
from service.storage.analyses import AnalysisRecord, AnalysisStore

__all__ = [
    "Analyse",
    "AnalysisInterrupted",
    "AnalysisRecord",
    "AnalysisService",
    "Enqueue",
    "Subjects",
    "analyse_here",
    "finished_game",
    "game_subjects",
    "imported_subjects",
]

#: How often the job writes its progress (every this many decisions, and the last).
PROGRESS_EVERY = 5
#: An analysis queued or running that has not been heard of for this long is queued again when asked for again: the
#: queue puts back what a dead analyst held (its lease lapses) and what a lost queue held (the ticker rebuilds it from
#: the index of analyses pending), so this is the last resort, for a record whose index entry a crash lost (ms).
STALE_MS = 10 * 60 * 1000


@dataclass(frozen=True, slots=True)
class Subjects:
    """What an analysis is of, and how to reach one.

    ``check`` raises the refusal for a subject that is not there or cannot be analysed, cheaply (every read asks);
    ``document`` is its full replay; ``lifetime`` the seconds left before the subject, and so its analysis, goes
    (``None``: kept for good).
    """

    check: Callable[[str], None]
    document: Callable[[str], dict[str, Any]]
    lifetime: Callable[[str], int | None]


def finished_game(game: Game) -> Game:
    """``game``, if it is over; ``game_not_finished`` otherwise."""
    if game.status != "finished":
        raise Refused(
            "game_not_finished",
            f"The game is {game.status}: only a finished game is analysed, since its analysis would show hidden cards.",
        )
    return game


def game_subjects(load: Callable[[str], Game], replay: Callable[[Game], dict[str, Any]]) -> Subjects:
    """The service's finished games (``game_not_found`` from ``load``), analysed for good."""

    def check(game_id: str) -> None:
        finished_game(load(game_id))

    return Subjects(check, lambda game_id: replay(finished_game(load(game_id))), lambda game_id: None)


def imported_subjects(find: Callable[[str], dict[str, Any] | None], seconds_left: Callable[[str], int | None]) -> Subjects:
    """Imported replays while they are kept (``not_found`` after), analysed for as long as their import is."""

    def document(replay_id: str) -> dict[str, Any]:
        found = find(replay_id)
        if found is None:  # as getImportedReplay answers
            raise NotFound("not_found", f"There is no imported replay {replay_id!r}: none was made, or it has expired.")
        return found

    def check(replay_id: str) -> None:
        document(replay_id)

    return Subjects(check, document, seconds_left)


#: What queues an analysis in its asker's turn: the subject's id, who asked (a player id) and when (ms).
Enqueue = Callable[[str, str, int], None]

#: What computes an analysis: the full replay, and a function told the progress (decisions judged, of how many).
Analyse = Callable[[dict[str, Any], Callable[[int, int], None]], dict[str, Any]]


class AnalysisInterrupted(Exception):
    """The analysis stopped before its end without failing (its analyst stops, or another took it over): it is
    neither done nor failed, and is analysed again."""


def analyse_here(document: dict[str, Any], progress: Callable[[int, int], None]) -> dict[str, Any]:
    """Compute it in this thread (the tests' drain; a worker computes in a process of its own: ``workers/analyst.py``)."""
    return analyse_document(document, progress=progress)


class AnalysisService:
    def __init__(self, store: AnalysisStore, subjects: Subjects, enqueue: Enqueue, clock: Callable[[], datetime]) -> None:
        self.store, self.subjects, self.enqueue, self.clock = store, subjects, enqueue, clock

    def _now_ms(self) -> int:
        return int(self.clock().timestamp() * 1000)

    def request(self, subject_id: str, by: str) -> AnalysisRecord:
        """Queue the analysis of a finished game in the turn of ``by`` (a player id) unless it is queued, running or
        done already; its record now.

        One queued already in another player's turn is queued in this player's too (it runs in whichever comes first):
        asking for the analysis another player's backlog holds does not wait behind that backlog.  The analysis is
        indexed as asked for before its claim, so that a queue that loses it finds it again (``pending``).
        """
        self.subjects.check(subject_id)
        found = self.store.get(subject_id)
        if found is not None and found.status == "done" and found.version == VERSION:
            return found
        ttl = self.subjects.lifetime(subject_id)
        now = self._now_ms()
        self.store.enter(subject_id)
        claimed = self.store.claim(subject_id, VERSION, now, STALE_MS, by=by, ttl=ttl)
        if claimed or ((found := self.store.get(subject_id)) is not None and found.status == "queued"):
            self.enqueue(subject_id, by, now)
        record = self.store.get(subject_id)
        if record is None:  # its import expired between the claim and this read
            self.store.leave(subject_id)
            raise NotFound("analysis_not_found", "The replay's analysis went with its import.")
        return record

    def get(self, subject_id: str) -> AnalysisRecord:
        """The analysis' progress, or its result once done; ``analysis_not_found`` if none was requested."""
        self.subjects.check(subject_id)
        record = self.store.get(subject_id)
        if record is None or record.version != VERSION:
            raise NotFound("analysis_not_found", "No analysis of this game was requested yet: POST to request one.")
        return record

    def done(self, subject_id: str) -> dict[str, Any] | None:
        """The finished analysis of a subject known to be finished, if there is one: what its replay carries."""
        record = self.store.get(subject_id)
        return record.result if record is not None and record.status == "done" and record.version == VERSION else None

    def result_of(self, game: Game) -> dict[str, Any] | None:
        """The finished analysis of ``game`` if there is one: what its replay document carries."""
        return self.done(game.id) if game.status == "finished" else None

    def pending(self) -> Iterator[tuple[str, str, int]]:
        """Every analysis asked for and not done, as (its subject's id, who asked, when): what the queue is rebuilt
        from when its Redis lost it.  Those done, failed or gone meanwhile leave the index here."""
        for subject_id in self.store.pending():
            record = self.store.get(subject_id)
            if record is None or record.version != VERSION or record.status not in ("queued", "running"):
                self.store.leave(subject_id)
                continue
            yield subject_id, record.by, record.asked

    def run(self, subject_id: str, analyse: Analyse = analyse_here) -> str:
        """The analyst's work: analyse the subject with ``analyse``, writing progress, and keep the result."""
        record = self.store.get(subject_id)
        if record is None:  # a claim always comes first: this one went with its import
            self.store.leave(subject_id)
            return "not asked for, or gone with its import"
        if record.status == "done" and record.version == VERSION:
            self.store.leave(subject_id)
            return "analysed already"
        try:
            document = self.subjects.document(subject_id)
        except NotFound:
            self.store.leave(subject_id)
            return "gone"

        def progress(done: int, total: int) -> None:
            if done % PROGRESS_EVERY == 0 or done == total:
                self.store.progress(subject_id, done, total, self._now_ms())

        self.store.progress(subject_id, 0, 0, self._now_ms())
        try:
            result = analyse(document, progress)
        except AnalysisInterrupted:
            raise  # still asked for: analysed again
        except Exception:
            self.store.fail(subject_id)
            self.store.leave(subject_id)
            raise
        self.store.finish(subject_id, result)
        self.store.leave(subject_id)
        return f"analysed {len(result['decisions'])} decisions"
