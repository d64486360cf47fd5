"""Which keys a game leaves in Redis after a simulated stretch of time, and what they hold.

A bench cannot wait a day, so it makes a day's moves in seconds and works
out which keys would still be there.  After each simulated hour's moves
it scans the keyspace and reads every key's PTTL.  A key is new if it was
not there before the game; its expiry is set when it first shows up, and
set again whenever its PTTL is larger than at the last look (the key was
written again with a fresh TTL).  A new key is *alive* at simulated time
``T`` if it still exists and either has no TTL (-1) or was last given
``ttl`` ms at simulated hour ``h`` with ``h * 3600 s + ttl > T``: e.g. a job
hash with a 3600 s TTL written at hour 0 is gone 23 h later, and an
idempotency record (24 h) written at hour 1 is still there at hour 24.
Real seconds pass while the bench plays; nothing expires in them that would
not have expired in the simulated hours too.

Keys that were there before the game and that the game only changes (RQ's
registries, the agenda, the players' hashes) are not the game's; their growth
is reported apart, as measured.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

import redis

HOUR_MS = 3600 * 1000


@dataclass
class KeyLedger:
    client: redis.Redis
    baseline: dict[str, int] = field(default_factory=dict)  # key -> MEMORY USAGE before the game
    set_at: dict[str, tuple[float, int]] = field(default_factory=dict)  # key -> (simulated hour, PTTL then)
    last_pttl: dict[str, int] = field(default_factory=dict)

    def _scan(self) -> dict[str, int]:
        keys = [k if isinstance(k, str) else k.decode() for k in self.client.scan_iter(count=1000)]
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.pttl(key)
        return {key: int(pttl) for key, pttl in zip(keys, pipe.execute(), strict=True) if int(pttl) != -2}

    def usage(self, keys: list[str]) -> dict[str, int]:
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.memory_usage(key, samples=0)
        return {key: int(used or 0) for key, used in zip(keys, pipe.execute(), strict=True)}

    def start(self) -> None:
        """Note what is there before the game."""
        self.baseline = self.usage(list(self._scan()))

    def observe(self, hour: float) -> None:
        """Look at every key after the moves of simulated ``hour``."""
        for key, pttl in self._scan().items():
            if key in self.baseline:
                continue
            previous = self.last_pttl.get(key)
            if previous is None or (pttl == -1) != (previous == -1) or (pttl != -1 and pttl > previous):
                self.set_at[key] = (hour, pttl)
            self.last_pttl[key] = pttl

    def alive(self, at_hour: float) -> dict[str, int]:
        """The game's keys that would still exist at simulated ``at_hour``, with their MEMORY USAGE (bytes)."""
        now = self._scan()
        kept = []
        for key, pttl in now.items():
            if key in self.baseline or key not in self.set_at:
                continue
            hour, ttl = self.set_at[key]
            if pttl == -1 or hour * HOUR_MS + ttl > at_hour * HOUR_MS:
                kept.append(key)
        return self.usage(kept)

    def shared_growth(self) -> int:
        """Bytes the keys that were there before the game grew by (raw: what would expire in them is not known)."""
        after = self.usage([key for key in self.baseline if self.client.exists(key)])
        return sum(after.values()) - sum(used for key, used in self.baseline.items() if key in after)


def kind_of(key: str, names: dict[str, str]) -> str:
    """A key's shape: the game's and players' ids named, numbers and digests elided."""
    for value, name in names.items():
        key = key.replace(value, name)
    key = re.sub(r"[0-9a-f]{32,}", "*", key)
    return re.sub(r"\d+", "N", key)


def by_kind(usage: dict[str, int], names: dict[str, str]) -> list[tuple[str, int, int]]:
    """(kind, keys, bytes), the biggest first."""
    kinds: dict[str, list[int]] = defaultdict(list)
    for key, used in usage.items():
        kinds[kind_of(key, names)].append(used)
    return sorted(((kind, len(sizes), sum(sizes)) for kind, sizes in kinds.items()), key=lambda row: -row[2])
