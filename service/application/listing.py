"""A player's list of games: in play first (their turn, then active, then waiting), then the finished ones."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import datetime

from service.application.commands import GamePage
from service.application.records import counted
from service.common.errors import NotFound, bad_cursor
from service.domain.game import Game
from service.storage.players import Player, PlayerStore

log = logging.getLogger("red7.games")


OpenAfter = tuple[int, int, str]
FinishedAfter = tuple[int, str]


def _parse_cursor(cursor: str | None) -> tuple[str, OpenAfter | FinishedAfter | None]:
    """``o.<rank>.<ms>.<id>`` (after that game in play), ``f`` (the first finished game) or ``f.<ms>.<id>`` (after that one)."""
    if cursor is None:
        return "open", None
    if cursor == "f":
        return "finished", None
    if match := re.fullmatch(r"o\.([0-2])\.(-?[0-9]{1,16})\.([A-Za-z0-9_]{1,40})", cursor):
        return "open", (int(match[1]), -int(match[2]), match[3])
    if match := re.fullmatch(r"f\.([0-9]{1,15})\.([A-Za-z0-9_]{1,40})", cursor):
        return "finished", (int(match[1]), match[2])
    raise bad_cursor()


def _listed_by(game: Game) -> set[str]:
    """The players whose lists hold the game: its seated players and its creator."""
    return {seat.player_id for seat in game.seats if seat.player_id} | {game.created_by}


def _epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


#: Where a game of the player's turn without a deadline sorts: after every one with a deadline (epoch ms).
NO_DEADLINE = 10**15


class GameLists:
    """Each player's games: the ones in play ordered for them, the finished ones from their own index."""

    def __init__(
        self, players: PlayerStore, load: Callable[[str], Game], deadline: Callable[[Game], datetime | None] | None = None
    ) -> None:
        self.players = players
        self.load = load
        self.deadline = deadline  # of the turn being played (service.domain.deadlines): the player's games by urgency
        #: What else indexes a finished game as it is listed as finished (the players' public archives:
        #: service/application/archive.py), joined by the composition root.
        self.archived: list[Callable[[Game], None]] = []

    def games_of(self, player: Player, *, status: str | None = None, limit: int = 50, cursor: str | None = None) -> GamePage:
        """A page of the player's games: their turn first, the least time left first (the nearest deadline; then those
        with no deadline, newest move first), then active, waiting and finished ones.

        Games not yet finished (few, and in play) are loaded and ordered
        whole, newest move first within each kind; finished ones (the whole
        history) come from their own index, newest first, a page at a time.
        ``cursor`` is the ``next_cursor`` of the page before: the sort key of
        the last game shown, so a game that leaves the list between pages
        shifts nothing.  (A game in play moves in the order as it is played;
        one that finishes while a client pages shows up again among the
        finished ones.)
        """
        section, after = _parse_cursor(cursor)
        page: list[Game] = []
        if section == "open":
            if status in (None, "active", "waiting"):
                keyed = [(key, g) for key, g in self._open_games(player) if status in (None, g.status)]
                if after is not None:
                    keyed = [(key, g) for key, g in keyed if key > after]
                page = [g for _, g in keyed[:limit]]
                if len(keyed) > limit:
                    rank, negated_ms, game_id = keyed[limit - 1][0]
                    return GamePage(page, f"o.{rank}.{-negated_ms}.{game_id}")
            if status not in (None, "finished"):
                return GamePage(page, None)
            before = None
        elif status not in (None, "finished"):
            return GamePage([], None)
        else:
            before = after
        wanted = limit - len(page)
        found = self.players.finished_ids(player.id, before, wanted + 1)  # type: ignore[arg-type]
        for game_id, _ in found[:wanted]:
            try:
                page.append(self.load(game_id))
            except NotFound:
                continue  # not there (a store emptied under the index): nothing to show
        if len(found) <= wanted:
            return GamePage(page, None)
        if wanted == 0:
            return GamePage(page, "f")
        last, score = found[wanted - 1]
        return GamePage(page, f"f.{score}.{last}")

    def in_play(self, player: Player) -> list[Game]:
        """The player's games not finished (waiting or active), loaded."""
        return [game for _, game in self._open_games(player)]

    def _open_games(self, player: Player) -> list[tuple[OpenAfter, Game]]:
        """The player's games not finished, with their sort keys, in list order.

        A finished one found here is moved to the finished index (its writer
        stopped before indexing it); one called off is unlisted.
        """
        keyed = []
        for game_id in self.players.game_ids(player.id):
            try:
                game = self.load(game_id)
            except NotFound:
                continue  # indexed before an append that never happened
            mine = game.seat_of(player.id)
            if mine is None and game.created_by != player.id:
                continue
            if game.status == "finished":
                self.archive(game)
                continue
            if game.status in ("cancelled", "aborted"):
                self.forget(game)  # whoever called it off stopped before unlisting it
                continue
            rank = 0 if game.is_turn_of(player.id) else {"active": 1, "waiting": 2}[game.status]
            order = -_epoch_ms(game.updated_at)
            if rank == 0:
                due = self.deadline(game) if self.deadline is not None else None
                order = int(due.timestamp() * 1000) if due is not None else NO_DEADLINE + order
            keyed.append(((rank, order, game.id), game))
        return sorted(keyed, key=lambda item: item[0])

    def forget(self, game: Game) -> None:
        """Unlist a game called off (cancelled or aborted) for everyone who listed it."""
        self.players.forget_game(_listed_by(game), game.id)

    def archive(self, game: Game) -> None:
        """Index a finished game as finished for everyone who lists it, and count it in their records
        (:mod:`service.application.records`); a deleted account is left out: its lists are gone."""
        listed = _listed_by(game)
        listed -= self.players.deleted_among(listed)
        played, won = counted(game)
        self.players.archive_game(listed, game.id, _epoch_ms(game.updated_at), played=played, won=won)
        for index in self.archived:
            index(game)
