"""Open tables: listed games with a human seat open, found through filters, newest first, and joined without a code.

A game created with ``listed`` is entered in the index of open tables (:mod:`service.storage.tables`) before its
first append, and leaves it after the append that takes its last seat, calls it off or aborts it (the append path
does that, :meth:`~service.application.appending.GameWrites.append`).  The index may hold an entry too many (a
crash between an append and its index move), never one too few: a page checks each game it shows and drops the
entries whose game is no longer an open listed table.

A table's rating is its seated players' mean on the table's ladder (the rating service's, wired by the composition
root; :func:`rating_of`, a new player's rating for everyone, stands in where there is none).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.application.commands import NewGame
from service.common.errors import NotFound, Refused, bad_cursor
from service.domain.game import Game
from service.domain.ratings import NEW, ladder_of
from service.storage.players import Player
from service.storage.tables import TableEntry, TableIndex

#: A player's rating before their first rated game (service.domain.ratings).
DEFAULT_RATING = NEW.shown
#: Index entries one page looks at, at most: a narrow filter answers a short page (with a cursor) rather than scan on.
SCAN_MOST = 500
#: An entry whose game is not there yet is kept this long (ms): the game's first append may be on its way.
NOT_THERE_YET_MS = 60_000


def rating_of(player_id: str, ladder: str) -> int:
    """A player's rating on a ladder where no rating service is wired: a new player's."""
    return DEFAULT_RATING


def table_rating(game: Game, rating: Callable[[str, str], int] = rating_of) -> int:
    """A table's rating: the mean of its seated human players' on its ladder (rounded), the creator's alone while
    nobody joined."""
    ladder = ladder_of(game.variant.value == "advanced")
    ratings = [rating(seat.player_id, ladder) for seat in game.seats if seat.kind == "human" and seat.player_id]
    return round(sum(ratings) / len(ratings)) if ratings else DEFAULT_RATING


def is_open_table(game: Game) -> bool:
    """Listed, waiting, and a human seat open: what ``listOpenGames`` shows."""
    return game.listed and game.status == "waiting" and any(seat.open for seat in game.seats)


def facts_of(request: NewGame, turn_timeout: int | None) -> dict[str, Any]:
    """What the list filters on, kept beside the index entry (a game's settings never change)."""
    return {
        "variant": request.variant.value,
        "action_rules": request.action_rules,
        "players": len(request.seats),
        "turn_timeout": turn_timeout,
        "days_per_turn": request.days_per_turn,
        "rated": request.rated,
    }


@dataclass(frozen=True, slots=True)
class TableFilter:
    """What a caller of ``listOpenGames`` asks for; ``None``: any.  ``turn_timeout`` is a live limit (seconds a
    turn), ``days_per_turn`` a correspondence one: each picks tables of that time control exactly."""

    variant: str | None = None
    action_rules: bool | None = None
    players: int | None = None
    turn_timeout: int | None = None
    days_per_turn: int | None = None
    rated: bool | None = None
    min_rating: int | None = None
    max_rating: int | None = None

    def admits_facts(self, facts: dict[str, Any]) -> bool:
        """Whether a table with these settings may be shown (its rating is checked on the game itself)."""
        wanted = {
            "variant": self.variant,
            "action_rules": self.action_rules,
            "players": self.players,
            "days_per_turn": self.days_per_turn,
            "rated": self.rated,
        }
        if any(value is not None and facts.get(name) != value for name, value in wanted.items()):
            return False
        live = facts.get("days_per_turn") is None and facts.get("turn_timeout") == self.turn_timeout
        return self.turn_timeout is None or live

    def admits_rating(self, rating: int) -> bool:
        return (self.min_rating is None or rating >= self.min_rating) and (self.max_rating is None or rating <= self.max_rating)


@dataclass(frozen=True, slots=True)
class OpenTable:
    game: Game
    rating: int


@dataclass(frozen=True, slots=True)
class OpenTablePage:
    tables: list[OpenTable]
    next_cursor: str | None


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """``<listed ms>.<game id>``: after that table."""
    if cursor is None:
        return None
    if match := re.fullmatch(r"([0-9]{1,15})\.([A-Za-z0-9_]{1,40})", cursor):
        return int(match[1]), match[2]
    raise bad_cursor()


def _cursor(entry: TableEntry) -> str:
    return f"{entry.listed_ms}.{entry.game_id}"


class OpenTables:
    """The open tables: entered and left beside the appends, paged through filters, capped per player."""

    def __init__(
        self,
        index: TableIndex,
        load: Callable[[str], Game],
        *,
        max_listed: int = 0,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        rating: Callable[[str, str], int] = rating_of,
    ) -> None:
        self.index = index
        self.load = load
        self.max_listed = max_listed
        self.now_ms = now_ms
        self.rating = rating

    def enter(self, game_id: str, request: NewGame, turn_timeout: int | None) -> None:
        """List a table about to be made (before its first append: see the module)."""
        self.index.enter(game_id, self.now_ms(), facts_of(request, turn_timeout))

    def leave(self, game_id: str) -> None:
        self.index.leave([game_id])

    def check_cap(self, player: Player, in_play: Callable[[Player], list[Game]], count_in_play: int) -> None:
        """Refuse another listed table to a player who has as many open as they may (``listed_table_limit_reached``).

        A player's listed tables are among their games in play: only a player in that many games has them loaded
        and counted."""
        if not self.max_listed or count_in_play < self.max_listed:
            return
        held = sum(1 for game in in_play(player) if game.created_by == player.id and is_open_table(game))
        if held >= self.max_listed:
            raise Refused(
                "listed_table_limit_reached",
                f"You have {held} listed tables waiting for players; a player may have {self.max_listed} at once. "
                "Call one off, or create this game unlisted (and pass its join code on).",
                limit=self.max_listed,
            )

    def page(
        self, filters: TableFilter, limit: int = 20, cursor: str | None = None, hidden: Callable[[Game], bool] | None = None
    ) -> OpenTablePage:
        """A page of open tables matching ``filters``, newest first; ``next_cursor`` is ``None`` on the last page.

        At most :data:`SCAN_MOST` index entries are looked at: a narrow filter may answer fewer than ``limit``
        tables (even none) with a cursor to go on from.  Entries whose game is no longer an open listed table are
        dropped on the way (the index heals as it is read).  A table ``hidden`` says of is passed over.
        """
        position = _parse_cursor(cursor)
        shown: list[tuple[TableEntry, OpenTable]] = []
        dropped: list[str] = []
        scanned = 0
        last: TableEntry | None = None
        exhausted = False
        while len(shown) <= limit and scanned < SCAN_MOST:
            wanted = min(100, SCAN_MOST - scanned)
            chunk = self.index.page(position, wanted)
            for entry in chunk:
                scanned += 1
                last = entry
                table = self._shown(entry, filters, dropped)
                if table is not None and hidden is not None and hidden(table.game):
                    table = None
                if table is not None:
                    shown.append((entry, table))
                    if len(shown) > limit:
                        break
            if len(shown) > limit:
                break
            if len(chunk) < wanted:
                exhausted = True
                break
            position = (chunk[-1].listed_ms, chunk[-1].game_id)
        self.index.leave(dropped)
        if len(shown) > limit:  # one more than the page: the cursor is the page's last table
            return OpenTablePage([table for _, table in shown[:limit]], _cursor(shown[limit - 1][0]))
        if exhausted or last is None:
            return OpenTablePage([table for _, table in shown], None)
        return OpenTablePage([table for _, table in shown], _cursor(last))

    def _shown(self, entry: TableEntry, filters: TableFilter, dropped: list[str]) -> OpenTable | None:
        """The table an entry stands for, if it is open and matches; an entry for no open table joins ``dropped``."""
        if entry.facts is not None and not filters.admits_facts(entry.facts):
            return None
        try:
            game = self.load(entry.game_id)
        except NotFound:
            if self.now_ms() - entry.listed_ms > NOT_THERE_YET_MS:
                dropped.append(entry.game_id)  # its create never happened
            return None
        if not is_open_table(game):
            dropped.append(entry.game_id)  # filled, called off or aborted, and not unlisted then
            return None
        if entry.facts is None and not filters.admits_facts(_facts_of_game(game)):
            return None
        rating = table_rating(game, self.rating)
        return OpenTable(game, rating) if filters.admits_rating(rating) else None


def _facts_of_game(game: Game) -> dict[str, Any]:
    return {
        "variant": game.variant.value,
        "action_rules": game.action_rules,
        "players": len(game.seats),
        "turn_timeout": game.turn_timeout,
        "days_per_turn": game.days_per_turn,
        "rated": game.rated,
    }
