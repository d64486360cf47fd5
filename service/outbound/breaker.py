"""A circuit breaker per receiver of notices: who is passed over for now, and who takes one delivery at a time.

A receiver (a webhook's host and port, a push service's) is in one of three states in a process:

- **closed**: it answered lately (within ``known_for``): it takes any number of deliveries at once;
- **open**: a delivery to it failed (``failures`` in a row) within ``troubled_for``, or one has been under way for
  ``slow_after`` already: deliveries to it are not tried, they go to its line (its own job, RQ's retries);
- **half-open**: neither (never heard from, not lately, or its open time is over): it takes one delivery at a time,
  a probe, and the others wait for it; a probe that gets an answer (even a refusal) closes it.

Its state lives in one object (``workers.notices`` holds the process's), behind one lock: the delivery threads of
every ``notices`` job of the process share it.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable
from typing import Literal, TypeVar

from service.outbound import webhooks

#: A receiver with a delivery under way this long (seconds) is passed over like a troubled one.
SLOW_AFTER = 0.2
#: A receiver that answered within this many seconds takes any number of deliveries at once.
KNOWN_FOR = 60.0
#: How long a receiver whose delivery failed is passed over (seconds).
TROUBLED_FOR = 60.0
#: Receivers remembered before those whose time is over are forgotten (receivers come and go).
REMEMBERED = 10_000

T = TypeVar("T")


class Receivers:
    """The breakers of every receiver this process delivers to (see the module's docstring)."""

    def __init__(
        self,
        *,
        slow_after: float = SLOW_AFTER,
        known_for: float = KNOWN_FOR,
        troubled_for: float = TROUBLED_FOR,
        failures: int = 1,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.slow_after, self.known_for, self.troubled_for, self.failures = slow_after, known_for, troubled_for, failures
        self.monotonic = monotonic
        self._lock = threading.Lock()
        self._troubled: dict[str, float] = {}  # open until (monotonic)
        self._failed: dict[str, int] = {}  # failures in a row, while fewer than ``failures``
        self._under_way: dict[str, dict[int, float]] = {}  # attempts under way, by token: when each began
        self._answered: dict[str, float] = {}  # when each last answered
        self._attempts = itertools.count()

    def reset(self) -> None:
        """Forget every receiver (a test's fresh start)."""
        with self._lock:
            self._troubled.clear()
            self._failed.clear()
            self._under_way.clear()
            self._answered.clear()

    def state(self, who: str) -> Literal["closed", "open", "half_open"]:
        """The breaker's state for ``who`` now."""
        if self.troubled(who):
            return "open"
        answered = self._answered.get(who)
        return "closed" if answered is not None and self.monotonic() - answered <= self.known_for else "half_open"

    def troubled(self, who: str) -> bool:
        """Whether ``who`` failed a delivery within ``troubled_for``, or has had one under way for ``slow_after``."""
        at = self.monotonic()
        until = self._troubled.get(who)
        if until is not None and at < until:
            return True
        if who not in self._under_way:
            return False
        with self._lock:
            oldest = min(self._under_way.get(who, {}).values(), default=at)
        return at - oldest >= self.slow_after

    def claim(self, receivers: Iterable[str]) -> int | None:
        """Note an attempt to ``receivers`` as under way, and its token; ``None`` (nothing noted) while one of them that
        has not answered lately (half-open) has an attempt under way already: a burst of moves to a receiver that may
        hang sends it one delivery to learn whether it does, not one per delivery thread."""
        at = self.monotonic()
        with self._lock:
            for who in receivers:
                answered = self._answered.get(who)
                if self._under_way.get(who) and (answered is None or at - answered > self.known_for):
                    return None
            token = next(self._attempts)
            for who in receivers:
                self._under_way.setdefault(who, {})[token] = at
        return token

    def attempt(self, receivers: Iterable[str], send: Callable[[], T], token: int) -> T:
        """``send``, under way to ``receivers`` by the claim ``token`` (:meth:`claim`) until it ends; a receiver that
        answers, even with a refusal, is noted as answering."""
        answered = False
        try:
            result = send()
            answered = True
            return result
        except webhooks.UndeliverableWebhook:
            answered = True  # a 4xx is an answer, and quick
            raise
        finally:
            with self._lock:
                for who in receivers:
                    begun = self._under_way.get(who, {})
                    begun.pop(token, None)
                    if not begun:
                        self._under_way.pop(who, None)
                    if answered:
                        self._note_answered(who)

    def fail(self, who: str) -> None:
        """A delivery to ``who`` failed (or was late): after ``failures`` in a row it is open for ``troubled_for``."""
        with self._lock:
            failed = self._failed.get(who, 0) + 1
            if failed < self.failures:
                self._failed[who] = failed
                return
            self._failed.pop(who, None)
            now = self.monotonic()
            if len(self._troubled) > REMEMBERED:
                for gone in [r for r, until in self._troubled.items() if until <= now]:
                    del self._troubled[gone]
            self._troubled[who] = now + self.troubled_for

    def well(self, who: str) -> None:
        """A delivery to ``who`` got through (its line's): closed again."""
        with self._lock:
            self._troubled.pop(who, None)
            self._failed.pop(who, None)
            self._note_answered(who)

    def _note_answered(self, who: str) -> None:
        """(The lock held.)"""
        now = self.monotonic()
        if len(self._answered) > REMEMBERED:
            for gone in [r for r, at in self._answered.items() if now - at > self.known_for]:
                del self._answered[gone]
        self._answered[who] = now
