"""A report of one player by another, and a moderator's decision on it (pure: no I/O, no clock of its own).

A report names who is reported, why (:data:`REASONS`), optionally where (a game, and later a message at its table) and
a comment, and holds its evidence as it was when it was made (:class:`Evidence`: the name and handle then, the game's
id and version, the messages), so that a rename or a deletion later cannot erase what was reported.  Its id is a digest
of who reports whom, why and where (:func:`report_id`): the same report made twice is one.

A decision (:data:`ACTIONS`) is made once; a report is then closed.  Moderation works to a target: every report
decided within :data:`TARGET_SECONDS` (24 hours, as app stores ask of apps with content from users).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

#: The reporter of a message the word filter held back (no player: nobody is told it was handled).
BY_FILTER = "filter"
#: Why a player is reported.
REASONS = ("harassment", "offensive_name", "cheating", "stalling", "other")
#: What a moderator may decide: on a report (``dismiss`` closes it with no action), or on a player directly.
ACTIONS = ("dismiss", "warn", "rename", "mute", "suspend", "ban", "unban")
#: The actions that last a period (``until``); a ban lasts until it is lifted.
TIMED = ("mute", "suspend")
#: How long a report may wait for a decision: 24 hours.
TARGET_SECONDS = 24 * 3600
#: The longest a comment or a moderator's reason may be.
MAX_COMMENT = 1000


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the report is about, as it was when it was made."""

    name: str
    handle: str | None
    game_id: str | None = None
    game_version: int | None = None
    messages: tuple[dict[str, Any], ...] = ()  # table talk, when reported (its own record, copied here)

    def json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "handle": self.handle,
            "game_id": self.game_id,
            "game_version": self.game_version,
            "messages": list(self.messages),
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """A moderator's decision on a report: who, what, why, when, and until when (a timed action)."""

    by: str
    action: str
    reason: str
    at: str
    until: str | None = None

    def json(self) -> dict[str, Any]:
        return {"by": self.by, "action": self.action, "reason": self.reason, "at": self.at, "until": self.until}


@dataclass(frozen=True, slots=True)
class Report:
    """One report and, once decided, its decision."""

    id: str
    reporter_id: str
    reported_id: str
    reason: str
    comment: str
    created_at: str
    evidence: Evidence
    message_id: str | None = None
    decision: Decision | None = field(default=None)

    @property
    def status(self) -> str:
        return "open" if self.decision is None else "decided"

    def age_seconds(self, now: datetime) -> int:
        return max(0, int((now - _parse(self.created_at)).total_seconds()))

    def overdue(self, now: datetime) -> bool:
        """Whether it has waited longer than the target (decided ones are never overdue)."""
        return self.decision is None and self.age_seconds(now) > TARGET_SECONDS

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reporter_id": self.reporter_id,
            "reported_id": self.reported_id,
            "reason": self.reason,
            "comment": self.comment,
            "created_at": self.created_at,
            "message_id": self.message_id,
            "evidence": self.evidence.json(),
            "decision": self.decision.json() if self.decision else None,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Report:
        evidence = dict(data["evidence"])
        evidence["messages"] = tuple(evidence.get("messages") or ())
        decision = data.get("decision")
        return Report(
            id=data["id"],
            reporter_id=data["reporter_id"],
            reported_id=data["reported_id"],
            reason=data["reason"],
            comment=data.get("comment", ""),
            created_at=data["created_at"],
            evidence=Evidence(**evidence),
            message_id=data.get("message_id"),
            decision=Decision(**decision) if decision else None,
        )


def report_id(reporter_id: str, reported_id: str, reason: str, game_id: str | None, message_id: str | None) -> str:
    """The same report (who reports whom, why, in which game, which message) is always the same id."""
    key = "\x1f".join((reporter_id, reported_id, reason, game_id or "", message_id or ""))
    return "r_" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _parse(moment: str) -> datetime:
    return datetime.fromisoformat(moment.replace("Z", "+00:00"))
