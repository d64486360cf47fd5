"""Finished games compacted: an over game's stream folded into one packed record, after a grace.

A finished game keeps its events for good (its replay, its verification, its players' records): ~72 bytes an
event in a stream, 14-19 KB a game.  :meth:`~service.storage.events.EventStore.compact` folds them into one
zlib-compressed record that every read answers from as before (a few KB), and the stream goes.  A game is
compacted once it is over (finished, or called off) and ``compact_after`` seconds have passed since its last
event, when players may still be looking at it: the dispatcher times a ``compact`` job for then (``due()``
finds one for every over game; ``service/jobqueue/dispatch.py`` puts it on the agenda), and ``red7 migrate`` compacts the
over games written before (:func:`compact_over`).  Compacting is safe at any time: a stream that moved on
meanwhile (a rematch offered) is left for a later look, and appends after it go on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from service.domain.game import Game, load
from service.storage.events import EventStore


@dataclass
class Compacted:
    """What a pass of :func:`compact_over` did."""

    compacted: int = 0
    events: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # why, how many

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def summary(self) -> str:
        skipped = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items())) or "none"
        return f"{self.compacted} games compacted ({self.events} events); skipped: {skipped}"


def compact(store: EventStore, game_id: str, game: Game | None = None) -> str:
    """Compact one game if it is over; what was done, in words.  ``game``: the game if the caller has folded it
    (it is folded again from the stream otherwise)."""
    stored = [(e.number, e.payload) for e in store.read_all(game_id)]
    if not stored:
        return "no such game"
    if [number for number, _ in stored] != list(range(1, len(stored) + 1)):
        raise RuntimeError(f"game {game_id}: the stream's events are not numbered 1..{len(stored)}")
    game = game if game is not None and game.version == len(stored) else load(game_id, stored)
    if not game.over:
        return "not over: nothing to compact"
    if store.compacted(game_id) >= len(stored):
        return f"compacted already ({len(stored)} events)"
    if not store.compact(game_id, len(stored), [payload for _, payload in stored]):
        return "it moved on meanwhile: compacted at a later look"
    return f"{len(stored)} events compacted"


def game_ids(store: EventStore) -> Iterator[str]:
    """Every game the store holds (by its version key), in no order; each once on one server (SCAN may repeat)."""
    head, tail = f"{store.prefix}game:{{", "}:version"
    seen: set[str] = set()
    for key in store.redis.scan_iter(match=f"{_glob(store.prefix)}game:{{*}}:version", count=1000):
        name = key.decode() if isinstance(key, bytes) else key
        if name.startswith(head) and name.endswith(tail) and (game_id := name[len(head) : -len(tail)]) not in seen:
            seen.add(game_id)
            yield game_id


def compact_over(
    store: EventStore, older_than: datetime, progress: Callable[[str], None] = lambda line: None, every: int = 1000
) -> Compacted:
    """Compact every over game whose last event is older than ``older_than`` (``red7 migrate``)."""
    report = Compacted()
    for looked, game_id in enumerate(game_ids(store), start=1):
        packed = store.compacted(game_id)
        if packed and packed >= store.version(game_id):
            report.skip("compacted already")
            continue
        stored = [(e.number, e.payload) for e in store.read_all(game_id)]
        game = load(game_id, stored)
        if not game.over:
            report.skip("in play")
        elif not game.updated_at or datetime.fromisoformat(game.updated_at.replace("Z", "+00:00")) >= older_than:
            report.skip("over within the grace")
        elif compact(store, game_id, game).endswith("events compacted"):
            report.compacted += 1
            report.events += len(stored)
        else:
            report.skip("moved on meanwhile")
        if looked % every == 0:
            progress(f"{looked} games looked at: {report.summary()}")
    return report


def _glob(text: str) -> str:
    """``text`` matched literally in a SCAN pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
