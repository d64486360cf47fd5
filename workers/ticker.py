"""The ticker: the one process at a time that keeps time for the games.

Every quarter second it moves RQ's scheduled jobs (retries waiting out
their pause) onto the queue, and looks at the games on the agenda whose time
has come: a deadline reached, a paced AI due, a job queued a few seconds ago
that has not moved its game.  Whatever is due and not on its way is queued
(:meth:`workers.dispatch.Dispatcher.reoffer`).

Every ``red7 worker`` runs a ticker; one holds the role at a time, through a
key that lives ``ROLE_TTL`` seconds and that its holder renews on every tick.
When the holder dies, another worker takes the role within that time — RQ's
own scheduler lock lasts a minute and is looked for again only every ten.
A ticker that loses Redis keeps trying, with a pause, and never dies of it.
"""

from __future__ import annotations

import contextlib
import logging
import threading

import redis

from service.errors import NotFound, Refused
from service.runtime import Runtime
from workers.queues import queue_due_retries

log = logging.getLogger("red7.ticker")

TICK = 0.25
ROLE_TTL = 1.0
#: During a long sweep the role is renewed (and the sweep given up if it was lost) every so many games.
ROLE_CHECK_EVERY = 20
#: While Redis is away the ticker tries again at least this often (s): deadlines fire within seconds of its return.
OUTAGE_PAUSE_MAX = 1.0

#: Take the role if nobody holds it, renew it if we do.
HOLD_ROLE_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""

#: Give the role up, if we hold it.
RELEASE_ROLE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Ticker:
    def __init__(self, runtime: Runtime, identity: str, *, batch: int = 100) -> None:
        self.runtime = runtime
        self.identity = identity
        self.batch = batch
        connection = runtime.dispatcher.queue.connection
        self.role_key = f"{runtime.settings.key_prefix}ticker"
        self._hold_role = connection.register_script(HOLD_ROLE_SCRIPT)
        self._release_role = connection.register_script(RELEASE_ROLE_SCRIPT)

    def holds_role(self) -> bool:
        return bool(self._hold_role(keys=[self.role_key], args=[self.identity, int(ROLE_TTL * 1000)]))

    def release(self) -> None:
        """Give the role up (a worker that stops lets another take it at once)."""
        self._release_role(keys=[self.role_key], args=[self.identity])

    def tick(self) -> int:
        """One tick, if this ticker holds the role: how many games it looked at."""
        if not self.holds_role():
            return 0
        self.enqueue_scheduled()
        return self.sweep()

    def enqueue_scheduled(self) -> None:
        """Queue RQ's scheduled jobs whose time has come (retries waiting out their pause), one ticker at a time."""
        for queue in (self.runtime.queue, self.runtime.webhook_queue, self.runtime.push_queue, self.runtime.analysis_queue):
            queue_due_retries(queue)

    def sweep(self) -> int:
        """Look at every game on the agenda whose time has come (giving up if the role is lost meanwhile)."""
        dispatcher = self.runtime.dispatcher
        now_ms = int(self.runtime.clock().timestamp() * 1000)
        looked = 0
        for game_id, seen_ms in dispatcher.agenda.due(now_ms, self.batch):
            if looked and looked % ROLE_CHECK_EVERY == 0 and not self.holds_role():
                break
            looked += 1
            self.look_at(game_id, seen_ms)
        return looked

    def look_at(self, game_id: str, seen_ms: int) -> None:
        """Offer one game what it needs; a game that cannot be folded or offered must not stop the others' clock."""
        dispatcher = self.runtime.dispatcher
        try:
            game = self.runtime.games.load(game_id)
            dispatcher.reoffer(game, self.runtime.games.needs(game), seen_ms)
        except NotFound:
            dispatcher.agenda.reschedule(game_id, seen_ms, None)
        except Refused as error:
            log.warning("ticker: game %s: %s; looking again in a minute", game_id, error.detail)
            dispatcher.agenda.reschedule(game_id, seen_ms, seen_ms + 60_000)
        except (redis.ConnectionError, redis.TimeoutError):
            raise  # Redis is away: the whole tick waits for it
        except Exception:
            log.exception("ticker: cannot look at game %s; looking again in a minute", game_id)
            dispatcher.agenda.reschedule(game_id, seen_ms, seen_ms + 60_000)

    def run(self, stop: threading.Event, every: float = TICK) -> None:
        """Tick until ``stop``, through any Redis outage."""
        pause = every
        while not stop.is_set():
            try:
                self.tick()
                if pause > every:
                    log.info("ticker: Redis is reachable again")
                pause = every
            except redis.RedisError as error:
                if pause == every:
                    log.warning("ticker: Redis is unreachable (%s); trying again with backoff", error)
                pause = min(max(pause * 2, 0.5), OUTAGE_PAUSE_MAX)
            except Exception:
                log.exception("ticker: unexpected error; going on")
                pause = every
            stop.wait(pause)
        with contextlib.suppress(redis.RedisError):  # else it expires by itself
            self.release()


def start_ticker(runtime: Runtime, identity: str, stop: threading.Event) -> threading.Thread:
    thread = threading.Thread(target=Ticker(runtime, identity).run, args=(stop,), name="red7-ticker", daemon=True)
    thread.start()
    return thread
