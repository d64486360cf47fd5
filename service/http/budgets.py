"""Rate limits: one budget per token, one per address and one for sign-ups per address, counted in leases.

Each budget is a fixed window (it opens at its first request and lasts the
limit's period) counted in one key.  Every budget a request draws on is
charged by one Lua script (``CHARGE``: ``INCRBY``, the window's end set by the
request that opens it, ``PTTL``, for each), registered once and called with
``EVALSHA`` (redis-py's ``register_script`` loads it again on ``NOSCRIPT``): one
command and one round trip to Redis however many budgets apply.  Three
commands per budget in a pipeline were 62% of what the stores' Redis was sent
per accepted move (15.9 of 25.7 commands).

And a process does not ask Redis at every request: it takes a *lease* of a
budget, 1/20 of it (``LEASE_SHARE``; at least one unit), and spends it
locally; it asks again (one script for every budget that needs it) when its
lease is spent or its window over.  A budget Redis found spent is refused
locally until its window ends, so a client over its limit costs Redis nothing
more.  Limits of fewer than 40 a window lease one unit at a time: each
request asks Redis, as before.

A script may touch one Redis Cluster slot only, so a request's counters
share one hash tag: its address, the one thing every limited request has
(``<prefix>limits:{<address>}:<budget>[:<token digest>]``).

The stated error, for a limit of ``n`` per period:

- never more than ``n`` requests within one window, across every process (a
  request goes through on a unit Redis counted); a fixed window lets a client
  spend a budget twice within one period, at the end of a window and the
  start of the next (``2n`` in any period): the price of counting with one key;
- a client served by several processes at once may be refused early: by
  the units the others took and have not spent, ``n / 20`` a lease (a lease
  per thread that asked at once: a process's threads asking together each
  take one, and the process keeps them all);
- a token's budget (and its import budget) is counted per address it comes
  from: a token used from ``k`` addresses at once has ``k`` budgets.

Limit strings are flask-limiter's (``"600 per minute"``), read by the
``limits`` package it is built on.  A request refused counts too (it only
keeps a spent window spent).  When Redis cannot be reached, the limits are
skipped (a request that needs the store then fails on its own).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import limits
import redis
from flask import Request, Response, g, request

from service.http.problems import ApiError

log = logging.getLogger("red7.limits")


@dataclass(frozen=True, slots=True)
class Budget:
    """A limit, and whose budget a request draws on (``None``: this request is not charged to it)."""

    name: str
    limit: limits.RateLimitItem
    key: Callable[[Request], str | None]

    @classmethod
    def of(cls, name: str, text: str, key: Callable[[Request], str | None]) -> Budget:
        return cls(name, limits.parse(text), key)


@dataclass(frozen=True, slots=True)
class Charge:
    """A request's draw on one budget: how much of it is spent, and when its window closes (Unix seconds)."""

    budget: Budget
    count: int
    reset_at: float

    @property
    def remaining(self) -> int:
        return max(0, self.budget.limit.amount - self.count)

    @property
    def breached(self) -> bool:
        return self.count > self.budget.limit.amount


#: KEYS: the counters; ARGV: for each, its window (ms) and the units taken.  Answers each counter's count after, and
#: the ms left in its window.
CHARGE = """
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCRBY', key, tonumber(ARGV[2 * i]))
  local left = redis.call('PTTL', key)
  if left < 0 then
    left = tonumber(ARGV[2 * i - 1])
    redis.call('PEXPIRE', key, left)
  end
  out[2 * i - 1] = count
  out[2 * i] = left
end
return out
"""

#: A process takes this share of a budget at a time (at least one unit): the units it spends without asking Redis.
LEASE_SHARE = 20

#: How long a thread waits for another's answer from Redis about the same counter (seconds), then asks itself.
ASKING_WAIT = 0.5

#: The leases one process keeps (the least recently used go: an unspent lease only makes its budget stricter).
LEASES_KEPT = 10_000


@dataclass(slots=True)
class Lease:
    """Units of one budget's window this process took from Redis and has not spent (``left``), until ``ends`` (Unix
    seconds); ``seen``: the most every process together had taken when Redis last answered; ``spent``: Redis had no
    more to give in this window.  Leases taken at once by several threads add up: no unit is lost."""

    left: int
    seen: int
    ends: float
    spent: bool


def _wants(lease: Lease | None, now: float) -> bool:
    """Whether a lease (or none) leaves Redis to be asked: none, over, or spent with more to give."""
    return lease is None or lease.ends <= now or (lease.left <= 0 and not lease.spent)


