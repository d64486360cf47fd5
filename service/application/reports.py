"""Reports: a player reports another (their name or handle, their behaviour in a game, a message at a table).

The report takes its evidence when it is made (:class:`~service.domain.reports.Evidence`): the reported player's name
and handle then, and the game's id and version, so that a rename later, or the game moving on, cannot change what was
reported.  The same report made twice is one (its id is a digest of who, whom, why and where): the second answer is
the first report, ``replayed``.  How many reports a token may make is the HTTP layer's budget
(``RED7_RATE_LIMIT_REPORT``).

A message at a table is named by its game and id: the evidence copies it as stored then (the talk's own record,
:mod:`service.storage.talk`).  The word filter reports a held message itself (:meth:`ReportService.held`), as the
reporter :data:`~service.domain.reports.BY_FILTER`, so that it waits in the moderators' queue like any report.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from service.application.commands import utc_now
from service.application.players import Player, PlayerService
from service.common.errors import NotFound, Refused, bad_cursor
from service.domain.game import Game
from service.domain.reports import BY_FILTER, Evidence, Report, report_id
from service.storage.reports import ReportStore


def _cursor(at: tuple[int, str]) -> str:
    """A page's cursor: the last report looked at, (ms, id)."""
    return base64.urlsafe_b64encode(f"{at[0]}:{at[1]}".encode()).decode().rstrip("=")


def _parse_cursor(cursor: str) -> tuple[int, str]:
    try:
        ms, found = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":", 1)
        return int(ms), found
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad_cursor() from None


@dataclass(frozen=True, slots=True)
class Made:
    """A report and whether it was made just now (``False``: the same report was made before)."""

    report: Report
    replayed: bool


class ReportService:
    def __init__(
        self,
        store: ReportStore,
        accounts: PlayerService,
        load: Callable[[str], Game],
        *,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.load = load
        self.clock = clock
        #: A message at a table as stored (game id, message id → its JSON, ``None``: no such message), and whether a
        #: player reads it: set by the composition root (service/application/safety.py) from the table talk.
        self.find_message: Callable[[str, str], dict[str, Any] | None] = lambda game_id, message_id: None
        self.reads_message: Callable[[str, str, dict[str, Any]], bool] = lambda game_id, reader, found: False

    def create(
        self,
        reporter: Player,
        reported: str,
        reason: str,
        comment: str = "",
        game_id: str | None = None,
        message_id: str | None = None,
    ) -> Made:
        """``reporter`` reports the player ``reported`` names (id or handle) for ``reason``, in ``game_id`` if given (a
        game the reported player holds a seat in), for the message ``message_id`` at its table if given (one of theirs
        the reporter reads).  ``player_not_found``, ``cannot_report_yourself``, ``game_not_found``,
        ``player_not_in_game``, ``message_not_found``."""
        target = self.accounts.find(reported)
        if target.id == reporter.id:
            raise Refused("cannot_report_yourself", "You cannot report yourself.")
        version = None
        if game_id is not None:
            try:
                game = self.load(game_id)
            except NotFound:
                raise NotFound("game_not_found", f"No game has the id {game_id!r}.") from None
            if game.seat_of(target.id) is None:
                raise Refused("player_not_in_game", "The player you report holds no seat in that game.")
            version = game.version
        messages: tuple[dict[str, Any], ...] = ()
        if message_id is not None:
            found = self.find_message(game_id, message_id) if game_id is not None else None
            if found is None or found["author_id"] != target.id or not self.reads_message(game_id or "", reporter.id, found):
                raise NotFound("message_not_found", "No message of that player's at that game's table has this id.")
            messages = (found,)
        evidence = Evidence(target.name, target.handle, game_id, version, messages)
        report = Report(
            id=report_id(reporter.id, target.id, reason, game_id, message_id),
            reporter_id=reporter.id,
            reported_id=target.id,
            reason=reason,
            comment=comment.strip(),
            created_at=self.clock(),
            evidence=evidence,
            message_id=message_id,
        )
        kept, made = self.store.create(report)
        return Made(kept, replayed=not made)

    def held(self, author: Player, game: Game, found: dict[str, Any]) -> Report:
        """Queue a message the filter held back for review: a report of its author by :data:`BY_FILTER`."""
        evidence = Evidence(author.name, author.handle, game.id, game.version, (found,))
        report = Report(
            id=report_id(BY_FILTER, author.id, "harassment", game.id, found["id"]),
            reporter_id=BY_FILTER,
            reported_id=author.id,
            reason="harassment",
            comment="held back by the word filter",
            created_at=self.clock(),
            evidence=evidence,
            message_id=found["id"],
        )
        return self.store.create(report)[0]

    def get(self, report_id: str) -> Report:
        report = self.store.get(report_id)
        if report is None:
            raise NotFound("report_not_found", f"No report has the id {report_id!r}.")
        return report

    def open_page(self, cursor: str | None, limit: int) -> tuple[list[Report], str | None]:
        """The open reports, oldest first, after ``cursor`` (a ``next_cursor`` given out before: the last report looked
        at, so that reports decided meanwhile move none of the others past it), and the next page's cursor."""
        reports, following = self.store.open_page(None if cursor is None else _parse_cursor(cursor), limit)
        return reports, None if following is None else _cursor(following)

    def names(self, reports: Iterable[Report]) -> dict[str, str | None]:
        """The names, as they are now, of the reporters and reported players of ``reports`` (``None``: a deleted account,
        or the word filter)."""
        return self.accounts.names(p for r in reports for p in (r.reporter_id, r.reported_id) if p != BY_FILTER)
