"""The ticker: the one process at a time that keeps time for the games.

Every quarter second it moves RQ's scheduled jobs (retries waiting out
their pause) onto the queue, and looks at the games on the agenda whose time
has come: a deadline reached, a paced AI due, a job queued a few seconds ago
that has not moved its game.  Whatever is due and not on its way is queued
(:meth:`service.jobqueue.dispatch.Dispatcher.reoffer`).

Every ``red7 worker`` runs a ticker; one holds the role at a time, through a
key that lives ``ROLE_TTL`` seconds and that its holder renews on every tick.
When the holder dies, another worker takes the role within that time — RQ's
own scheduler lock lasts a minute and is looked for again only every ten.
A ticker that loses Redis keeps trying, with a pause, and never dies of it.

The queue's Redis may lose its data (see :mod:`service.jobqueue.agenda`): the ticker
holding the role checks on every tick that the agenda's marker is there, and
every :data:`RUN_CHECK_EVERY` seconds that it names the server's run; else it
puts every game the stores hold as in play back on the agenda, due now, and
every analysis they hold as asked for and not done back in its asker's turn
(:mod:`service.jobqueue.analysis_queue`), before it sweeps.  So every game, read or not, is on its way again within a tick or
two of a queue Redis that came back empty, or a new one.

With several queue shards (:mod:`service.jobqueue.shards`) every worker runs a ticker per shard: each holds that shard's role
on that shard's Redis, sweeps that shard's agenda, queues its retries, and rebuilds its agenda from the games in play
that hash to it alone; a shard that is away stalls its own ticker only.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

import redis

from service.application.tournaments import is_tournament
from service.common.errors import NotFound, Refused
from service.jobqueue.analysis_queue import subject
from service.jobqueue.queues import queue_due_retries
from service.jobqueue.shards import QueueShard, layout, shard_of
from service.runtime import Runtime
from workers import metrics

log = logging.getLogger("red7.ticker")

TICK = 0.25
ROLE_TTL = 1.0
#: During a long sweep the role is renewed (and the sweep given up if it was lost) every so many games.
ROLE_CHECK_EVERY = 20
#: While Redis is away the ticker tries again at least this often (s): deadlines fire within seconds of its return.
OUTAGE_PAUSE_MAX = 1.0

#: How often (s) the role's holder asks which run of the queue's Redis it talks to (a restart may have lost writes).
RUN_CHECK_EVERY = 1.0
#: How often (s) the role's holder queues RQ's retries whose pause is over (pauses of whole seconds: see
#: ``service.jobqueue.queues.RETRY_PAUSES``); the agenda is read at every tick.
RETRIES_EVERY = 1.0
#: Games put back on the agenda per write when it is rebuilt (the role renewed between two).
SEED_BATCH = 500

#: Take the role if nobody holds it, renew it if we do.
HOLD_ROLE_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""

#: The ticker's: hold the role as :data:`HOLD_ROLE_SCRIPT` does; held, read the agenda's marker too ('' if missing).
HOLD_TICKER_ROLE_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2])
elseif not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else return {0, ''} end
return {1, redis.call('GET', KEYS[2]) or ''}
"""

