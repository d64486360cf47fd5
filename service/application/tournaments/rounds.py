"""A tournament's rounds: started with their games, closed as their games end or at their deadline.

**Starting a round.**  The round's game ids (:func:`game_id_for`) and, for a duplicate tournament, its seed are
recorded in ``round_started`` first; then each game the event names is made with :meth:`GameService.set_up` under
its id.  Whoever finds a recorded game missing makes it (:meth:`Rounds.make_games`: the next tick, the next game's
end, a read of the round), and ``set_up`` makes a game once whoever calls it, so a crash between the event and the
last game makes each game once.  A round just started is on the agenda a few seconds on
(:data:`~service.application.tournaments.base.MAKING_CHECK`), so a worker killed while it makes the games leaves them
to the ticker's look then.

**A duplicate round's deal.**  Every table of a size is dealt from the seed the round records for that size.  A
game's seed is kept to 53 bits (exact as a JavaScript number, as every seed of ours): the game is made with the
deal's seed's low 53 bits, recorded in its ``game_created`` event (``dealing: seeded``), so its replay verifies on
its own and every table of that size shares its deal.  A seeded game is never rated (its deal was chosen), so a
duplicate tournament's games are unrated whatever the organiser chose.

**A game's end.**  A tournament game that finishes is folded into the tournament by :meth:`Rounds.game_finished`,
which the ``tournament_game`` job calls: :func:`service.application.followups.due` asks for that job on every
append of a finished game made for a tournament, as it asks for ``rate`` (so a job lost with its worker is asked
for again on the game's next look, and the tournament's own tick folds any it missed).  The last game of a round
to end closes it, and the next round starts at once.

**Time.**  :meth:`Rounds.tick` does what is due on a tournament at the service's time: the first round once entries
close, a correspondence round settled at its deadline (each running game given its current standing's places),
missing games made, finished games folded; it returns when to look again (``None``: nothing waits on time).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable
from datetime import datetime

from engine import Variant
from service.application.commands import NewGame, SeatRequest
from service.application.tournaments.base import game_id_for, parse_time, tournament_of
from service.application.tournaments.timeouts import Timeouts
from service.common.errors import NotFound, Refused
from service.domain import tournaments as rules
from service.domain.game import Game, decode
from service.domain.tournaments import Round, Table, Tournament
from service.storage.players import Player

#: A game's seed is exact as a JavaScript number (53 bits), as every seed the service chooses.
SEED_BITS = 2**53 - 1
SERVICE = "service:tournaments"


class Rounds(Timeouts):
    """Rounds started, games made and folded, deadlines kept (a part of the tournament service)."""

    def start_round(self, tournament_id: str, number: int) -> Tournament:
        """Start round ``number`` (done already: nothing decided) and make every game it names that is not there."""
        t = self.load(tournament_id)
        if number > t.started:
            ids = [game_id_for(tournament_id, number, n) for n in range(rules.ids_needed(t))]
            command = rules.StartRound(number, ids, secrets.randbits(63))
            t, _ = self._write(t, SERVICE, lambda t, now: rules.decide(t, command, now))
        self.make_games(t)
        return t

    def make_games(self, t: Tournament) -> list[str]:
        """Make each game of the current round that is recorded and missing (safe to repeat); the ones made."""
        current = t.current
        if current is None or current.closed:
            return []
        made = []
        for table in current.tables:
            if not self.games.store.exists(table.game_id):
                self._make(t, current, table)
                made.append(table.game_id)
        return made

    def _make(self, t: Tournament, rnd: Round, table: Table) -> None:
        s = t.terms
        seed = rnd.seed_for(len(table.seats))
        request = NewGame(
            seats=[SeatRequest("human") if p is not None else SeatRequest("ai", s.ai_level) for p in table.seats],
            variant=Variant(s.variant),
            action_rules=s.action_rules,
            seed=None if seed is None else seed & SEED_BITS,
            turn_timeout=s.turn_timeout if s.time_control == "live" else None,
            rated=s.rated and seed is None,
            days_per_turn=s.days_per_turn if s.time_control == "correspondence" else None,
            origin="tournament",
        )
        humans = [(n, self._player(t, p)) for n, p in enumerate(table.seats) if p is not None]
        creator, seated = humans[0][1], humans[1:]
        self.games.set_up(creator, request, seated, game_id=table.game_id)

    def _player(self, t: Tournament, player_id: str) -> Player:
        """The player as they are now, else as they entered."""
        return self.players.get(player_id) or Player(player_id, t.entrants[player_id].name, "")

    def game_finished(self, game_id: str) -> str:
        """Count a tournament game's timed-out turns, and fold it into its tournament if it is over (safe to repeat);
        what came of it, in words."""
        tournament_id = tournament_of(game_id)
        if tournament_id is None:
            return "nothing to do: no tournament's game"
        try:
            t = self.load(tournament_id)
        except NotFound:
            return f"nothing to do: no tournament {tournament_id}"
        before = t.started
        rnd = t.round_of(game_id)
        table = rnd.table(game_id) if rnd is not None else None
        withdrawn: list[str] = []
        if table is not None:
            t, withdrawn = self._count_timeouts(t, table)
        t = self._fold_finished(t)
        t = self._next(t)
        news = " (a new round started)" if t.started > before else ""
        gone = f" ({', '.join(withdrawn)} withdrawn after timeouts)" if withdrawn else ""
        return f"tournament {tournament_id}: round {t.started} of {t.terms.rounds}{news}{gone}"

    def folded(self, game: Game) -> bool:
        """Whether a finished game's places are in its tournament (or there is nothing to fold them into): what the
        dispatcher asks before it watches the game's ``tournament_game`` job."""
        tournament_id = tournament_of(game.id)
        if tournament_id is None:
            return True
        try:
            t = self.load(tournament_id)
        except NotFound:
            return True
        rnd = t.round_of(game.id)
        return rnd is None or rnd.closed or game.id in rnd.results or t.finished is not None

    def _fold_finished(self, t: Tournament) -> Tournament:
        """Every running game of the current round that is over, folded in."""
        current = t.current
        if current is None or current.closed:
            return t
        for table in current.running:
            if not self.games.store.exists(table.game_id):
                continue
            game = self.games.load(table.game_id)
            if game.status != "finished":
                continue
            t, _ = self._count_timeouts(t, table)  # counted before the end is: a timeout at the last turn withdraws too
            places = self._places(table.game_id)
            t, _ = self._write(t.id, SERVICE, _deciding(rules.FinishGame(table.game_id, places)))
        return t

    def _places(self, game_id: str) -> tuple[int, ...]:
        game, stored = self.games.load_reading(game_id)
        return rules.current_places(game, [decode(payload) for _, payload in stored])

    def _next(self, t: Tournament) -> Tournament:
        """Start the next round if the last one closed (and the first once entries close)."""
        if t.finished is not None or t.started >= t.terms.rounds:
            return t
        if t.current is not None and not t.current.closed:
            return t
        if t.current is None and self.now() < parse_time(t.terms.entries_close):
            return t
        return self.start_round(t.id, t.started + 1)

    def settle(self, tournament_id: str) -> Tournament:
        """Close the current round at its deadline, every game still running given its current standing's places."""
        t = self._fold_finished(self.load(tournament_id))
        current = t.current
        if current is None or current.closed or current.deadline is None:
            return t
        settled = tuple(rules.Outcome(table.game_id, self._settled_places(t, table)) for table in current.running)
        command = rules.SettleRound(current.number, settled)
        t, _ = self._write(t, SERVICE, lambda t, now: rules.decide(t, command, now))
        return self._next(t)

    def _settled_places(self, t: Tournament, table: Table) -> tuple[int, ...]:
        if not self.games.store.exists(table.game_id):
            self._make(t, t.rounds[-1], table)  # never made: settled as dealt
        return self._places(table.game_id)

    def tick(self, tournament_id: str) -> datetime | None:
        """Do what is due on the tournament now; when to look at it next (``None``: nothing waits on time)."""
        t = self.load(tournament_id)
        self._publish(t, look=False)
        t = self._fold_finished(t)
        self.make_games(t)
        t = self._next(t)
        current = t.current
        if t.finished is not None:
            return None
        if current is None:
            return parse_time(t.terms.entries_close)
        if not current.closed and current.deadline is not None:
            if self.now() >= parse_time(current.deadline):
                with contextlib.suppress(Refused):  # settled meanwhile
                    self.settle(tournament_id)
                return self.tick(tournament_id)
            return parse_time(current.deadline)
        return None


def _deciding(command: rules.TournamentCommand) -> Callable[[Tournament, datetime], list[rules.TournamentEvent]]:
    """What a write decides for ``command``."""
    return lambda t, now: rules.decide(t, command, now)
