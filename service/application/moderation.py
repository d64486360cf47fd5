"""Moderation: the moderator role, decisions on reports, actions on players, and the audit log (issue 36 item 6).

Only moderators may read reports and act (``not_a_moderator`` for anyone else; checked on every call by
:meth:`Moderation.moderator`); the operator grants and revokes the role and acts with the same actions from the CLI,
as ``operator``.  Every action is a record of the audit log, appended, never edited: who, what, why, when, until when
and the report it answers.

What each action does to the player (:meth:`Moderation.act`):

- ``warn``: they are told; ``rename``: their name becomes a neutral placeholder and their handle is given up, and they
  are told to choose others; ``mute``: kept for a period (table talk honours it);
- ``suspend`` (for a period) and ``ban`` (until lifted): their tokens stop working (the gate,
  :mod:`service.application.standing`: ``player_suspended`` with ``until``, ``player_banned``); their match tickets,
  challenges and listed tables close and an AI takes their seats in games in play, by the same parts that end what a
  deleted account leaves (:data:`service.application.players.AccountDeleted`: quick match, challenges, the games'
  departures); a ban also keeps them off every leaderboard (their games stay rated for the others);
- ``unban`` lifts a suspension or a ban and puts them back on the leaderboards; what ended stays ended.

The reporter is told that their report was handled; the reported player what was decided (a notice, and the gate's
problem for a suspension or a ban).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from service.application.players import AccountDeleted, Player, PlayerService
from service.application.ratings import RatingService
from service.application.reports import ReportService
from service.application.standing import Gate, in_force
from service.common.errors import Refused
from service.common.texts import message
from service.domain.reports import ACTIONS, BY_FILTER, TIMED, Decision, Report
from service.storage.moderation import LogEntry, ModerationStore, Sanction

#: Who acts from the CLI.
OPERATOR = "operator"
#: The longest period a mute or a suspension may last: a year.
LONGEST = 365 * 24 * 3600

NOTICES = {
    "handled": message("notice.report_handled", "A moderator handled your report: thank you for telling us."),
    "warn": message("notice.warned", "A moderator warned you: keep to the terms of use (%(reason)s)."),
    "rename": message(
        "notice.renamed", "A moderator replaced your name and handle (%(reason)s): choose new ones that others may read."
    ),
    "mute": message("notice.muted", "A moderator muted you at the tables until %(until)s (%(reason)s)."),
    "suspend": message("notice.suspended", "A moderator suspended your account until %(until)s (%(reason)s)."),
    "ban": message("notice.banned", "A moderator banned your account (%(reason)s)."),
    "unban": message("notice.unbanned", "A moderator lifted the suspension or ban of your account."),
}


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def placeholder(player_id: str) -> str:
    """The neutral name a forced rename gives: the same for the same player, nobody's words."""
    return f"Player {player_id[-6:]}"