#: Give the role up, if we hold it.
RELEASE_ROLE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Ticker:
    def __init__(self, runtime: Runtime, identity: str, *, batch: int = 100, shard: QueueShard | None = None) -> None:
        self.runtime = runtime
        self.identity = identity
        self.batch = batch
        #: The queue shard it keeps time for (default: the first, the only one without shards).
        self.shard = shard or runtime.shards[0]
        self.dispatcher = self.shard.dispatcher
        #: How its logs name it: which shard's, when there are several.
        self.name = f"ticker (queue shard {self.shard.index})" if len(runtime.shards) > 1 else "ticker"
        connection = self.shard.connection
        self.role_key = f"{runtime.settings.key_prefix}ticker"
        self._hold_role = connection.register_script(HOLD_TICKER_ROLE_SCRIPT)
        self._release_role = connection.register_script(RELEASE_ROLE_SCRIPT)
        self.connection = connection
        #: The queue Redis's run the agenda was last found rebuilt on, and when (monotonic) that was asked.
        self._run_id = ""
        self._run_checked = 0.0
        #: When (monotonic) it last queued RQ's retries whose pause is over.
        self._retries_queued = float("-inf")
        #: How many times this ticker rebuilt the agenda (for tests and logs).
        self.seeded = 0

    def _hold(self, pipe: Any = None) -> tuple[bool, str]:
        keys = [self.role_key, self.dispatcher.agenda.marker_key]
        args: list[str | int] = [self.identity, int(ROLE_TTL * 1000)]
        if pipe is not None:
            # EVALSHA itself: a Script run in a pipeline makes redis-py ask SCRIPT EXISTS first, a round trip more.
            pipe.evalsha(self._hold_role.sha, len(keys), *keys, *args)
            return False, ""  # read from the pipeline's replies (see _held)
        return self._held(self._hold_role(keys=keys, args=args))

    @staticmethod
    def _held(reply: Any) -> tuple[bool, str]:
        held, marker = reply
        return bool(held), marker.decode() if isinstance(marker, bytes) else str(marker)

    def holds_role(self) -> bool:
        return self._hold()[0]

    def run_id(self) -> str:
        """Which run of the queue's Redis this is (``INFO``'s ``run_id``: new at every start, and on another server);
        a Redis that does not say (the in-memory one) is one run for good.  With shards, the shard's place among how
        many follows it (``service.jobqueue.shards.layout``): a change of the list of shards rebuilds every shard's agenda."""
        try:
            found = self.connection.info("server").get("run_id")
        except redis.ResponseError:
            found = None
        return (str(found) if found else "unknown") + layout(self.shard.index, len(self.runtime.shards))

    def mine(self, game_id: str) -> bool:
        """Whether the game is served by this ticker's shard."""
        return shard_of(game_id, len(self.runtime.shards)) == self.shard.index

    def agenda_lost(self, marker: str) -> bool:
        """Whether the agenda may have lost games: its marker is missing, or names another run of the queue's Redis
        (asked every :data:`RUN_CHECK_EVERY` seconds)."""
        if not marker:
            return True
        now = time.monotonic()
        if marker == self._run_id and now - self._run_checked < RUN_CHECK_EVERY:
            return False
        self._run_id, self._run_checked = self.run_id(), now
        return marker != self._run_id

    def seed(self) -> int:
        """Put every game in play back on the agenda, due now (an earlier look stays), then mark the agenda rebuilt on
        this run of the queue's Redis; how many games.  Given up (and done again by whoever holds the role next) if
        the role is lost meanwhile."""
        run_id = self.run_id()  # before: a restart during the rebuild leaves a marker that names the run before
        agenda = self.dispatcher.agenda
        now_ms = int(self.runtime.clock().timestamp() * 1000)
        batch: list[str] = []
        count = 0
        for game_id in self.runtime.games.games_in_play():
            if not self.mine(game_id):
                continue  # another shard's ticker puts it back on that shard's agenda
            batch.append(game_id)
            if len(batch) >= SEED_BATCH:
                agenda.seed(batch, now_ms)
                count += len(batch)
                batch = []
                if not self.holds_role():
                    return count
        agenda.seed(batch, now_ms)
        count += len(batch)
        count += self.seed_tournaments(now_ms)
        analyses = self.seed_analyses()
        agenda.mark_seeded(run_id)
        self._run_id, self._run_checked = run_id, time.monotonic()
        self.seeded += 1
        said = log.warning if count else log.info  # nothing to put back: a new queue Redis for a new store
        said(
            "%s: the queue's Redis (run %s) had no agenda or lost some: %d games and tournaments in play, %d analyses put back",
            self.name,
            run_id,
            count,
            analyses,
        )
        return count

    def seed_tournaments(self, now_ms: int) -> int:
        """Put every tournament not finished that this shard serves back on the agenda, due now (its look finds what is
        due, and puts it back at its next time: entries' close, a round's deadline); how many."""
        tournaments = self.runtime.tournaments
        if tournaments is None:
            return 0
        mine = [tournament_id for tournament_id in tournaments.ids_in_play() if self.mine(tournament_id)]
        for start in range(0, len(mine), SEED_BATCH):
            self.dispatcher.agenda.seed(mine[start : start + SEED_BATCH], now_ms)
        return len(mine)

    def seed_analyses(self) -> int:
        """Put every analysis the stores hold as asked for and not done, of a subject this shard serves, back in its
        asker's turn (``service.jobqueue.analysis_queue``: one waiting already stays where it is); how many."""
        queue = self.shard.analyses
        count = 0
        for kind, service in (("game", self.runtime.analyses), ("replay", self.runtime.imported_analyses)):
            for subject_id, by, asked in service.pending():
                if self.mine(subject_id):
                    queue.push(by, subject(kind, subject_id), asked)
                    count += 1
        return count

    def release(self) -> None:
        """Give the role up (a worker that stops lets another take it at once)."""
        self._release_role(keys=[self.role_key], args=[self.identity])

    def tick(self) -> int:
        """One tick, if this ticker holds the role: how many games it looked at."""
        agenda = self.dispatcher.agenda
        now_ms = int(self.runtime.clock().timestamp() * 1000)
        with self.connection.pipeline(transaction=False) as pipe:  # one round trip: the role, what is due, how late
            self._hold(pipe)
            agenda.ask_due(pipe, now_ms, self.batch)
            agenda.ask_late(pipe, now_ms - int(metrics.OVERDUE_AFTER * 1000))
            role, due, late = pipe.execute(raise_on_error=False)
        if isinstance(role, redis.exceptions.NoScriptError):  # a new (or emptied) Redis: the script is loaded now
            role = self._hold_role(keys=[self.role_key, agenda.marker_key], args=[self.identity, int(ROLE_TTL * 1000)])
        if isinstance(role, Exception) or isinstance(due, Exception):
            raise role if isinstance(role, Exception) else due
        held, marker = self._held(role)
        # The agenda's looks past their time as this tick found them (a sum over the workers: the holder's count).
        metrics.overdue(self.shard.index, int(late) if held and not isinstance(late, Exception) else 0)
        if not held:
            return 0
        if self.agenda_lost(marker):
            self.seed()
            now_ms = int(self.runtime.clock().timestamp() * 1000)
            due = agenda.ask_due(self.connection, now_ms, self.batch)  # put back on it: due now
        at = time.monotonic()
        if at - self._retries_queued >= RETRIES_EVERY:
            self._retries_queued = at
            self.enqueue_scheduled()
        return self.sweep(agenda.read_due(due))

    def enqueue_scheduled(self) -> None:
        """Queue RQ's scheduled jobs whose time has come (retries waiting out their pause), one ticker at a time."""
        queue_due_retries(*self.shard.queues)

    def sweep(self, due: list[tuple[str, int]] | None = None) -> int:
        """Look at every game on the agenda whose time has come (``due``, if read already), giving up if the role is
        lost meanwhile."""
        if due is None:
            due = self.dispatcher.agenda.due(int(self.runtime.clock().timestamp() * 1000), self.batch)
        looked = 0
        for game_id, seen_ms in due:
            if looked and looked % ROLE_CHECK_EVERY == 0 and not self.holds_role():
                break
            looked += 1
            self.look_at(game_id, seen_ms)
        return looked

    def look_at(self, game_id: str, seen_ms: int) -> None:
        """Offer one game what it needs; a game that cannot be folded or offered must not stop the others' clock."""
        dispatcher = self.dispatcher
        games = self.runtime.games
        if is_tournament(game_id) and self.runtime.tournaments is not None:  # a tournament's clock: its rounds' times
            self.look_at_tournament(game_id, seen_ms)
            return
        if not self.mine(game_id):  # another shard's since the list of shards changed: that shard's ticker has it
            dispatcher.agenda.reschedule(game_id, seen_ms, None)
            return
        try:
            game = games.load(game_id)
            dispatcher.reoffer(game, games.needs(game), seen_ms)
            if game.status != "active":  # over (or waiting for players): does anything look at it again?
                games.settle(game_id, game, dispatcher.agenda.when(game_id) is not None)
        except NotFound:
            dispatcher.agenda.reschedule(game_id, seen_ms, None)
            games.settle(game_id, None, False)
        except Refused as error:
            log.warning("ticker: game %s: %s; looking again in a minute", game_id, error.detail)
            dispatcher.agenda.reschedule(game_id, seen_ms, seen_ms + 60_000)
        except (redis.ConnectionError, redis.TimeoutError):
            raise  # Redis is away: the whole tick waits for it
        except Exception:
            log.exception("ticker: cannot look at game %s; looking again in a minute", game_id)
            dispatcher.agenda.reschedule(game_id, seen_ms, seen_ms + 60_000)

    def look_at_tournament(self, tournament_id: str, seen_ms: int) -> None:
        """Do what is due on a tournament (round 1 at entries' close, a deadline kept); look again at its next time."""
        agenda, tournaments = self.dispatcher.agenda, self.runtime.tournaments
        assert tournaments is not None
        try:
            next_at = tournaments.tick(tournament_id)
        except NotFound:
            next_at = None
        except (redis.ConnectionError, redis.TimeoutError):
            raise
        except Exception:
            log.exception("ticker: cannot look at tournament %s; looking again in a minute", tournament_id)
            agenda.reschedule(tournament_id, seen_ms, seen_ms + 60_000)
            return
        agenda.reschedule(tournament_id, seen_ms, None if next_at is None else int(next_at.timestamp() * 1000))

    def run(self, stop: threading.Event, every: float = TICK) -> None:
        """Tick until ``stop``, through any Redis outage."""
        pause = every
        while not stop.is_set():
            try:
                self.tick()
                if pause > every:
                    log.info("%s: Redis is reachable again", self.name)
                pause = every
            except redis.RedisError as error:
                if pause == every:
                    log.warning("%s: Redis is unreachable (%s); trying again with backoff", self.name, error)
                pause = min(max(pause * 2, 0.5), OUTAGE_PAUSE_MAX)
            except Exception:
                log.exception("ticker: unexpected error; going on")
                pause = every
            stop.wait(pause)
        with contextlib.suppress(redis.RedisError):  # else it expires by itself
            self.release()


def start_ticker(runtime: Runtime, identity: str, stop: threading.Event, shard: QueueShard | None = None) -> threading.Thread:
    ticker = Ticker(runtime, identity, shard=shard)
    name = "red7-ticker" if ticker.shard.index == 0 else f"red7-ticker-{ticker.shard.index}"
    thread = threading.Thread(target=ticker.run, args=(stop,), name=name, daemon=True)
    thread.start()
    return thread
