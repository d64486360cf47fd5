"""Table talk: a seated player says something at a game's table (``sayAtTable``) and reads what was said
(``listTableTalk``), each reader receiving what their mutes, blocks and reach let through (:mod:`service.domain.talk`).

Talk never touches the game's event stream (:mod:`service.storage.talk` keeps it apart), so a replay and its hash,
and the game's version, are the same with or without it.  A free text with a listed word is kept *held*: its author
reads it marked so, nobody else reads it, and it is queued for review as a report of the author by the filter
(:meth:`ReportService.held <service.application.reports.ReportService.held>`).  Talk is off at a table where the
player has no other human to talk to (an AI-only table), and for a player a moderator muted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.application.blocks import reach_from
from service.application.followups import Due, NoFollowUps, table_talk
from service.application.reports import ReportService
from service.application.screening import Screen
from service.application.standing import in_force
from service.common.errors import NotFound, Refused
from service.common.texts import message
from service.domain.game import Game
from service.domain.talk import PHRASES, Hearing, Message, checked, readable_by
from service.storage.blocks import BlockStore
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.moderation import ModerationStore
from service.storage.players import Player
from service.storage.talk import Said, TableFull, TalkStore, messages_key

#: The preset phrases' words, in each reader's language (the catalogs).
WORDS = {
    "good_luck": message("talk.good_luck", "Good luck!"),
    "well_played": message("talk.well_played", "Well played!"),
    "your_move": message("talk.your_move", "Your move."),
    "thinking": message("talk.thinking", "Thinking…"),
}
assert set(WORDS) == set(PHRASES)

#: How many stored messages one page's read looks through at most (a page filtered for one reader may be short).
SCAN = 500


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class Spoken:
    """A message as its author is answered: the message and whether a retry found it."""

    message: Message
    replayed: bool


@dataclass(frozen=True, slots=True)
class TalkPage:
    messages: list[Message]
    next_cursor: str | None  # the last entry looked at, when more may follow
    last: str | None = None  # the last entry looked at (a feed goes on from it)


def message_of(said: Said) -> Message:
    fields = said.fields
    return Message(
        said.id, fields["author_id"], int(fields["seat"]), fields.get("phrase"), fields.get("text"), bool(fields.get("held")),
        int(fields["at_ms"]),
    )  # fmt: skip


class TalkService:
    def __init__(
        self,
        store: TalkStore,
        load: Callable[[str], Game],
        blocks: BlockStore,
        screen: Screen,
        reports: ReportService,
        standing: ModerationStore,
        notify: Callable[[Sequence[Due]], None] | None = None,
        *,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.store = store
        self.load = load
        self.blocks = blocks
        self.screen = screen
        self.reports = reports
        self.standing = standing
        #: How a notice is queued (the games' follow-ups, read when one is sent: the runtime sets them after building).
        self.notify: Callable[[Sequence[Due]], None] = notify if notify is not None else NoFollowUps().notify
        self.clock = clock

    def _game(self, game_id: str) -> Game:
        try:
            return self.load(game_id)
        except NotFound:
            raise NotFound("game_not_found", f"No game has the id {game_id!r}.") from None

    @staticmethod
    def _seat(game: Game, player_id: str) -> int:
        seat = game.seat_of(player_id)
        if seat is None:
            raise Refused("not_a_player", "Only the players seated at a game talk at its table.")
        return seat

    @staticmethod
    def seated(game: Game) -> set[str]:
        """The human players who hold a seat (an AI has no ear)."""
        return {seat.player_id for seat in game.seats if seat.player_id is not None}

    def say(self, player: Player, game_id: str, phrase: str | None, text: str | None, idempotency: Idempotency | None) -> Spoken:
        """Say ``phrase`` (a preset code) or ``text`` at the table: ``not_a_player`` without a seat,
        ``table_talk_off`` with nobody human to hear, ``player_muted`` under a moderator's mute, ``table_talk_full``
        past the bound."""
        phrase, text = checked(phrase, text)
        game = self._game(game_id)
        seat = self._seat(game, player.id)
        if not self.seated(game) - {player.id}:
            raise Refused("table_talk_off", "Nobody else at this table can read table talk (its other seats are AIs).")
        mute = self.standing.standing(player.id).mute
        if in_force(mute, datetime.now(UTC)):
            raise Refused("player_muted", "A moderator muted you at the tables.", until=mute.until if mute else None)
        held = text is not None and self.screen.offending(text) is not None
        fields = {"author_id": player.id, "seat": seat, "phrase": phrase, "text": text, "held": held, "at_ms": self.clock()}
        try:
            said = self.store.say(game_id, player.id, fields, idempotency)
        except TableFull:
            raise Refused("table_talk_full", "This table holds as many messages as a table may.") from None
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None
        spoken = message_of(said)
        if spoken.held and not said.replayed:
            self.reports.held(player, game, spoken.json())
        elif not said.replayed:
            self.tell(game, spoken)
        return Spoken(spoken, said.replayed)

    def tell(self, game: Game, said: Message) -> None:
        """Tell the other seated players who receive ``said`` (their mutes, blocks and reach) by webhook and push."""
        others = sorted(self.seated(game) - {said.author_id})
        told = [p for p in others if readable_by(said, self.hearing(game, p))]
        if told:
            self.notify([table_talk(game.id, game.version, p) for p in told])

    def hearing(self, game: Game, reader_id: str) -> Hearing:
        """What decides what ``reader_id`` receives at ``game``'s table (read afresh, in one round trip: a mute or block
        holds at once)."""
        seated = self.seated(game)
        kept, stored = self.blocks.hearing(reader_id, sorted(seated - {reader_id}))
        return Hearing(reader_id, seated, kept, reach_from(stored).talk)

    def page(self, player: Player, game_id: str, after: str | None, limit: int) -> TalkPage:
        """What the player receives at the table, oldest first, after the entry ``after``; ``not_a_player`` for a
        spectator or a player with no seat."""
        game = self._game(game_id)
        self._seat(game, player.id)
        return self.read(game, self.hearing(game, player.id), after, limit)

    def read(self, game: Game, hearing: Hearing, after: str | None, limit: int) -> TalkPage:
        """Up to ``limit`` messages ``hearing`` receives after ``after``, looking through :data:`SCAN` at most."""
        shown: list[Message] = []
        looked = 0
        cursor = after
        while len(shown) < limit and looked < SCAN:
            batch = self.store.after(game.id, cursor, min(100, SCAN - looked))
            if not batch:
                return TalkPage(shown, None, cursor)
            for said in batch:
                looked += 1
                cursor = said.id
                found = message_of(said)
                if readable_by(found, hearing):
                    shown.append(found)
                    if len(shown) == limit:
                        break
        return TalkPage(shown, cursor, cursor)

    def reads(self, game_id: str, reader_id: str, found: dict[str, Any]) -> bool:
        """Whether ``reader_id`` receives the message ``found`` (as :meth:`Message.json` wrote it) at the game's table."""
        game = self._game(game_id)
        return readable_by(message_of(Said(found["id"], found)), self.hearing(game, reader_id))

    # --- the live feeds ------------------------------------------------------------------------

    def start(self, game_id: str) -> str:
        """Where a live feed starts to follow the table: after the newest message (a feed brings what is new; the
        earlier ones are :meth:`page`'s)."""
        return self.store.last_id(game_id) or "0-0"

    def follow(self, game_id: str, cursor: str) -> dict[str, str]:
        """What a feed's wait watches besides the game's events, so that a message ends it at once."""
        return {messages_key(self.store.prefix, game_id): cursor}

    def news(self, game: Game, viewer: str | None, cursor: str) -> tuple[list[Message], str]:
        """The messages after ``cursor`` the viewer receives (none for a spectator or a player with no seat: their
        hearing is read afresh each time, so a mute or a block holds at once), and the cursor to go on from."""
        if viewer is None or game.seat_of(viewer) is None:
            return [], self.store.last_id(game.id) or cursor
        page = self.read(game, self.hearing(game, viewer), None if cursor == "0-0" else cursor, 100)
        return page.messages, page.last or cursor

    def find(self, game_id: str, message_id: str) -> Message | None:
        said = self.store.get(game_id, message_id)
        return None if said is None else message_of(said)