class Moderation:
    def __init__(
        self,
        store: ModerationStore,
        reports: ReportService,
        accounts: PlayerService,
        gate: Gate,
        ratings: RatingService,
        removal: Sequence[AccountDeleted],
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self.reports = reports
        self.accounts = accounts
        self.gate = gate
        self.ratings = ratings
        self.removal = list(removal)
        self.now = now

    # --- the role --------------------------------------------------------------------------

    def moderator(self, player: Player) -> str:
        """``player``'s id if they hold the moderator role; ``not_a_moderator`` otherwise."""
        if not self.store.is_moderator(player.id):
            raise Refused("not_a_moderator", "This needs the moderator role.")
        return player.id

    def holds_role(self, player_id: str) -> bool:
        """Whether ``player_id`` is a moderator (``getMe`` says so, for a client to show its moderation screen)."""
        return bool(self.store.is_moderator(player_id))

    def set_role(self, player: Player, granted: bool, by: str = OPERATOR) -> None:
        self.store.set_moderator(player.id, granted)
        self._log(by, player.id, "grant" if granted else "revoke", "", None, None)

    # --- reports ---------------------------------------------------------------------------

    def decide(self, by: str, report_id: str, action: str, reason: str, seconds: int | None = None) -> Report:
        """Decide an open report with ``action`` (``dismiss``, or an action on the reported player): once
        (``report_already_decided``); the reporter is told it was handled."""
        report = self.reports.get(report_id)
        if report.decision is not None:
            raise Refused("report_already_decided", "This report was already decided.", decision=report.decision.json())
        until = self._until(action, seconds)
        decision = Decision(by, action, reason, _iso(self.now()), until)
        if not self.reports.store.decide(report_id, decision):
            raise Refused("report_already_decided", "This report was already decided.")
        if action != "dismiss":
            self._apply(by, report.reported_id, action, reason, until, report.id)
        else:
            self._log(by, report.reported_id, action, reason, until, report.id)
        if report.reporter_id != BY_FILTER:  # the word filter is nobody to tell
            self._tell(report.reporter_id, "handled", {"report_id": report.id})
        return self.reports.get(report_id)

    # --- actions on a player ---------------------------------------------------------------

    def act(self, by: str, ref: str, action: str, reason: str, seconds: int | None = None) -> LogEntry:
        """Act on the player ``ref`` names without a report; the audit record made."""
        if action == "dismiss":
            raise Refused("invalid_request", "dismiss decides a report: decideReport.")
        player = self.accounts.find(ref)
        until = self._until(action, seconds)
        return self._apply(by, player.id, action, reason, until, None)

    def _until(self, action: str, seconds: int | None) -> str | None:
        if action not in ACTIONS:
            raise Refused("invalid_request", f"The action is one of {', '.join(ACTIONS)}.")
        if action not in TIMED:
            return None
        if seconds is None or not 0 < seconds <= LONGEST:
            raise Refused(
                "invalid_request",
                f"A {action} lasts a period: seconds, 1 to {LONGEST}.",
                errors=[{"field": "seconds", "message": f"1 to {LONGEST} for {action}", "location": "json"}],
            )
        return _iso(self.now() + timedelta(seconds=seconds))

    def _apply(self, by: str, player_id: str, action: str, reason: str, until: str | None, report: str | None) -> LogEntry:
        at = _iso(self.now())
        if action in ("suspend", "ban"):
            self.store.sanction(player_id, Sanction(action, until, reason, at))
            self.gate.forget(player_id)
            self.remove(player_id)
            if action == "ban":
                self.ratings.hide(player_id, "banned")
        elif action == "mute":
            self.store.sanction(player_id, Sanction("mute", until, reason, at), field="mute")
        elif action == "unban":
            self.store.sanction(player_id, None)
            self.gate.forget(player_id)
            self.ratings.show(player_id, "banned")
        elif action == "rename":
            player = self.accounts.find(player_id)
            self.accounts.update(player, name=placeholder(player_id), handle="" if player.handle else None)
        entry = self._log(by, player_id, action, reason, until, report)
        self._tell(player_id, action, {"reason": reason, "until": until or ""})
        return entry

    def remove(self, player_id: str) -> None:
        """End what a suspended or banned player has open: tickets, challenges, listed tables; an AI in their seats.
        Safe to repeat (a write of theirs that passed the gate just before the sanction is ended by a second pass)."""
        for part in self.removal:
            part.on_account_deleted(player_id)

    def barred(self, player_id: str) -> bool:
        """Whether a suspension or a ban holds for the player now (read afresh)."""
        sanction = self.store.standing(player_id).sanction
        return sanction is not None and in_force(sanction, self.now())

    # --- the audit log and notices ---------------------------------------------------------

    def _log(self, by: str, player_id: str, action: str, reason: str, until: str | None, report: str | None) -> LogEntry:
        fields: dict[str, Any] = {
            "by": by,
            "player_id": player_id,
            "action": action,
            "reason": reason,
            "at": _iso(self.now()),
            "report_id": report,
            "until": until,
        }
        entry_id = self.store.log(fields)
        return LogEntry(entry_id, by, player_id, action, reason, fields["at"], report, until)

    def log_page(self, after: str | None, limit: int) -> tuple[list[LogEntry], str | None]:
        entries = self.store.read_log(after or "-", limit + 1)
        return entries[:limit], (entries[limit - 1].id if len(entries) > limit else None)

    def names(self, entries: Iterable[LogEntry]) -> dict[str, str | None]:
        """The names, as they are now, of the moderators and players ``entries`` name (``None``: a deleted account, or
        ``operator``)."""
        return self.accounts.names(p for e in entries for p in (e.by, e.player_id) if p != OPERATOR)

    def _tell(self, player_id: str, what: str, params: dict[str, Any]) -> None:
        self.store.tell(player_id, {"code": NOTICES[what], "params": params, "at": _iso(self.now())})

    def notices(self, player_id: str) -> list[dict[str, Any]]:
        return self.store.notices(player_id)
