"""Who may play rated games now: an account with some history, not suspended for aborting too many (issue 34).

Ratings were farmed with accounts made a minute before, and rated games aborted right after the deal without end
(6 of 6, no consequence).  What the big services do, and what is taken here:

- **History.**  Lichess gives a rated win over a related account no rating while the winner's account is less than
  7 days old and its rating provisional (lila's ``FarmBoostDetection``); chess.com's new members are unrated for
  their first games.  Here an account must be ``min_account_age`` old (a day) and have finished ``min_games`` games
  of any kind (3; unrated games against the AIs count) before it takes a seat in a rated game: a farm then costs a
  day and some games per account, and its accounts are still worth nothing to beat (newcomers' results move no
  established rating: :mod:`service.domain.ratings`).  Refused with ``rated_play_needs_history``, saying what is missing and,
  when only time is, from when it will do.
- **Aborts.**  Lichess counts an abort as a bad outcome and bans from play past a share of them, 10 minutes at first
  and longer for a ban soon after another, at most 3 days (lila's ``playban``); chess.com restricts habitual
  aborters.  Here every abort of a rated game is noted for the player who made it (:mod:`service.storage.aborts`);
  more than ``abort_limit`` (3) in ``abort_window`` (24 hours) suspend them from rated play for ``suspension`` (an
  hour), doubled for each suspension that began in the week before, at most :data:`LONGEST_SUSPENSION`.  Aborts made
  before a suspension began count no more after it.  Refused with ``rated_play_suspended``, with ``until`` (the
  time) and ``retry_after`` (seconds; the HTTP answer says it in ``Retry-After`` too).  The abort itself always
  goes through: a player who cannot play is never made to resign (and lose rating) instead.

A suspension is not stored: it is a pure function of the aborts noted (:func:`suspensions`), so the rules read the
same from any process, and a changed setting applies to the aborts already noted.  What takes a seat in a rated game
asks :meth:`RatedPlay.check`: creating one, joining one, opening a rated quick-match ticket, a rated challenge (sent
or accepted), a rated rematch.  A ticket opened before a suspension may still be matched while it waits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from service.application.commands import utc_now
from service.application.records import rebuild
from service.common.errors import Refused
from service.common.texts import Text, message, plural
from service.domain.game import Game
from service.storage.aborts import AbortLog
from service.storage.players import Player, PlayerStore

HOUR = 3600
#: The longest a suspension lasts, however many came before (Lichess: 3 days).
LONGEST_SUSPENSION = 3 * 24 * HOUR
#: Suspensions that began this long before another make it longer (each doubles it).
ESCALATION = 7 * 24 * HOUR

HOURS = plural("rated_play.hours", "%(n)d hour", "%(n)d hours")
GAMES = plural("rated_play.games", "%(n)d game", "%(n)d games")
RATED_GAMES = plural("rated_play.rated_games", "%(n)d rated game", "%(n)d rated games")
NEEDS_HISTORY = message(
    "problem.rated_play_needs_history.detail",
    "Rated games are for accounts at least %(age)s old that have finished %(games)s; yours is %(your_age)s old and "
    "has finished %(your_games)s. Play unrated games meanwhile.",
)
SUSPENDED = message(
    "problem.rated_play_suspended.detail",
    "You aborted %(aborts)s within %(window)s: you may start or join rated games again at %(until)s (UTC). "
    "Unrated games are open to you meanwhile.",
)


@dataclass(frozen=True, slots=True)
class RatedPlayRules:
    """The settings (``RED7_RATED_*``): seconds and counts; 0 turns a requirement off."""

    min_account_age: int = 24 * HOUR
    min_games: int = 3
    abort_limit: int = 3
    abort_window: int = 24 * HOUR
    suspension: int = HOUR

    @property
    def looks_back_ms(self) -> int:
        """How far back the aborts matter: the escalation's week and a window before it."""
        return (ESCALATION + self.abort_window) * 1000


def suspensions(aborts_ms: Iterable[int], rules: RatedPlayRules) -> list[tuple[int, int]]:
    """The suspensions (start, end, in ms) a player's aborts of rated games make, oldest first (pure).

    An abort that makes more than ``abort_limit`` in the ``abort_window`` before it (itself included; those made
    before the last suspension began not counted) begins a suspension: ``suspension`` seconds, doubled for each one
    that began in the :data:`ESCALATION` before, at most :data:`LONGEST_SUSPENSION`.
    """
    if not rules.abort_limit or not rules.suspension:
        return []
    made: list[tuple[int, int]] = []
    window_ms = rules.abort_window * 1000
    counted: list[int] = []
    for at in sorted(aborts_ms):
        since = max(at - window_ms, made[-1][0] if made else at - window_ms)
        counted = [t for t in counted if t > since] + [at]
        if len(counted) > rules.abort_limit:
            before = sum(1 for start, _ in made if start > at - ESCALATION * 1000)
            seconds = min(LONGEST_SUSPENSION, rules.suspension * 2**before)
            made.append((at, at + seconds * 1000))
            counted = []
    return made


