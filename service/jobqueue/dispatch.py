"""The job system behind the application's follow-ups: what an append makes due, queued on RQ or put on the agenda.

:class:`Dispatcher` implements :class:`~service.application.followups.FollowUps`;
what is due is the application's pure policy (:func:`~service.application.followups.due`),
computed once per append and handed over.  Jobs carry the version they were queued for
and do nothing if the game has moved on, and their ids are derived from
game and version: a job already queued, scheduled, running or done is not
queued again, and a short ``SET NX`` marker keeps racing enqueuers from
queueing it twice.  A job that failed for good may be queued again — which
is how a game stalled by a lost job recovers on its next read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from service.application.followups import PUSHED, QUICK_LEVELS, Due, quick_turn, timed
from service.common import tracing
from service.domain.game import Game
from service.jobqueue.agenda import Agenda
from service.jobqueue.backlog import Backlog
from service.jobqueue.liveness import PULSE_EVERY, runs
from service.jobqueue.queues import Found, JobQueue, JobRecord, claim_on, enqueue, find, find_and_claim, scheduled_at, waits_in
from service.jobqueue.shares import Shares

log = logging.getLogger("red7.dispatch")

#: The jobs that tell players: a move's ``notices`` (``workers.notices``), and the deliveries it hands over.
NOTICES = frozenset({"notices", "notify", "push"})

#: The longest a webhook delivery may take (seconds), however slowly its receiver trickles its answer: then it is
#: retried, and its receiver's line moves on.
NOTIFY_TIMEOUT = 60


def receiver(url: str) -> str:
    """Who a webhook URL calls, as its line of deliveries knows it: the host and port (``hooks.example:443``).

    Every URL on one host shares its line, whoever's it is: a receiver that hangs hangs for all of them.
    """
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = (parts.hostname or "").encode("idna").decode("ascii")
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except (UnicodeError, ValueError):
        return url  # undeliverable: its one delivery fails at once
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


#: How long a notification sent once (a reminder) is remembered as sent (seconds): longer than any turn lasts.
ONCE_TTL = 90 * 24 * 3600

#: After queueing a job that moves a game on, look at the game again this long after (seconds) in
#: case the job never runs: its worker killed, its queue lost with Redis.
RECHECK_AFTER = 3.0

#: An agenda mark this process wrote this recently (seconds) stands for the next append to the same game by this
#: process (a job playing on: quick AIs one after another) without being written again: it is still seconds away.
MARK_REUSED_WITHIN = 1.0

#: A look at the game wanted within this long (ms) after the mark noted before its append: the mark stands for it.
MARK_SLACK_MS = 1000

#: A job started this recently (seconds) is on its way even before its worker's pulse names it.
STARTED_GRACE = 2 * PULSE_EVERY

#: A job that failed for good is queued again for a game that still needs it, at most this often (seconds).
FAILED_AGAIN_AFTER = 60.0

#: A job queued this long ago (seconds) and no longer in its queue was lost on its way to a worker.
QUEUED_LOST_AFTER = 10.0

#: A scheduled job (a retry's pause) overdue by this long (seconds) has no scheduler to move it.
SCHEDULED_LOST_AFTER = 5.0


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _when(stamp: str, default: datetime) -> datetime:
    """A game's ISO time (``updated_at``), or ``default`` for none."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else default


