"""After every append — from a request or from a job — decide what is due next, and enqueue it.

The decision (:func:`due`) is a pure function of the game after the append
and the events just appended.  Jobs carry the version they were queued for
and do nothing if the game has moved on, and their ids are derived from
game and version: a job already queued, scheduled, running or done is not
queued again, and a short ``SET NX`` marker keeps racing enqueuers from
queueing it twice.  A job that failed for good may be queued again — which
is how a game stalled by a lost job recovers on its next read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from engine import Event, GameFinished, Phase, RoundDealt, RoundWon, TurnStarted
from service.game import Game

#: A job in one of these states may be queued again under the same id.
RESTARTABLE = frozenset({JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED})

#: Transient failures (a Redis hiccup, a timeout) are retried with these pauses (seconds).
RETRY = Retry(max=4, interval=[1, 3, 10, 30])


@dataclass(frozen=True, slots=True)
class Due:
    """A job that the game needs, for the version it was decided on."""

    job: str  # "ai_turn" | "score_round" | "turn_deadline" | "notify"
    game_id: str
    version: int
    args: tuple[Any, ...] = ()
    at: datetime | None = None  # run no earlier than this

    def job_id(self, namespace: str = "red7") -> str:
        return "-".join([namespace, self.job, self.game_id, str(self.version), *map(str, self.args)])


def due(game: Game, appended: Sequence[Event] = ()) -> list[Due]:
    """What the game needs now, given the engine events just appended."""
    out: list[Due] = []
    version = game.version
    humans = {n: s.player_id for n, s in enumerate(game.seats) if s.kind == "human" and s.player_id}
    for event in appended:
        if isinstance(event, RoundWon):
            out += [Due("notify", game.id, version, (pid, "round_over")) for pid in humans.values()]
        elif isinstance(event, GameFinished):
            out += [Due("notify", game.id, version, (pid, "game_finished")) for pid in humans.values()]
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
            if game.turn_timeout and game.turn_started_at:
                started = datetime.fromisoformat(game.turn_started_at.replace("Z", "+00:00"))
                out.append(Due("turn_deadline", game.id, version, at=started + timedelta(seconds=game.turn_timeout)))
    return out


@dataclass
class Dispatcher:
    """Enqueues what :func:`due` finds onto an RQ queue (JSON-serialised jobs)."""

    queue: Queue
    marker_prefix: str = "red7:"
    #: Prepended to job ids (letters, digits, _ and - only), so that several deployments can share a Redis.
    namespace: str = "red7"
    marker_ttl: int = 5
    #: A pause before AI moves, so that people at the table can follow them (seconds).
    ai_delay: float = 0.0
    #: Whether a player wants notifications (has a webhook); without it every "your turn" is queued.
    notifiable: Callable[[str], bool] | None = None

    def after_append(self, game: Game, appended: Sequence[Event] = ()) -> None:
        for item in due(game, appended):
            if item.job == "notify" and self.notifiable is not None and not self.notifiable(item.args[0]):
                continue
            self.enqueue(item)

    def enqueue(self, item: Due) -> bool:
        """Queue ``item`` unless the same job is queued, running or done already; ``True`` if queued now."""
        job_id = item.job_id(self.namespace)
        # Job.fetch, not Queue.fetch_job: the latter LREMs ids whose hash it cannot find yet,
        # which drops a job that another process is enqueueing at that very moment.
        try:
            existing = Job.fetch(job_id, connection=self.queue.connection, serializer=self.queue.serializer)
        except NoSuchJobError:
            existing = None
        if existing is not None and existing.get_status(refresh=False) not in RESTARTABLE:
            return False
        marker = f"{self.marker_prefix}jobs:{{{item.game_id}}}:{job_id}"
        if not self.queue.connection.set(marker, b"1", nx=True, ex=self.marker_ttl):
            return False
        func = f"workers.jobs.{item.job}"
        args = (item.game_id, item.version, *item.args)
        options: dict[str, Any] = {"job_id": job_id, "retry": RETRY, "failure_ttl": 7 * 24 * 3600, "result_ttl": 3600}
        at = item.at
        if item.job == "ai_turn" and self.ai_delay > 0:
            at = datetime.now(UTC) + timedelta(seconds=self.ai_delay)
        if at is not None and at > datetime.now(UTC):
            self.queue.enqueue_at(_next_whole_second(at), func, *args, **options)
        else:
            self.queue.enqueue(func, *args, **options)
        return True


def _next_whole_second(at: datetime) -> datetime:
    """``at``, rounded up: RQ's scheduler keeps whole seconds, rounding *down*, which would run a job up to 1 s early."""
    whole = at.replace(microsecond=0)
    return whole if whole == at else whole + timedelta(seconds=1)
