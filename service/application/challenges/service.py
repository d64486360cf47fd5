"""The challenge service: every command on a challenge, and the reads of one and of a player's inbox."""

from __future__ import annotations

from service.application.challenges.answering import Answering
from service.application.challenges.creating import Creating
from service.application.challenges.listing import Listing
from service.application.erasure import DELETED_NAME
from service.common.errors import Refused
from service.storage.players import Player


class ChallengeService(Creating, Answering, Listing):
    """Every command on a challenge, and the reads of one and of a player's inbox."""

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's open challenges end: those it sent are cancelled, those it received declined (an
        acceptance of theirs too: the challenge cannot start without them).  Called before the account goes and
        again after, on its tombstone: found in the player's index, which a challenge enters before it is appended."""
        player = self.players.get(player_id) or Player(player_id, DELETED_NAME, "")
        cursor: str | None = None
        while True:
            page = self.inbox(player, status="open", limit=50, cursor=cursor)
            for challenge in page.challenges:
                try:
                    if challenge.challenger == player_id:
                        self.cancel(challenge.id, player)
                    else:
                        self.decline(challenge.id, player, "generic")
                except Refused:
                    continue  # it closed meanwhile (expired, answered by the others): nothing left to end
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def part_ways(self, player: Player, other_id: str) -> None:
        """The player blocked ``other_id``: the open challenges between the two end at once — one the player sent
        them is cancelled, one they sent the player declined (``generic``: told as any decline, never why)."""
        cursor: str | None = None
        while True:
            page = self.inbox(player, status="open", limit=50, cursor=cursor)
            for challenge in page.challenges:
                named = {invitee.player_id for invitee in challenge.challenged}
                try:
                    if challenge.challenger == player.id and other_id in named:
                        self.cancel(challenge.id, player)
                    elif challenge.challenger == other_id and player.id in named:
                        self.decline(challenge.id, player, "generic")
                except Refused:
                    continue  # it closed meanwhile: nothing left to end
            if page.next_cursor is None:
                return
            cursor = page.next_cursor
