"""The gate every authenticated call passes: a player under a suspension or a ban is refused, and so is one who has not
accepted the terms in force.

One read of the player's standing (:class:`~service.storage.moderation.ModerationStore`) answers both.  A write asks
the store every time, so that from the moment a ban is stored no action of the banned player lands: an action either
passed the gate before the ban was written (and lands, as any action does, or conflicts with the AI's takeover and is
decided again, which the gate then refuses) or is refused.  A read may use what this process read up to
``cache_seconds`` ago (a ban stops reads of other processes that late at most).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from service.application.terms import Terms
from service.common.errors import Refused
from service.common.texts import Text, message
from service.storage.moderation import ModerationStore, Sanction, Standing

#: How long a process trusts a player's standing it read, for a read (never for a write), in seconds.
CACHE_SECONDS = 1.0

SUSPENDED = message("problem.player_suspended.detail", "Your account is suspended until %(until)s.")
BANNED = message("problem.player_banned.detail", "Your account is banned.")


def in_force(sanction: Sanction | None, now: datetime) -> bool:
    """Whether ``sanction`` still holds at ``now`` (none: no)."""
    if sanction is None:
        return False
    return sanction.until is None or datetime.fromisoformat(sanction.until.replace("Z", "+00:00")) > now


def barred(sanction: Sanction) -> Refused:
    """A suspended (``player_suspended``, with ``until`` and ``Retry-After``) or banned (``player_banned``) player's
    refusal."""
    if sanction.kind == "ban":
        refused = Refused("player_banned", "Your account is banned.", until=sanction.until)
        refused.text = Text(BANNED, {})
        return refused
    until = sanction.until or ""
    seconds = int((datetime.fromisoformat(until.replace("Z", "+00:00")) - datetime.now(UTC)).total_seconds()) + 1
    refused = Refused("player_suspended", f"Your account is suspended until {until}.", until=until, retry_after=seconds)
    refused.text = Text(SUSPENDED, {"until": until})
    return refused


class Gate:
    """Standing checked on each call: sanctions (suspend, ban) first, then the terms."""

    def __init__(
        self,
        store: ModerationStore,
        terms: Terms,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        cache_seconds: float = CACHE_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.terms = terms
        self.now = now
        self.cache_seconds = cache_seconds
        self.monotonic = monotonic
        self._read: dict[str, tuple[float, Standing]] = {}

    def standing(self, player_id: str, *, fresh: bool) -> Standing:
        known = self._read.get(player_id)
        if not fresh and known is not None and self.monotonic() - known[0] < self.cache_seconds:
            return known[1]
        standing = self.store.standing(player_id)
        if len(self._read) > 10_000:
            self._read.clear()
        self._read[player_id] = (self.monotonic(), standing)
        return standing

    def admit(self, player_id: str, *, write: bool, terms: bool = True) -> None:
        """Refuse ``player_id``'s call if a suspension or a ban holds, or (``terms``) if they have not accepted the
        terms in force; ``write``: asked of the store, whatever this process read before."""
        standing = self.standing(player_id, fresh=write)
        sanction = standing.sanction
        if sanction is not None and sanction.kind in ("suspend", "ban") and in_force(sanction, self.now()):
            raise barred(sanction)
        if terms and self.terms.version and standing.terms != self.terms.version:
            raise self.terms.not_accepted()

    def forget(self, player_id: str) -> None:
        """Read ``player_id``'s standing afresh next time (this process just changed it)."""
        self._read.pop(player_id, None)
