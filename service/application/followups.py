"""What an append leaves to do: the jobs a game needs next, and the seam to whatever runs them.

:func:`due` is the policy, a pure function of the game after an append and
the events just appended: an AI to move, a round to score, a deadline to
keep, a player to tell.  :class:`FollowUps` is what the application asks of
the job system around every append; ``service/jobqueue/dispatch.py`` implements it on
RQ, and :class:`NoFollowUps` stands in where nothing runs jobs (a tool, a
test of the application alone).  The application computes what is due once
per append and hands it over; it never learns how jobs are queued.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from engine import Event, GameFinished, GameStarted, Phase, RoundDealt, RoundWon, TurnStarted
from service.application.calendars import turn_of
from service.domain.challenges import CHALLENGE_NOTICES
from service.domain.deadlines import Turn, deadline, reminders
from service.domain.game import Game
from service.domain.lobby import GameAborted, GameCreated, LobbyEvent, RematchDeclined, RematchOffered, TurnTimedOut
from service.domain.ratings import is_rated
from service.domain.tournaments import TOURNAMENT_NOTICES


@dataclass(frozen=True, slots=True)
class Due:
    """A job that the game needs, for the version it was decided on.

    A notification (``notify``) may be about something that is no game: one of :data:`CHALLENGE_NOTICES` is about
    the challenge ``game_id`` names, at that challenge's version (see :func:`challenge_notice`).
    """

    #: "ai_turn" | "score_round" | "turn_deadline" | "start_rematch" | "notify" | "notices" | "push" | "rate" | "compact"
    #: | "tournament_game"
    job: str
    game_id: str
    version: int
    args: tuple[Any, ...] = ()
    at: datetime | None = None  # run no earlier than this
    #: Sent at most once under this key, whatever the version (a reminder: once a turn, however often it is offered).
    once: str | None = None

    def job_id(self, namespace: str = "red7") -> str:
        return "-".join([namespace, self.job, self.game_id, str(self.version), *map(str, self.args)])

    def job_id_prefix(self, namespace: str = "red7") -> str:
        """What every id of this kind of job for this game starts with, whatever the version."""
        return f"{namespace}-{self.job}-{self.game_id}-"


#: The jobs that move a game on (the others only tell players about it).  ``start_rematch`` makes the rematch a
#: finished game's players agreed on, should the request that agreed stop before it did.
MOVES_GAME = frozenset({"ai_turn", "score_round", "turn_deadline", "start_rematch"})
#: The jobs the agenda watches until they have run: those that move a game on, a finished rated game's ``rate`` (its
#: ladder takes it once, however often it runs; the dispatcher asks the ladder whether it has), and a game's
#: ``compact`` once it is over (its stream folded into one record after a grace; the dispatcher times it and asks
#: the store whether it is done), and a finished tournament game's ``tournament_game`` (its places folded into its
#: tournament once; the dispatcher asks the tournament whether it has them).
WATCHED = MOVES_GAME | {"rate", "compact", "tournament_game"}


def timed(item: Due) -> bool:
    """What the agenda times: the jobs that move a game on and those watched until they ran (:data:`WATCHED`), and
    the notifications due at a time (reminders).  A game whose wants are none of these waits on its players alone."""
    return item.job in WATCHED or (item.job == "notify" and item.at is not None)


def noted(before: Game, items: Sequence[Due]) -> bool:
    """Whether an append is noted on the agenda around it (:meth:`FollowUps.before_append`): ``items`` (what the game
    after it needs, :func:`due`) or the game before it has something the agenda times.

    Neither: the mark before the append would protect nothing (a process dying after the append loses no move, no
    deadline, no reminder: only this move's notices, which no look at the game sends again), and nothing the agenda
    could hold for the game is needed after it (an entry left there is looked at once, found wanting nothing, and
    dropped by the ticker).  A move in a game of people without a clock, the bulk of a busy server's appends, then
    costs the queue's Redis nothing.  The game before counts (:func:`due` without events: its clock as the game
    alone says, which has a turn whenever the mover's calendar gives it one): an append that takes a game out of
    what the agenda watched (an AI's turn played, a deadline's turn ended) drops the look it had.
    """
    return any(timed(item) for item in items) or any(timed(item) for item in due(before))


def challenge_notice(kind: str, challenge_id: str, version: int, player_id: str, game_id: str | None = None) -> Due:
    """Tell ``player_id`` of a challenge (``kind``: one of :data:`~service.domain.challenges.CHALLENGE_NOTICES`) at its
    ``version``; ``game_id``: the game it started, if it did.  The ``notify`` job's arguments, with the challenge in
    the game's place: the job tells the two apart by the kind."""
    if kind not in CHALLENGE_NOTICES:
        raise ValueError(f"{kind!r} is not a challenge's notice")
    return Due("notify", challenge_id, version, (player_id, kind, *((game_id,) if game_id else ())))


def tournament_notice(kind: str, tournament_id: str, version: int, player_id: str, game_id: str | None = None) -> Due:
    """Tell ``player_id`` of a tournament (``kind``: one of :data:`~service.domain.tournaments.TOURNAMENT_NOTICES`) at
    its ``version``; ``game_id``: the game it is about (a round's, for a player seated at it).  As a challenge's: the
    tournament in the game's place, the job telling the two apart by the kind."""
    if kind not in TOURNAMENT_NOTICES:
        raise ValueError(f"{kind!r} is not a tournament's notice")
    return Due("notify", tournament_id, version, (player_id, kind, *((game_id,) if game_id else ())))


#: Notifications a player may also get as a web push (``service/outbound/push.py``): the rest go by webhook only.
PUSHED = frozenset(
    {
        "your_turn",
        "turn_reminder",
        "last_hour_reminder",
        "game_finished",
        "game_aborted",
        "match_found",
        "challenge_received",
        "challenge_accepted",
        "challenge_declined",
        "rematch_offered",
        "rematch_started",
        "table_talk",
        *TOURNAMENT_NOTICES,
    }
)


def table_talk(game_id: str, version: int, player_id: str) -> Due:
    """Tell ``player_id`` that something was said at ``game_id``'s table (at the game's ``version``: talk moves no
    version, so a burst of messages while one notice is on its way is that one notice).  What was said is not in it:
    the player reads it with ``listTableTalk`` (nothing of it passes through a push service)."""
    return Due("notify", game_id, version, (player_id, "table_talk"))


def match_found(game_id: str, version: int, player_id: str) -> Due:
    """Tell ``player_id`` a quick match seated them in ``game_id`` (at ``version``): by webhook and web push.  The
    matchmaker hands it to ``FollowUps.notify`` once the game is made (a webhook's kind: ``match_found``)."""
    return Due("notify", game_id, version, (player_id, "match_found"))


def due(game: Game, appended: Sequence[Event | LobbyEvent] = (), turn: Turn | None = None) -> list[Due]:
    """What the game needs now, given the events just appended (none: what it needs whatever happened).

    ``turn``: the clock of the turn being played, with the mover's calendar (``Calendars.turn``); without it, the
    turn's clock as the game alone says (no vacation, no weekend pauses it).
    """
    out: list[Due] = []
    version = game.version
    humans = {n: s.player_id for n, s in enumerate(game.seats) if s.kind == "human" and s.player_id}
    for event in appended:
        if isinstance(event, GameStarted) and game.origin == "quick_match":
            out += [Due("notify", game.id, version, (pid, "match_found")) for pid in humans.values()]
        elif isinstance(event, RoundWon):
            out += [Due("notify", game.id, version, (pid, "round_over")) for pid in humans.values()]
        elif isinstance(event, GameFinished):
            out += [Due("notify", game.id, version, (pid, "game_finished")) for pid in humans.values()]
        else:
            out += _lobby_news(game, event, humans)
    if game.rematch is not None and not game.rematch_started:
        out.append(Due("start_rematch", game.id, version))
    if is_rated(game):  # due until its ladder has it (whatever the events just appended: a lost job is found again)
        out.append(Due("rate", game.id, version))
    timed_out = any(isinstance(e, TurnTimedOut) for e in appended)  # counted by its tournament (two withdraw)
    if game.origin == "tournament" and (game.status == "finished" or timed_out):  # its places go to its tournament
        out.append(Due("tournament_game", game.id, version))
    if game.over:  # its stream compacted, once the dispatcher's grace is over (until the store holds it compacted)
        out.append(Due("compact", game.id, version))
    if game.aborted:
        return out  # nothing more is played
    state = game.state
    if state.phase in (Phase.ROUND_WON, Phase.ROUND_SCORED):
        out.append(Due("score_round", game.id, version))
    seat = game.seat_to_move()
    if seat is not None:
        if game.seats[seat].kind == "ai":
            out.append(Due("ai_turn", game.id, version))
        else:
            if any(isinstance(e, TurnStarted | RoundDealt) for e in appended) and seat in humans:
                out.append(Due("notify", game.id, version, (humans[seat], "your_turn")))
            turn = turn or turn_of(game)
            if turn is not None:
                due_at = deadline(turn)  # in the job's id: a deadline moved by a vacation is another job, at its time
                out.append(Due("turn_deadline", game.id, version, (int(due_at.timestamp() * 1000),), at=due_at))
                if seat in humans:
                    turn_ms = int(turn.started.timestamp() * 1000)
                    out += [
                        Due(
                            "notify",
                            game.id,
                            version,
                            (humans[seat], kind),
                            at=at,
                            once=f"{game.id}:{turn_ms}:{humans[seat]}:{kind}",
                        )
                        for kind, at in reminders(turn)
                    ]
    return out


def _lobby_news(game: Game, event: Event | LobbyEvent, humans: dict[int, str]) -> list[Due]:
    """Whom a lobby event concerns, told by webhook: the other players of an aborted game, the players yet to answer a
    rematch offer, the others when one is declined, everyone in a rematch once it is made."""
    if isinstance(event, GameAborted | RematchDeclined):
        kind = "game_aborted" if isinstance(event, GameAborted) else "rematch_declined"
        return [Due("notify", game.id, game.version, (pid, kind)) for seat, pid in humans.items() if seat != event.seat]
    if isinstance(event, RematchOffered) and event.rematch_id is None:
        waiting = [pid for seat, pid in humans.items() if seat not in game.rematch_offers]
        return [Due("notify", game.id, game.version, (pid, "rematch_offered")) for pid in waiting]
    if isinstance(event, GameCreated) and event.origin == "rematch":
        return [Due("notify", game.id, game.version, (pid, "rematch_started")) for pid in humans.values()]
    return []


#: AI levels whose turn a job that just played may play next, itself: those that decide in milliseconds.  An expert
#: thinks for seconds (``RED7_EXPERT_SECONDS``): it is played on too when its thinking fits well within the look the
#: agenda takes at a game after each append (:func:`play_on_levels`), else its turn gets a job of its own.
QUICK_LEVELS = frozenset({"random", "greedy"})


def play_on_levels(expert_seconds: float, lease: float) -> frozenset[str]:
    """The AI levels a job plays on into: the quick ones, and the expert if it thinks for at most half of ``lease``
    (the seconds after an append before the agenda looks at the game in case its job died): a job that plays an
    expert's turn on then appends it before the agenda looks, and the agenda does not queue a twin of it."""
    return QUICK_LEVELS | {"expert"} if 0 <= expert_seconds * 2 <= lease else QUICK_LEVELS


def quick_turn(game: Game, levels: frozenset[str] = QUICK_LEVELS) -> bool:
    """Whether an AI of one of ``levels`` (by default the quick ones) is to move."""
    seat = game.seat_to_move()
    return seat is not None and game.seats[seat].kind == "ai" and (game.seats[seat].level or "random") in levels


def plays_on(game: Game, ai_delay: float, levels: frozenset[str] = QUICK_LEVELS) -> bool:
    """Whether the AI turn of ``game`` due at once is one a job that just played may play next, itself (one job for
    AIs that move one after another, not one each: a job's bookkeeping costs the queue more than a quick turn)."""
    return ai_delay <= 0 and quick_turn(game, levels)


class FollowUps(Protocol):
    """What the application asks of the job system around an append, and when a game's read finds it quiet."""

    def before_append(self, game_id: str) -> int | None:
        """Called just before an append that :func:`noted` says the agenda times: note the game (should this process
        die before :meth:`after_append`, it must still move on).  Returns a mark that :meth:`after_append` gets back."""
        ...

    def after_append(
        self, game: Game, items: Sequence[Due], mark: int | None, *, playing_on: bool = False, request_id: str | None = None
    ) -> None:
        """Called after an append with the game after it and what :func:`due` found.  ``playing_on``: the job that
        appended plays the game's next quick AI turn itself (:func:`plays_on`), so that turn is not queued.
        ``mark``: ``None`` if :meth:`before_append` was not called (nothing timed before the append nor after it):
        the agenda is then left as it is.  ``request_id``: the request that appended (plain data, for the log lines
        of the jobs it causes); ``None`` for a job's append."""
        ...

    def reoffer(self, game: Game, items: Sequence[Due], seen: int | None = None) -> bool:
        """Offer again what a game that may be stalled needs; ``True`` if a job was queued.  ``seen``: the agenda's
        mark the caller read (the agenda is changed only if nobody changed it since)."""
        ...

    def turn_finished(self, game: Game, version: int) -> list[str]:
        """An AI turn of ``game`` queued for ``version`` ran: the ids of the owner's games waiting for the place it
        frees, earliest first."""
        ...

    def offer_place(self, game: Game, items: Sequence[Due]) -> bool:
        """Offer a place freed by a finished AI turn to a waiting ``game``; ``True`` if it took it."""
        ...

    def notify(self, items: Sequence[Due], *, request_id: str | None = None) -> None:
        """Tell players of what no append to a game brought (a challenge made, answered or cancelled: see
        :func:`challenge_notice`), as a game's notifications are told."""
        ...


class NoFollowUps:
    """No job system: nothing is queued (the embedded tools and the application's own tests)."""

    def before_append(self, game_id: str) -> int | None:
        return None

    def after_append(
        self, game: Game, items: Sequence[Due], mark: int | None, *, playing_on: bool = False, request_id: str | None = None
    ) -> None:
        return None

    def reoffer(self, game: Game, items: Sequence[Due], seen: int | None = None) -> bool:
        return False

    def turn_finished(self, game: Game, version: int) -> list[str]:
        return []

    def offer_place(self, game: Game, items: Sequence[Due]) -> bool:
        return False

    def notify(self, items: Sequence[Due], *, request_id: str | None = None) -> None:
        return None
