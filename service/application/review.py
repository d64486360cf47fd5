"""A player's mistakes across their analysed games: "learn from your mistakes" over a history, not one match.

Lichess's players ask for exactly this (lila #6980, #8250): one game's analysis shows where that game went wrong, but
what a player repeats shows only across many.  A page walks the player's finished games newest first (their own index,
:meth:`~service.storage.players.PlayerStore.finished_ids`) and gathers, from each game whose analysis is done, the
player's own decisions labelled at least as bad as asked — never a turn an AI or a deadline took for them (``by``).
The games of the page with no analysis yet are named apart (``unanalysed``), so that a client can ask for them
(``requestAnalysis``) rather than the review silently skipping them.  Nothing is stored: it is read off the analyses
kept with each game, so it is always what the analyses say now.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.analysis import LABELS
from service.common.errors import NotFound, bad_cursor
from service.domain.game import Game
from service.storage.players import Player, PlayerStore


@dataclass(frozen=True, slots=True)
class Mistake:
    """One of the player's labelled decisions: the game, their seat in it, and the decision as its analysis has it;
    ``variant``: the game's, which says what a step does (a discard's draw is the advanced game's alone)."""

    game_id: str
    finished_at: str
    seat: int
    decision: dict[str, Any]
    variant: str = "advanced"


@dataclass(frozen=True, slots=True)
class MistakePage:
    mistakes: list[Mistake]
    unanalysed: list[str]  # the page's finished games the player played that have no analysis yet
    next_cursor: str | None


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    if cursor is None:
        return None
    if match := re.fullmatch(r"m\.([0-9]{1,15})\.([A-Za-z0-9_]{1,40})", cursor):
        return int(match[1]), match[2]
    raise bad_cursor()


class MistakeReview:
    def __init__(
        self, players: PlayerStore, load: Callable[[str], Game], analysis_of: Callable[[str], dict[str, Any] | None]
    ) -> None:
        self.players, self.load, self.analysis_of = players, load, analysis_of

    def mistakes_of(
        self, player: Player, *, at_least: str = "mistake", games: int = 20, cursor: str | None = None
    ) -> MistakePage:
        """The player's decisions labelled ``at_least`` or worse in up to ``games`` of their finished games, newest game
        first and in play order within a game; ``next_cursor`` goes on with the games after them."""
        worse = set(LABELS[LABELS.index(at_least) :])
        found = self.players.finished_ids(player.id, _parse_cursor(cursor), games + 1)
        mistakes: list[Mistake] = []
        unanalysed: list[str] = []
        for game_id, _ in found[:games]:
            try:
                game = self.load(game_id)
            except NotFound:
                continue  # not there (a store emptied under the index): nothing to show
            seat = game.seat_of(player.id)
            if seat is None:
                continue  # a game they created and did not play
            analysis = self.analysis_of(game_id)
            if analysis is None:
                unanalysed.append(game_id)
                continue
            mistakes.extend(
                Mistake(game_id, game.updated_at, seat, decision, game.variant.value)
                for decision in analysis["decisions"]
                if decision["seat"] == seat and decision["by"] == "player" and decision["label"] in worse
            )
        if len(found) <= games:
            return MistakePage(mistakes, unanalysed, None)
        last, score = found[games - 1]
        return MistakePage(mistakes, unanalysed, f"m.{score}.{last}")
