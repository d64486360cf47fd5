"""Open waits: how many long-polls and streams each token and each address holds open in this process.

Waiting is cheap on gevent (a greenlet each), but not free: without a cap one
client could open thousands and crowd everyone else out.  Counted per API
process (a waiting connection lives in one), so a client's cap across a
deployment is the cap times the processes its connections land on.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from service.http.problems import ApiError


class OpenWaits:
    def __init__(self, per_token: int, per_address: int) -> None:
        self.per_token = per_token
        self.per_address = per_address
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, token_key: str | None, address: str) -> list[str]:
        """Count one more wait for the token (if any) and the address, or refuse it (429 too_many_waits)."""
        keys = [f"addr:{address}"] + ([f"token:{token_key}"] if token_key else [])
        with self._lock:
            if token_key and self.per_token and self._open[keys[1]] >= self.per_token:
                raise _refused(f"This token holds {self.per_token} long-polls and streams open here already")
            if self.per_address and self._open[keys[0]] >= self.per_address:
                raise _refused(f"Your address holds {self.per_address} long-polls and streams open here already")
            for key in keys:
                self._open[key] += 1
        return keys

    def give_back(self, keys: list[str]) -> None:
        with self._lock:
            for key in keys:
                self._open[key] -= 1
                if self._open[key] <= 0:
                    del self._open[key]

    @contextmanager
    def held(self, token_key: str | None, address: str) -> Iterator[None]:
        keys = self.take(token_key, address)
        try:
            yield
        finally:
            self.give_back(keys)


def _refused(why: str) -> ApiError:
    error = ApiError("too_many_waits", f"{why}; close one (or wait without it) and try again.")
    error.headers["Retry-After"] = "1"
    return error
