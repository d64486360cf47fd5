"""A feed served from the events its game's load read is the feed a read of its own gives, and needs no read of its own
when those events cover it; when they do not (the caller is further behind), it reads the store as before."""

from __future__ import annotations

import fakeredis
import pytest

from engine import legal_steps
from service.application.commands import NewGame, SeatRequest
from service.application.games import GameService
from service.storage.events import EventStore
from service.storage.players import PlayerStore

AT = "2026-11-27T12:00:00.000Z"


def played(moves: int) -> tuple[GameService, str, list[str]]:
    """A two-human game with ``moves`` steps played; the service, the game's id and the seated players' ids."""
    text = fakeredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    games = GameService(EventStore(text, "t:"), PlayerStore(text, "t:"))
    ana, bo = games.players.create("Ana", AT)[0], games.players.create("Bo", AT)[0]
    game = games.create(ana, NewGame([SeatRequest("human"), SeatRequest("human")], seed=11)).game
    assert game is not None
    games.join(game.id, bo, game.join_code, None)
    for _ in range(moves):
        now = games.load(game.id)
        seat = now.seat_to_move()
        assert seat is not None
        options = [o for o in legal_steps(now.state) if o.can_win and not o.eliminates] or legal_steps(now.state)
        games.act(game.id, ana if now.seats[seat].player_id == ana.id else bo, [options[0].step])
    return games, game.id, [ana.id, bo.id]


@pytest.mark.parametrize("warm", [False, True])
def test_the_feed_from_the_loads_events_is_the_feed_read_apart(warm: bool) -> None:
    games, game_id, seated = played(6)
    if not warm:
        games.loader.forget(game_id)  # a cold load reads the whole stream; a warm one from its cached fold on
    game, read = games.load_reading(game_id)
    assert read[-1][0] == game.version and [n for n, _ in read] == list(range(read[0][0], game.version + 1))
    for viewer in (*seated, None):
        for after in range(0, game.version + 2):
            for limit in (1, 3, 100):
                assert games.feed(game, viewer, after, limit, read) == games.feed(game, viewer, after, limit)


def test_a_covered_feed_reads_nothing_and_one_further_behind_reads_the_store(monkeypatch: pytest.MonkeyPatch) -> None:
    games, game_id, seated = played(4)
    games.load(game_id)  # the cache holds the game now: the next load reads from its version on (its head)
    game, read = games.load_reading(game_id)
    assert [n for n, _ in read] == [game.version] and game.version > 1
    expected = {after: games.feed(game, seated[0], after) for after in (game.version - 1, 0)}
    reads: list[int] = []
    real = games.store.read

    def counted(stream: str, after: int = 0, limit: int | None = None):  # type: ignore[no-untyped-def]
        reads.append(after)
        return real(stream, after, limit)

    monkeypatch.setattr(games.store, "read", counted)
    assert games.feed(game, seated[0], game.version - 1, 100, read) == expected[game.version - 1]  # the last event
    assert reads == []
    assert games.feed(game, seated[0], 0, 100, read) == expected[0]  # behind what the load read: the store is read
    assert reads == [0]