@dataclass
class Dispatcher:
    """Enqueues what :func:`due` finds onto an RQ queue (JSON-serialised jobs), and keeps the agenda.

    Jobs that are due now are queued at once; those due later (deadlines, a
    paced AI) wait on the agenda until the ticker finds them due.  A job is
    queued again only when it will not run: it failed, or finished without
    moving the game (its append lost with Redis), or its worker stopped
    pulsing, or it fell out of its queue or schedule.
    """

    queue: JobQueue
    agenda: Agenda
    #: Where notifications go (default: ``queue``): apart from the games' jobs, a slow receiver delays no game.
    webhook_queue: JobQueue | None = None
    marker_prefix: str = "red7:"
    #: Prepended to job ids (letters, digits, _ and - only), so that several deployments can share a Redis.
    namespace: str = "red7"
    marker_ttl: int = 5
    #: A pause before AI moves, so that people at the table can follow them (seconds).
    ai_delay: float = 0.0
    #: A player's webhook URL, ``None`` if they want no notifications; without it every "your turn" is queued, in no
    #: receiver's line.
    webhook_of: Callable[[str], str | None] | None = None
    #: Deliveries to one receiver on their way at once (queued or running); the rest wait in its line (0: no lines).
    per_receiver: int = 1
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    #: Each player's share of AI turns on their way at once (None: no limit): see :mod:`service.jobqueue.shares`.  On the
    #: queue's Redis: its admit goes down one pipeline with the job's read (:meth:`_admitted`).
    shares: Shares | None = None
    #: Whether a finished rated game is applied to its ladder (the composition root asks the ratings): until it is,
    #: its ``rate`` job is watched like a move (queued again if lost); ``None``: it is queued once, unwatched.
    rated: Callable[[Game], bool] | None = None
    #: Whether a finished tournament game's places are in its tournament (the composition root asks the tournaments):
    #: until they are, its ``tournament_game`` job is watched as ``rate`` is; ``None``: queued once, unwatched.
    folded: Callable[[Game], bool] | None = None
    #: Whether a player has web push subscriptions (None: no web push); pushes go on ``push_queue``, worked apart.
    push_of: Callable[[str], bool] | None = None
    push_queue: JobQueue | None = None
    #: Writes notices to their players' feeds (``PlayerFeeds.record``: player, kind, subject, version, game each), and
    #: answers their ids there, which their webhooks and pushes carry; ``None``: no feeds.
    record: Callable[[Sequence[tuple[str, str, str, int, str | None]]], Sequence[str | None]] | None = None
    #: The AI levels a job plays on into (``followups.play_on_levels``): their turn is not queued after a job's append.
    play_on_levels: frozenset[str] = QUICK_LEVELS
    #: The agenda marks this process wrote before an append, by game: (the mark, when it was written, monotonic s).
    _marks: dict[str, tuple[int, float]] = field(default_factory=dict, repr=False)
    #: How long after a game is over its stream is compacted (seconds; 0: never), and whether it is (the composition
    #: root asks the store): until it is, its ``compact`` job is watched like a move.
    compact_after: float = 0.0
    compacted: Callable[[Game], bool] | None = None
    #: The rated games not yet on their ladder, the over games not yet compacted (:mod:`service.jobqueue.backlog`).
    unrated: Backlog = field(init=False, repr=False)
    uncompacted: Backlog = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.unrated = Backlog(self.queue.connection, f"{self.marker_prefix}owed:rate")
        self.uncompacted = Backlog(self.queue.connection, f"{self.marker_prefix}owed:compact")
        if self.shares is not None and self.shares.redis is not self.queue.connection:
            raise ValueError("the shares must be kept on the queue's Redis")

    def before_append(self, game_id: str) -> int:
        """Note the game on the agenda before an append: if this process dies before :meth:`after_append`,
        the ticker looks at the game a few seconds on and queues what it needs.  The time noted is returned."""
        noted = self._marks.get(game_id)
        if noted is not None and time.monotonic() - noted[1] < MARK_REUSED_WITHIN:
            return noted[0]  # this process's own mark, written a moment ago before the append it played on from
        mark = _ms(self.clock() + timedelta(seconds=RECHECK_AFTER))
        self.agenda.look_at(game_id, mark)
        if len(self._marks) > 10_000:  # a process that stopped playing on without an after_append (an error)
            self._marks.clear()
        self._marks[game_id] = (mark, time.monotonic())
        return mark

    def after_append(
        self, game: Game, items: Sequence[Due], mark: int | None, *, playing_on: bool = False, request_id: str | None = None
    ) -> None:
        """What an append made due: notifications now, the game's next move now or on the agenda.

        ``mark``: the agenda time :meth:`before_append` noted.  It stands for a move queued now (a look in
        case the job never runs); a later look (a deadline, a paced AI) replaces it; a game that waits on
        nobody but its players drops it — only if no later append noted another meanwhile.  No mark (the
        application noted nothing: the game waits on its players alone, before the append and after it,
        :func:`~service.application.followups.noted`): the agenda is left alone, and costs this append nothing.
        ``playing_on``: the job that appended plays the next quick AI turn itself; it is not queued (the agenda
        still looks).  ``request_id``: the request that appended, carried in the jobs queued (their log lines say it).
        """
        if not playing_on:
            self._marks.pop(game.id, None)  # the next append to this game notes its own mark
        self.notify(items, request_id=request_id)
        queued_now, next_look = self._offer(game, [i for i in items if timed(i)], playing_on=playing_on, request_id=request_id)
        if next_look is None:
            if mark is not None:
                self.agenda.reschedule(game.id, mark, None)
        elif mark is not None and mark <= next_look <= mark + MARK_SLACK_MS:
            pass  # the mark noted before the append is that look already
        elif not queued_now or mark is None:
            self.agenda.look_at(game.id, next_look)

    def notify(self, items: Sequence[Due], *, request_id: str | None = None) -> None:
        """Queue the notifications among ``items`` that are due now (a reminder waits for its time, on the agenda), by
        webhook for players who have one and by web push for those with subscriptions (a game's, after its append; or
        a challenge's, which comes with no game).  One sent once (``Due.once``: a reminder) is sent at most once.
        Each is written to its player's feed first, whether or not they have a webhook or a push (``record``).

        Those of one game (or challenge) at one version go in one ``notices`` job (``workers.notices``: delivered at
        once, each that fails handed to its receiver's line), not a job each: one job's life in the queue's Redis
        for the move, whoever hears of it and however."""
        now = self.clock()
        due: list[tuple[Due, str]] = []
        for item in items:
            if item.job != "notify" or (item.at is not None and item.at > now):
                continue
            player_id, kind = item.args[0], item.args[1]
            webhook = self.webhook_of is None or bool(self.webhook_of(player_id))
            push = self.push_of is not None and kind in PUSHED and self.push_of(player_id)
            channels = ("w" if webhook else "") + ("p" if push else "")
            if not (channels or self.record) or (item.once is not None and not self._first_time(item)):
                continue
            due.append((item, channels))
        ids = self._recorded([item for item, _ in due])
        batches: dict[tuple[str, int], list[list[Any]]] = {}
        for (item, channels), notification_id in zip(due, ids, strict=True):
            if not channels:
                continue  # told in the feed alone
            game_id = item.args[2] if len(item.args) > 2 else None
            batches.setdefault((item.game_id, item.version), []).append(
                [item.args[0], item.args[1], game_id, channels, notification_id]
            )
        for (subject_id, version), entries in batches.items():
            digest = hashlib.blake2b(json.dumps(entries, separators=(",", ":")).encode(), digest_size=8).hexdigest()
            self.enqueue(Due("notices", subject_id, version, (digest,)), extra=(entries,), request_id=request_id)

    def _recorded(self, items: Sequence[Due]) -> Sequence[str | None]:
        """Write the notices to their players' feeds first (their ids: what the webhooks and pushes then carry).  A feed
        that cannot be written loses its notice there, logged; the webhooks and pushes still go."""
        if self.record is None or not items:
            return [None] * len(items)
        notices = [(i.args[0], i.args[1], i.game_id, i.version, i.args[2] if len(i.args) > 2 else None) for i in items]
        try:
            return self.record(notices)
        except Exception as error:  # the append is made: its other followups must not be lost for a feed
            log.warning("%d notice(s) not written to their feeds: %s", len(notices), error)
            return [None] * len(items)

    def _first_time(self, item: Due) -> bool:
        """Claim a notification sent once (``Due.once``); ``False``: it was sent (or is on its way) already."""
        key = f"{self.marker_prefix}once:{{{item.game_id}}}:{item.once}"
        return bool(self.queue.connection.set(key, b"1", nx=True, ex=ONCE_TTL))

    def sent(self, item: Due) -> bool:
        """Whether a notification sent once was sent already."""
        return bool(self.queue.connection.exists(f"{self.marker_prefix}once:{{{item.game_id}}}:{item.once}"))

    def reoffer(self, game: Game, items: Sequence[Due], seen: int | None = None) -> bool:
        """Offer again what the game needs now (a read of a quiet game, or the ticker's look at it).

        Jobs still on their way are left alone; the others are queued again.
        ``seen``: the agenda's time for the game when the ticker read it; the
        agenda is changed only if no append changed it since.
        """
        queued_now, next_look = self._offer(game, [i for i in items if timed(i)])
        if seen is not None:
            self.agenda.reschedule(game.id, seen, next_look)
        elif next_look is not None:
            self.agenda.look_at(game.id, next_look)
        return queued_now

    def turn_finished(self, game: Game, version: int) -> list[str]:
        """An AI turn of ``game`` queued for ``version`` ran: its place in its owner's share is free; the games
        waiting in the owner's line, earliest first."""
        if self.shares is None:
            return []
        return self.shares.done(game.created_by, Due("ai_turn", game.id, version).job_id(self.namespace))

    def offer_place(self, game: Game, items: Sequence[Due]) -> bool:
        """A waiting game is offered a freed place: it leaves the line if it needs no AI turn any more."""
        if self.shares is not None and not any(item.job == "ai_turn" for item in items):
            self.shares.leave_line(game.created_by, game.id)  # it moved on, or ended, while it waited
            return False
        return self.reoffer(game, items)

    def _offer(
        self, game: Game, items: Sequence[Due], *, playing_on: bool = False, request_id: str | None = None
    ) -> tuple[bool, int | None]:
        """Queue the items due now: whether any was, and the time (epoch ms) to look at the game next
        (``None``: it waits on nobody but its players)."""
        now = self.clock()
        looks = []
        queued_now = False
        for item in items:
            at = item.at
            if item.job == "rate" and (self.rated is None or self.rated(game)):
                if self.rated is None:
                    self.enqueue(item, request_id=request_id)
                else:
                    self.unrated.settled(game.id)
                continue  # its ladder has it (or nobody can tell): nothing to watch
            if item.job == "rate":
                self.unrated.owed(game.id, _ms(_when(game.updated_at, now)))
            if item.job == "tournament_game" and (self.folded is None or self.folded(game)):
                if self.folded is None:
                    self.enqueue(item)
                continue  # its tournament has it (or nobody can tell): nothing to watch
            if item.job == "compact":
                if self.compact_after <= 0 or self.compacted is None:
                    continue  # never compacted: nothing to watch
                if self.compacted(game):
                    self.uncompacted.settled(game.id)
                    continue  # it is: nothing to watch
                at = _when(game.updated_at, now) + timedelta(seconds=self.compact_after)
                self.uncompacted.owed(game.id, _ms(at))
            if item.job == "notify":  # a reminder: sent when its time comes (once), looked at until then
                if at is not None and at > now:
                    looks.append(_ms(at))
                elif item.once is None or not self.sent(item):
                    self.notify([item], request_id=request_id)
                continue
            if item.job == "ai_turn" and self.ai_delay > 0 and game.updated_at:
                at = datetime.fromisoformat(game.updated_at.replace("Z", "+00:00")) + timedelta(seconds=self.ai_delay)
            if at is not None and at > now:
                looks.append(_ms(at))
            elif item.job == "ai_turn" and playing_on and quick_turn(game, self.play_on_levels):
                looks.append(_ms(now + timedelta(seconds=RECHECK_AFTER)))  # the running job plays it (a look, to be sure)
            elif item.job == "ai_turn":
                admitted, found = self._admitted(game, item, now)
                if admitted:
                    self.enqueue(item, found=found, request_id=request_id)
                    queued_now = True
                # Refused: in its player's line.  Either way a look, to be sure.
                looks.append(_ms(now + timedelta(seconds=RECHECK_AFTER)))
            else:
                self.enqueue(item, request_id=request_id)
                queued_now = True
                looks.append(_ms(now + timedelta(seconds=RECHECK_AFTER)))
        return queued_now, min(looks, default=None)

    def _admitted(self, game: Game, item: Due, now: datetime) -> tuple[bool, Found | None]:
        """Whether the AI turn fits in its player's share now (else its game waits in their line), and its job and
        marker as :meth:`enqueue` would find them, read with the share's answer (``None``: the turn is held to no
        share, or got its place on a second ask; :meth:`enqueue` reads them itself).

        The share, the job and the marker go down one pipeline: a move that hands the turn to an AI asks the queue's
        Redis once for them, not twice (:func:`~service.jobqueue.queues.find_and_claim` follows the share's answer there as it
        did after it).  Refused, the marker is given back (whoever queues the turn when a place frees needs it), and
        it looks whether a place is held by a job that will not run any more (its worker died under it): such a
        place is taken back, and the turn asks again.
        """
        shares, owner = self.shares, game.created_by
        if shares is None or not shares.limits(owner):
            return True, None
        job_id, game_jobs = item.job_id(self.namespace), item.job_id_prefix(self.namespace)
        queue, marker = self.queue, self._marker(item, job_id)
        with queue.connection.pipeline(transaction=False) as pipe:
            answer = shares.admit_on(pipe, owner, job_id, game.id, game_jobs, _ms(now))
            read = claim_on(pipe, queue, job_id, marker, self.marker_ttl)
            replies = pipe.execute(raise_on_error=False)
        found = read(replies[1:])
        if answer(replies[0]):
            return True, found
        if found[1]:
            queue.connection.delete(marker)
        lost = [held for held, since in shares.holders(owner) if not self._holds_on(held, since, now)]
        for held in lost:
            log.info("job %s holds a place of player %s but will not run; the place is taken back", held, owner)
            shares.release(owner, held)
        return bool(lost) and shares.admit(owner, job_id, game.id, game_jobs, _ms(now)), None

    def _holds_on(self, job_id: str, since_ms: int, now: datetime) -> bool:
        """Whether a job holding a place in a player's share will still run (or is running)."""
        if _ms(now) - since_ms < STARTED_GRACE * 1000:
            return True  # admitted a moment ago: perhaps not queued yet
        record = find(self.queue, job_id)
        if record is None:
            return False  # done (and deleted) without giving the place back, or never queued
        return self._on_its_way(record, self.queue)

    def queue_of(self, item: Due) -> JobQueue:
        """The push queue for a push (a ``notices`` job's handed over), the webhook queue for every other notice: a
        slow receiver delays no game."""
        if item.job == "push" and self.push_queue is not None:
            return self.push_queue
        return self.webhook_queue if item.job in NOTICES and self.webhook_queue is not None else self.queue

    def line_of(self, item: Due) -> tuple[str, int] | None:
        """A delivery's line: its receiver's, which lets ``per_receiver`` of them be on their way at once.

        The others wait in it (RQ's rate limit: status ``rate_limited``), and each delivery that ends — delivered,
        failed for good, or waiting out a retry's pause — hands its place to the first of them.  A retry whose
        pause is over queues at the back of the line.  So a receiver that hangs holds that many delivery threads
        and no more, whatever it is owed, and everyone else's deliveries find the others free.  A delivery whose
        worker died keeps its place until RQ's maintenance finds it abandoned (its heartbeat, :data:`NOTIFY_TIMEOUT`
        and a minute, lapsed) and retries it: its receiver's line waits minutes then, no other.
        """
        if item.job != "notify" or self.webhook_of is None or self.per_receiver <= 0:
            return None
        url = self.webhook_of(item.args[0])
        return (f"{self.namespace}-webhooks-{receiver(url)}", self.per_receiver) if url else None

    def enqueue(self, item: Due, *, extra: Sequence[Any] = (), found: Found | None = None, request_id: str | None = None) -> bool:
        """Queue ``item`` now unless the same job is on its way already; ``True`` if queued now.  ``extra``: arguments
        after the item's own that do not name the job (a ``notices`` job's list, named by its digest).  ``found``: the
        job and its marker, read with the share it was admitted to (:meth:`_admitted`).  ``request_id``: the request
        that caused it, kept in the job's meta for its log lines (:mod:`service.jobqueue.logcontext`)."""
        job_id = item.job_id(self.namespace)
        queue = self.queue_of(item)
        marker = self._marker(item, job_id)
        # The job read and the marker claimed in one round trip (the usual case: no such job yet, and it is queued).
        existing, claimed = found if found is not None else find_and_claim(queue, job_id, marker, self.marker_ttl)
        if existing is not None and self._on_its_way(existing, queue):
            if claimed:
                queue.connection.delete(marker)  # not queued after all: the next look may queue it
            return False
        if not claimed:
            return False
        if existing is not None:
            log.info("job %s (%s) will not run as it is; queueing it again", job_id, existing.status)
            existing.delete()
        timeout = NOTIFY_TIMEOUT if item.job in NOTICES else None  # None: RQ's default (180 s)
        args = (item.game_id, item.version, *item.args, *extra)
        meta: dict[str, Any] = {"request_id": request_id} if request_id else {}
        if trace := tracing.carrier():  # the open span's context (a request's, a job's): the job's span goes under it
            meta["trace"] = trace
        enqueue(queue, item.job, args, job_id=job_id, line=self.line_of(item), timeout=timeout, meta=meta or None)
        return True

    def _marker(self, item: Due, job_id: str) -> str:
        """The short ``SET NX`` key that keeps racing enqueuers from queueing the job twice."""
        return f"{self.marker_prefix}jobs:{{{item.game_id}}}:{job_id}"

    def _on_its_way(self, job: JobRecord, queue: JobQueue) -> bool:
        """Whether the job will still run, or is running on a live worker."""
        now = self.clock()
        if job.status == "started":
            if (now - (job.started_at or now)).total_seconds() < STARTED_GRACE:
                return True  # its worker's pulse may not name it yet
            return runs(queue.connection, self.marker_prefix, job.worker_name, job.id)
        if job.status == "queued":
            if (now - (job.enqueued_at or now)).total_seconds() < QUEUED_LOST_AFTER:
                return True
            return waits_in(queue, job)  # a long queue, or lost on its way
        if job.status == "scheduled":
            at = scheduled_at(queue, job)
            return at is not None and (now - at).total_seconds() < SCHEDULED_LOST_AFTER
        if job.status == "failed" and job.ended_at is not None:
            # Failed for good (retries spent, or a permanent error): again, but not at every look.
            return (now - job.ended_at).total_seconds() < FAILED_AGAIN_AFTER
        # Deferred waits on another job, rate-limited in its receiver's line (see line_of); finished (without moving
        # the game, or it would not be due), stopped and canceled ones will not run again by themselves.
        return job.status in ("deferred", "rate_limited")