class RateBudgets:
    def __init__(self, client: redis.Redis, prefix: str, budgets: Sequence[Budget], address: Callable[[Request], str]) -> None:
        self.redis = client
        self.address = address
        self.prefix = prefix
        self.budgets = list(budgets)
        self._charge = client.register_script(CHARGE)
        self._leases: OrderedDict[str, Lease] = OrderedDict()
        self._lock = threading.Condition()
        self._asking: set[str] = set()  # counters a thread of this process is asking Redis for: the others wait

    def counter(self, budget: Budget, key: str, address: str) -> str:
        """A budget's counter: on the slot of the request's address, so one script charges every budget it draws on."""
        own = "" if key == address else f":{key}"
        return f"{self.prefix}limits:{{{address}}}:{budget.name}{own}"

    @staticmethod
    def units(budget: Budget) -> int:
        """How many units of the budget a process takes from Redis at a time: 1/:data:`LEASE_SHARE` of it."""
        return max(1, budget.limit.amount // LEASE_SHARE)

    def charge(self) -> list[Charge]:
        """Charge this request to every budget it draws on; what each has spent.

        A unit left of a lease this process took is spent here; the budgets with none are charged in Redis, one
        command for all of them, each taking a lease of :meth:`units`.  A budget Redis found spent is refused here
        until its window ends.
        """
        req = request._get_current_object()  # type: ignore[attr-defined]  # not its proxy: each budget reads it
        drawn = [(budget, key) for budget in self.budgets if (key := budget.key(req)) is not None]
        if not drawn:
            return []
        address = self.address(req)
        keys = [self.counter(budget, key, address) for budget, key in drawn]
        now = time.time()
        charges: list[Charge | None] = [None] * len(drawn)
        asked: list[int] = []
        with self._lock:
            for n, (budget, _) in enumerate(drawn):
                lease = self._leases.get(keys[n])
                if _wants(lease, now) and keys[n] in self._asking:  # another thread asks: its answer may serve us too
                    self._lock.wait(ASKING_WAIT)
                    now, lease = time.time(), self._leases.get(keys[n])
                if _wants(lease, now):
                    asked.append(n)
                    self._asking.add(keys[n])
                    continue
                assert lease is not None
                self._leases.move_to_end(keys[n])
                if lease.left <= 0:  # spent in Redis: refused here until the window ends
                    charges[n] = Charge(budget, budget.limit.amount + 1, lease.ends)
                else:
                    lease.left -= 1
                    charges[n] = Charge(budget, min(budget.limit.amount, lease.seen - lease.left), lease.ends)
        if asked:
            args: list[int] = []
            for n in asked:
                args += [drawn[n][0].limit.get_expiry() * 1000, self.units(drawn[n][0])]
            try:
                answers = self._charge(keys=[keys[n] for n in asked], args=args)
            except BaseException:
                with self._lock:
                    self._asking.difference_update(keys[n] for n in asked)
                    self._lock.notify_all()
                raise
            now = time.time()
            with self._lock:
                self._asking.difference_update(keys[n] for n in asked)
                self._lock.notify_all()
                for at, n in enumerate(asked):
                    budget = drawn[n][0]
                    count, ends = int(answers[2 * at]), now + max(0, int(answers[2 * at + 1])) / 1000
                    taken = self.units(budget)
                    before = count - taken  # what every process together had counted before this lease
                    granted = max(0, min(taken, budget.limit.amount - before))
                    lease = self._leases.get(keys[n])
                    if lease is None or lease.ends <= now:
                        lease = Lease(0, 0, ends, spent=False)
                    lease.left += granted  # another thread's lease of this window, still unspent, is kept
                    lease.seen, lease.ends = max(lease.seen, count), max(lease.ends, ends)
                    lease.spent = lease.spent or granted < taken
                    if lease.left > 0:
                        lease.left -= 1
                        charges[n] = Charge(budget, min(budget.limit.amount, lease.seen - lease.left), lease.ends)
                    else:
                        charges[n] = Charge(budget, count, lease.ends)  # over its limit: breached
                    self._keep(keys[n], lease)
        return [charge for charge in charges if charge is not None]

    def _keep(self, key: str, lease: Lease) -> None:
        self._leases[key] = lease
        self._leases.move_to_end(key)
        while len(self._leases) > LEASES_KEPT:
            self._leases.popitem(last=False)

    def before_request(self) -> None:
        """Refuse a request over any of its budgets (429, with Retry-After); keep the charges for the headers."""
        try:
            charges = self.charge()
        except redis.RedisError as error:
            log.warning("rate limits skipped: %s", error)
            return
        g.rate_charges = charges
        over = [c for c in charges if c.breached]
        if over:
            latest = max(over, key=lambda c: c.reset_at)
            refused = ApiError("rate_limited", f"Too many requests: {latest.budget.limit}")
            refused.headers["Retry-After"] = str(max(1, math.ceil(latest.reset_at - time.time())))
            raise refused

    @staticmethod
    def after_request(response: Response) -> Response:
        """X-RateLimit-* of the budget nearest to running out (the one a client must watch)."""
        charges: list[Charge] = g.get("rate_charges") or []
        if charges:
            tightest = charges[0] if len(charges) == 1 else min(charges, key=_watched)
            headers = response.headers
            if headers.getlist("X-RateLimit-Limit"):  # none of ours sets them but this: replaced, as ever
                for name in RATE_LIMIT_HEADERS:
                    headers.remove(name)
            # added, not set one by one: none of them is there to look for and replace
            headers.extend(
                (
                    ("X-RateLimit-Limit", str(tightest.budget.limit.amount)),
                    ("X-RateLimit-Remaining", str(tightest.remaining)),
                    ("X-RateLimit-Reset", str(int(tightest.reset_at))),
                )
            )
        return response


#: The headers of :meth:`RateBudgets.after_request`.
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def _watched(charge: Charge) -> tuple[bool, int]:
    """The budget a client must watch comes first: a breached one, else the one with the fewest left."""
    return (not charge.breached, charge.remaining)
