"""A player's own feed and inbox: every notice the webhooks and pushes carry, kept per player, and what stands now.

Every notice goes through the dispatcher (``Dispatcher.notify``), which writes it here first (:meth:`PlayerFeeds.record`)
and hands its id to the webhook and the pushes that carry it: the feed is the one record of what a player was told,
whatever else they are told by, and its id lets an app told twice keep one.  A feed opens with what stands now
(:meth:`PlayerFeeds.state`: games where it is the player's move, nearest deadline first; open challenges to and from
them; waiting match tickets; rematch offers; the unread count), then carries the notices as they come; the inbox is
the same notices, newest first, with read state kept once for all the player's devices.  Kept in Redis on the
player's slot, trimmed by length and age (:mod:`service.storage.player_feeds`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.application.challenges import Challenge, ChallengeService
from service.application.games import GameService
from service.application.matchmaking.service import MatchService
from service.application.matchmaking.tickets import TicketView
from service.application.players import Player
from service.domain.game import Game
from service.outbound.notice_texts import notice_fields
from service.storage.events.waiting import Waiter
from service.storage.player_feeds import KEEP_SECONDS, MAX_NOTICES, PlayerFeedStore, StoredNotice, valid_id

__all__ = ["KEEP_SECONDS", "MAX_NOTICES", "FeedState", "PlayerFeeds", "notice_json", "valid_id"]

#: The most games, challenges and finished games (for rematch offers) a feed's opening state looks at.
STATE_LIMIT = 50
#: The finished games looked at for a rematch offer (the newest).
REMATCH_LOOKS_AT = 10


@dataclass(frozen=True, slots=True)
class FeedState:
    """What stands for a player when their feed opens (see the module); ``last_id``: the newest notice now."""

    your_turn: list[Game]
    challenges: list[Challenge]
    tickets: list[TicketView]
    rematch_offers: list[Game]
    unread: int
    last_id: str


def notice_json(notice: StoredNotice, language: str | None) -> dict[str, Any]:
    """A notice as the feed and the inbox show it: what its webhook and push say (``notice_fields``), and when."""
    sent = datetime.fromtimestamp(int(notice.id.split("-", 1)[0]) / 1000, UTC)
    return {
        **notice_fields(notice.kind, notice.subject_id, notice.version, notice.game_id, language, notice.id),
        "at": sent.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }


class PlayerFeeds:
    """The players' feeds: written by the dispatcher, read by the feed's forms and the inbox."""

    def __init__(self, store: PlayerFeedStore, games: GameService, challenges: ChallengeService, matches: MatchService) -> None:
        self.store, self.games, self.challenges, self.matches = store, games, challenges, matches

    def record(self, notices: Sequence[tuple[str, str, str, int, str | None]]) -> list[str | None]:
        """Write each notice (player, kind, subject, version, game) to its player's feed; their ids, in order."""
        return [self.store.append(*notice) for notice in notices]

    def state(self, player: Player) -> FeedState:
        """What stands for ``player`` now (the newest notice's id read first: nothing after it is missed)."""
        last_id = self.store.newest_id(player.id)
        active = self.games.games_of(player, status="active", limit=STATE_LIMIT).games
        finished = self.games.games_of(player, status="finished", limit=REMATCH_LOOKS_AT).games
        challenges = self.challenges.inbox(player, status="open", limit=STATE_LIMIT).challenges
        return FeedState(
            [game for game in active if game.is_turn_of(player.id)],  # listed nearest deadline first
            challenges,
            [ticket for ticket in self.matches.open_tickets(player) if ticket.status == "waiting"],
            [game for game in finished if _offered_to(game, player.id)],
            self.store.unread(player.id),
            last_id,
        )

    def after(self, player: Player, after: str, limit: int) -> list[StoredNotice]:
        """The notices after ``after``, oldest first."""
        return self.store.after(player.id, after, limit)

    def newest_id(self, player: Player) -> str:
        return self.store.newest_id(player.id)

    def wait(self, player: Player, after: str, timeout: float, waiter: Waiter | None = None) -> bool:
        """Wait up to ``timeout`` seconds for a notice after ``after`` (``False``: none came, or the waiter left)."""
        return self.store.wait(player.id, after, timeout, waiter)

    def inbox(self, player: Player, before: str | None, limit: int) -> tuple[list[StoredNotice], str | None]:
        """A page of the inbox, newest first, and the cursor of the next (``None``: the last page)."""
        page = self.store.before(player.id, before, limit + 1)
        return page[:limit], page[limit - 1].id if len(page) > limit else None

    def mark_read(self, player: Player, upto: str) -> tuple[str, int]:
        """Every notice up to ``upto`` read, on all the player's devices; the newest read and the unread count."""
        return self.store.mark_read(player.id, upto)

    def read_up_to(self, player_id: str) -> str:
        """The newest notice the player marked read (``0-0``: none)."""
        return self.store.read_up_to(player_id)

    def unread(self, player_id: str) -> int:
        return self.store.unread(player_id)

    def on_account_deleted(self, player_id: str) -> None:
        self.store.forget(player_id)


def _offered_to(game: Game, player_id: str) -> bool:
    """Whether a finished game's rematch waits on ``player_id``: offered by another, not by them, not declined."""
    seat = game.seat_of(player_id)
    return (
        seat is not None
        and bool(game.rematch_offers)
        and seat not in game.rematch_offers
        and game.rematch_declined is None
        and game.rematch is None
    )
