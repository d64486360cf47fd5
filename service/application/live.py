"""Live games to watch: the games in play anyone may follow, and how many people are following each.

Spectators watch through the public view and feeds that already exist (no token: what a spectator sees).  Here they
are counted: each spectator feed holds a lease on the game while it is open (:mod:`service.storage.watchers`),
renewed as it goes on, given back when it closes; a feed whose process died or whose client stopped polling stops
counting when its lease runs out.  A stream holds one lease of its own; successive long-polls of one watcher (their
token, or else their address) renew one lease, which outlives a poll by :data:`POLL_GRACE_S` so that the gap between
two polls does not drop them.

A game is listed when it is being played (dealt, not over), no seated player keeps their games off the list (their
``live_listed`` setting) and its readers are not limited: a game of a duplicate tournament's round still running is
read by its own players alone (:mod:`service.application.tournaments.reading`), so it is never listed.  The games
are found through the index of games in play (:mod:`service.storage.inplay`); the candidates are kept a few seconds
per process, so a list asked often costs a scan a few times a minute, while the counts are read afresh every time.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.application.tables import table_rating
from service.common.errors import NotFound
from service.domain.game import Game
from service.storage.inplay import GamesInPlay
from service.storage.watchers import WatcherLeases

log = logging.getLogger("red7.live")

#: How long a long-poll's lease outlives the wait it was taken for (s): the time a client takes to ask again.
POLL_GRACE_S = 30
#: How long a stream's lease outlives the heartbeat it is renewed at (s): a stream renews it at every beat.
STREAM_GRACE_S = 30
#: How long a list's candidates are kept per process (s).
CANDIDATES_FOR_S = 3.0
#: Games of the index one list looks at, at most.
SCAN_MOST = 5000
#: The orders a list may be asked in.
ORDERS = ("rating", "watchers")


@dataclass(frozen=True, slots=True)
class LiveFilter:
    """What a caller of ``listLiveGames`` asks for; ``None``: any."""

    rated: bool | None = None
    variant: str | None = None
    action_rules: bool | None = None
    players: int | None = None

    def admits(self, game: Game) -> bool:
        return (
            (self.rated is None or game.rated == self.rated)
            and (self.variant is None or game.variant.value == self.variant)
            and (self.action_rules is None or game.action_rules == self.action_rules)
            and (self.players is None or len(game.seats) == self.players)
        )


@dataclass(frozen=True, slots=True)
class LiveGame:
    """A game on the list: the game as it was read, its rating (its seated players' mean) and its watchers now."""

    game: Game
    rating: int
    watchers: int


def poll_lease(token_digest: str | None, address: str) -> str:
    """The lease a watcher's long-polls share: their token if they send one, else their address (hashed: the set holds
    no address)."""
    who = f"t:{token_digest}" if token_digest else f"a:{address}"
    return "poll:" + hashlib.sha256(who.encode()).hexdigest()[:24]


class LiveGames:
    """The list of live games, and the watchers' leases (see the module)."""

    def __init__(
        self,
        load: Callable[[str], Game],
        in_play: GamesInPlay,
        leases: WatcherLeases,
        *,
        rating: Callable[[str, str], int] | None = None,
        hidden_among: Callable[[set[str]], set[str]] = lambda players: set(),
        readable: Callable[[str], bool] = lambda game_id: True,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.load = load
        self.in_play = in_play
        self.leases = leases
        self.rating = rating
        self.hidden_among = hidden_among  # the players who keep their games off the list (the composition root's)
        self.readable = readable  # whether anyone may read a game (a duplicate round's are not, while it runs)
        self.now_ms = now_ms
        self._candidates: tuple[float, list[str]] | None = None
        self._lock = threading.Lock()

    # --- watchers ----------------------------------------------------------------------------------------

    @staticmethod
    def is_watcher(game: Game, viewer: str | None) -> bool:
        """Whether a reader of the game's feed is a spectator of it: not seated, and the game not over."""
        return not game.over and game.seat_of(viewer) is None

    def watch(self, game: Game, viewer: str | None, lease: str, seconds: float) -> bool:
        """A spectator's feed is open for ``seconds`` more: hold ``lease`` that long (a seated player or an over game
        holds none).  True if a lease was held."""
        if not self.is_watcher(game, viewer):
            return False
        now = self.now_ms()
        self.leases.hold(game.id, lease, now + int(seconds * 1000), now)
        return True

    def unwatch(self, game_id: str, lease: str) -> None:
        """The feed closed: its lease goes at once."""
        self.leases.release(game_id, lease)

    def watchers(self, game_ids: list[str]) -> dict[str, int]:
        """How many are watching each of these games now."""
        return self.leases.count(game_ids, self.now_ms())

    # --- the list ------------------------------------------------------------------------------------------

    def listed(self, filters: LiveFilter, limit: int, order: str = "rating") -> list[LiveGame]:
        """The games being played that anyone may watch and the filter admits, the highest rated first (or the most
        watched first), at most ``limit``."""
        games = [g for g in self._live() if filters.admits(g)]
        if not games:
            return []
        watchers = self.watchers([g.id for g in games])
        rated = [LiveGame(g, self._rating(g), watchers.get(g.id, 0)) for g in games]
        if order == "watchers":
            rated.sort(key=lambda x: (-x.watchers, -x.rating, x.game.id))
        else:
            rated.sort(key=lambda x: (-x.rating, -x.watchers, x.game.id))
        return rated[:limit]

    def _rating(self, game: Game) -> int:
        return table_rating(game, self.rating) if self.rating is not None else table_rating(game)

    def _live(self) -> list[Game]:
        """The games listable now: the candidates (kept a few seconds), each loaded again and checked."""
        out = []
        for game_id in self._candidate_ids():
            try:
                game = self.load(game_id)
            except NotFound:
                continue
            if self._listable(game):
                out.append(game)
        hidden = self.hidden_among({p for g in out for p in _humans(g)})
        return [g for g in out if not hidden.intersection(_humans(g))]

    def _candidate_ids(self) -> list[str]:
        now = time.monotonic()
        with self._lock:
            if self._candidates is not None and now - self._candidates[0] < CANDIDATES_FOR_S:
                return self._candidates[1]
        found: list[str] = []
        for game_id in self.in_play.scan():
            if len(found) >= SCAN_MOST:
                log.warning("listing live games: more than %d games in play, the rest not looked at", SCAN_MOST)
                break
            found.append(game_id)
        with self._lock:
            self._candidates = (now, found)
        return found

    def _listable(self, game: Game) -> bool:
        return game.status == "active" and self.readable(game.id)

    def forget(self) -> None:
        """Drop the kept candidates (a test, or a process that knows the index changed)."""
        with self._lock:
            self._candidates = None


def _humans(game: Game) -> set[str]:
    return {seat.player_id for seat in game.seats if seat.kind == "human" and seat.player_id}