def suspended_until(aborts_ms: Iterable[int], now_ms: int, rules: RatedPlayRules) -> int | None:
    """When a player's suspension from rated play ends (ms), or ``None`` if they are not suspended at ``now_ms``."""
    ends = [end for start, end in suspensions(aborts_ms, rules) if start <= now_ms < end]
    return max(ends) if ends else None


def ms_of(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _utc(ms: int) -> str:
    """A time as the API writes one to the second: ``2026-05-01T12:00:00Z``."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class RatedPlay:
    """Checks the player who takes a seat in a rated game, and notes the aborts of rated games."""

    def __init__(
        self,
        players: PlayerStore,
        aborts: AbortLog,
        rules: RatedPlayRules | None = None,
        *,
        clock: Callable[[], str] = utc_now,
        load: Callable[[str], Game] | None = None,
    ) -> None:
        self.players = players
        self.aborts = aborts
        self.rules = rules or RatedPlayRules()
        self.clock = clock
        self.load = load  # the games, for a record to rebuild (an account from before records were kept)

    def now_ms(self) -> int:
        return ms_of(self.clock())

    def check(self, player: Player) -> None:
        """Refuse ``player`` a seat in a rated game: ``rated_play_needs_history`` (too new, too few games finished),
        ``rated_play_suspended`` (too many aborts of rated games lately, with ``until``)."""
        now = self.now_ms()
        self._check_history(player, now)
        until = suspended_until(self.aborts.since(player.id, now - self.rules.looks_back_ms), now, self.rules)
        if until is not None:
            raise self._suspended(until, now)

    def check_all(self, players: Sequence[Player]) -> None:
        """:meth:`check` each of ``players`` (a challenge's, a rematch's), naming whoever is refused."""
        for player in players:
            try:
                self.check(player)
            except Refused as refusal:
                refusal.facts.setdefault("player_id", player.id)
                raise

    def note_abort(self, player_id: str, game_id: str) -> None:
        """``player_id`` aborted the rated game ``game_id`` (again: counted once)."""
        self.aborts.note(player_id, game_id, self.now_ms(), self.rules.looks_back_ms)

    def on_account_deleted(self, player_id: str) -> None:
        self.aborts.forget(player_id)

    # --- the refusals ------------------------------------------------------------------------------

    def _check_history(self, player: Player, now: int) -> None:
        rules = self.rules
        if not rules.min_account_age and not rules.min_games:
            return
        age = max(0, now - ms_of(player.created_at)) // 1000
        games = self._games(player.id) if rules.min_games else 0
        if age >= rules.min_account_age and games >= rules.min_games:
            return
        facts: dict[str, object] = {
            "min_account_age": rules.min_account_age,
            "min_games": rules.min_games,
            "account_age": age,
            "games": games,
        }
        if games >= rules.min_games:  # only time is missing: it will do then
            ready = ms_of(player.created_at) + rules.min_account_age * 1000
            facts["until"] = _utc(ready)
            facts["retry_after"] = max(1, math.ceil((ready - now) / 1000))
        refusal = Refused(
            "rated_play_needs_history",
            f"Rated games are for accounts at least {_hours(rules.min_account_age)} hours old that have finished "
            f"{rules.min_games} games; yours is {age // HOUR} hours old and has finished {games}. "
            "Play unrated games meanwhile.",
            **facts,
        )
        refusal.text = Text(
            NEEDS_HISTORY,
            {
                "age": Text(HOURS, {"n": _hours(rules.min_account_age)}),
                "games": Text(GAMES, {"n": rules.min_games}),
                "your_age": Text(HOURS, {"n": age // HOUR}),
                "your_games": Text(GAMES, {"n": games}),
            },
        )
        raise refusal

    def _games(self, player_id: str) -> int:
        record = self.players.record(player_id)
        if not record.complete and self.load is not None:
            record = rebuild(self.players, player_id, self.load)
        return record.played

    def _suspended(self, until: int, now: int) -> Refused:
        rules = self.rules
        until_text = _utc(until)
        refusal = Refused(
            "rated_play_suspended",
            f"You aborted {rules.abort_limit + 1} rated games within {_hours(rules.abort_window)} hours: you may start or "
            f"join rated games again at {until_text} (UTC). Unrated games are open to you meanwhile.",
            until=until_text,
            retry_after=max(1, math.ceil((until - now) / 1000)),
            abort_limit=rules.abort_limit,
            abort_window=rules.abort_window,
        )
        refusal.text = Text(
            SUSPENDED,
            {
                "aborts": Text(RATED_GAMES, {"n": rules.abort_limit + 1}),
                "window": Text(HOURS, {"n": _hours(rules.abort_window)}),
                "until": until_text,
            },
        )
        return refusal


def _hours(seconds: int) -> int:
    """Whole hours, rounded up (an account 30 minutes short of a day is 1 hour short)."""
    return math.ceil(seconds / HOUR)
