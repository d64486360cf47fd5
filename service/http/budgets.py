"""Rate limits: one budget per token, one per address and one for sign-ups per address, in one command.

Each budget is a fixed window (it opens at its first request and lasts the
limit's period) counted in one key.  Every budget a request draws on is
charged by one Lua script (``CHARGE``: ``INCR``, the window's end set by the
request that opens it, ``PTTL``, for each), registered once and called with
``EVALSHA`` (redis-py's ``register_script`` loads it again on ``NOSCRIPT``): a
request pays one command and one round trip to Redis, however many budgets
apply.  Three commands per budget in a pipeline were 62% of what the stores'
Redis was sent per accepted move (15.9 of 25.7 commands); flask-limiter did
the same with a moving window in ~35 commands, four scripts and several round
trips per request.

A script may touch one Redis Cluster slot only, so a request's counters
share one hash tag: its address, the one thing every limited request has
(``<prefix>limits:{<address>}:<budget>[:<token digest>]``).  The address's
and the sign-up budget are exact; a token's budget (and its import budget)
is counted per address it comes from.

The stated error, what a client may spend beyond a limit of ``n`` per period:

- a fixed window lets a client spend a budget twice within one period, at the
  end of a window and the start of the next (``2n`` in any period, never more
  than ``n`` within one window): the price of counting with one key;
- a token used from ``k`` addresses at once has ``k`` budgets of its own
  (each address still held to its own budget).

Limit strings are flask-limiter's (``"600 per minute"``), read by the
``limits`` package it is built on.  A request refused counts too (it only
keeps a spent window spent).  When Redis cannot be reached, the limits are
skipped (a request that needs the store then fails on its own).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import limits
import redis
from flask import Response, g

from service.http.problems import ApiError

log = logging.getLogger("red7.limits")


@dataclass(frozen=True, slots=True)
class Budget:
    """A limit, and whose budget a request draws on (``None``: this request is not charged to it)."""

    name: str
    limit: limits.RateLimitItem
    key: Callable[[], str | None]

    @classmethod
    def of(cls, name: str, text: str, key: Callable[[], str | None]) -> Budget:
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


#: KEYS: the counters; ARGV: each one's window (ms).  Answers each counter's count and the ms left in its window.
CHARGE = """
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if left < 0 then
    left = tonumber(ARGV[i])
    redis.call('PEXPIRE', key, left)
  end
  out[2 * i - 1] = count
  out[2 * i] = left
end
return out
"""


class RateBudgets:
    def __init__(self, client: redis.Redis, prefix: str, budgets: Sequence[Budget], address: Callable[[], str]) -> None:
        self.redis = client
        self.address = address
        self.prefix = prefix
        self.budgets = list(budgets)
        self._charge = client.register_script(CHARGE)

    def counter(self, budget: Budget, key: str, address: str) -> str:
        """A budget's counter: on the slot of the request's address, so one script charges every budget it draws on."""
        own = "" if key == address else f":{key}"
        return f"{self.prefix}limits:{{{address}}}:{budget.name}{own}"

    def charge(self) -> list[Charge]:
        """Charge this request to every budget it draws on, in one command; what each has spent."""
        drawn = [(budget, key) for budget in self.budgets if (key := budget.key()) is not None]
        if not drawn:
            return []
        address = self.address()
        keys = [self.counter(budget, key, address) for budget, key in drawn]
        windows = [budget.limit.get_expiry() * 1000 for budget, _ in drawn]
        answers = self._charge(keys=keys, args=windows)
        now = time.time()
        return [
            Charge(budget, int(answers[2 * n]), now + max(0, int(answers[2 * n + 1])) / 1000)
            for n, (budget, _) in enumerate(drawn)
        ]

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
            tightest = min(charges, key=lambda c: (not c.breached, c.remaining))
            response.headers["X-RateLimit-Limit"] = str(tightest.budget.limit.amount)
            response.headers["X-RateLimit-Remaining"] = str(tightest.remaining)
            response.headers["X-RateLimit-Reset"] = str(int(tightest.reset_at))
        return response
