"""A player's record: the finished games they played and won, what counts, and how it is rebuilt.

The record is a projection kept beside the finished-games index (:meth:`PlayerStore.archive_game` counts a game
when it indexes it as finished): a set of game ids per player for the games played, another for those won, so a
game counts once however often its finish is indexed.  What counts (:func:`counted`): a game that *finished*
with a winner.  A game called off before it started never finishes; an aborted one ends with no winner: neither
counts.  Every seated player played it (one who resigned too: they left a game in play), and the winner's seat won
it, unless its player had resigned (an AI won it for them).

Rebuilt from the finished-games index (:func:`rebuild`): a record kept since sign-up is marked complete; one of a
player who signed up before records were kept is rebuilt the first time it is read, by loading each game the
player's index lists as finished (a set only grows, so a game counted meanwhile is counted once all the same).
"""

from __future__ import annotations

from collections.abc import Callable

from service.common.errors import NotFound
from service.domain.game import Game
from service.storage.players import PlayerStore, Record

#: Finished games read per page of the index while a record is rebuilt.
PAGE = 200


def counted(game: Game) -> tuple[set[str], set[str]]:
    """Who played ``game`` and who won it, for their records (nobody, for a game that did not finish with a winner)."""
    winner = game.state.winner
    if game.status != "finished" or winner is None:
        return set(), set()
    played = {seat.player_id for seat in game.seats if seat.player_id}
    seat = game.seats[winner]
    won = {seat.player_id} if seat.player_id and not seat.resigned else set()
    return played, won


def rebuild(players: PlayerStore, player_id: str, load: Callable[[str], Game]) -> Record:
    """The player's record made complete from their finished-games index (see the module)."""
    played: set[str] = set()  # game ids
    won: set[str] = set()
    before: tuple[int, str] | None = None
    while True:
        page = players.finished_ids(player_id, before, PAGE)
        for game_id, _ in page:
            try:
                game = load(game_id)
            except NotFound:
                continue  # not there (a store emptied under the index): nothing to count
            who_played, who_won = counted(game)
            if player_id in who_played:
                played.add(game_id)
            if player_id in who_won:
                won.add(game_id)
        if len(page) < PAGE:
            break
        before = (page[-1][1], page[-1][0])
    players.add_to_record(player_id, played, won, complete=True)
    return players.record(player_id)
