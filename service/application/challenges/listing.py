"""Challenges read: one the player has a part in, and the player's inbox (sent and received), a page at a time.

A read is also where a started challenge whose game is missing (its process stopped between the two) gets its game:
nobody is left with a started challenge and no game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.application.challenges.base import ChallengeServiceBase
from service.common.errors import bad_cursor
from service.domain.challenges import Challenge
from service.storage.players import Player

#: The most index entries one page of the inbox looks at, whatever its filter keeps: a page may hold fewer than its
#: limit and a cursor, and the next one goes on from there.
PAGE_LOOKS_AT = 200


@dataclass(frozen=True, slots=True)
class ChallengePage:
    challenges: list[Challenge]
    next_cursor: str | None


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """``<ms>.<challenge id>``: after that entry of the inbox."""
    if cursor is None:
        return None
    if match := re.fullmatch(r"([0-9]{1,15})\.(c_[0-9a-f]{16})", cursor):
        return int(match[1]), match[2]
    raise bad_cursor()


class Listing(ChallengeServiceBase):
    """Challenges read (part of :class:`~service.application.challenges.ChallengeService`)."""

    def get(self, challenge_id: str, player: Player) -> Challenge:
        """A challenge the player has a part in; a started one's game is made if it is not yet."""
        challenge = self._visible(challenge_id, player)
        self._made(challenge)
        return self.shown(challenge)

    def inbox(self, player: Player, *, status: str | None = None, limit: int = 50, cursor: str | None = None) -> ChallengePage:
        """The challenges the player sent and received, newest first, a page at a time; ``status``: only those that
        stand so now (``open``, ``started``, ``declined``, ``cancelled``, ``expired``)."""
        before = _parse_cursor(cursor)
        now = self.now()
        found: list[Challenge] = []
        looked, exhausted = 0, False
        while len(found) < limit and looked < PAGE_LOOKS_AT:
            want = min(limit - len(found), PAGE_LOOKS_AT - looked)
            entries = self.challenge_index.page(player.id, before, want)
            for challenge_id, made_ms in entries:
                looked += 1
                before = (made_ms, challenge_id)
                challenge = self._find(challenge_id)
                if challenge is not None and challenge.concerns(player.id) and status in (None, challenge.status(now)):
                    found.append(challenge)
            if len(entries) < want:
                exhausted = True
                break
        more = not exhausted and before is not None and bool(self.challenge_index.page(player.id, before, 1))
        for challenge in found:
            self._made(challenge)
        return ChallengePage(self.shown_all(found), f"{before[0]}.{before[1]}" if more and before is not None else None)
