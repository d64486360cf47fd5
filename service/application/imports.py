"""Imported replays: a file verified, its facts kept for a while, and the replay told from them when it is read.

An import used to keep the replay rebuilt from the file, every step's sentence and table included.  A
sentence names the seats it is about, so one long name in a file (700 KB, named in 135 sentences) was
kept as 100 MB (issue 18).  What is kept now is what the file proves and nothing derived from it: the
game's id and its events, one stored payload a line as the event store keeps a game's (engine events in
their compact form, :mod:`service.domain.envelopes`).  A file holds those events and more (every step's table),
so an import keeps fewer bytes than its file has, whatever the file (a finished game: ~15 KB, as its game
keeps).  The replay is rebuilt from them when read, as a finished game's is: each sentence names seats
by names of at most 40 characters (:func:`service.domain.game.name_problem`, held by :mod:`replays.shape`).

An import is kept ``ttl`` seconds (``RED7_IMPORTED_REPLAY_TTL``, 30 days) from the last time its content was
imported; the few replays read last are kept in memory, rebuilt.

An import sent with an ``Idempotency-Key`` is answered again, not made again, by a retry: the key's record is one
of the importing player's records of creates (:mod:`service.storage.idempotency`), kept here with the import's
other rules so that the route calls the application, never the store (issue 19).
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from replays.build import FULL, build_replay
from replays.verify import verify_replay
from service.common.config import Settings
from service.common.errors import Refused
from service.domain.game import decode, envelope
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.idempotency import CreateRecords, Made
from service.storage.players import Player, PlayerStore
from service.storage.replays import ReplayStore


@dataclass(frozen=True, slots=True)
class Imported:
    """An import: its id, whether it is new, the replay as it is kept, and when it goes (``None``: never).

    ``replayed``: the answer to a retry with the key of an earlier request, which made the import (``created`` is
    then what that request was told).
    """

    replay_id: str
    created: bool
    document: dict[str, Any]
    expires_at: str | None
    replayed: bool = False


def _record(imported: Imported) -> Made:
    """What a keyed import records: the import, and what its first answer was: the status of that answer (as the
    records have always kept it, so that every record written before reads the same) and the expiry it gave."""
    return {"id": imported.replay_id, "status": 201 if imported.created else 200, "expires_at": imported.expires_at}


def _created(record: Made) -> bool:
    return bool(record["status"] == 201)


def _as_first(imported: Imported, record: Made) -> Imported:
    """``imported`` as the request that wrote ``record`` was answered: a retry is told what the first attempt was, its
    expiry too (counted again from the key's time left, it could be a second off; a record written before it kept
    the expiry: the import's as it is now)."""
    expires_at = record.get("expires_at", imported.expires_at)
    return replace(imported, created=_created(record), replayed=True, expires_at=expires_at)


def kept_text(document: dict[str, Any]) -> str:
    """What an import keeps of a verified replay: a line with the game's id, then each event's stored payload."""
    lines = [json.dumps({"game_id": document["game_id"]}, separators=(",", ":"), ensure_ascii=False)]
    for event in document["events"]:
        fields = {k: v for k, v in event.items() if k not in ("n", "at", "by", "v")}
        lines.append(envelope(fields, at=event["at"], by=event["by"]))
    return "\n".join(lines)


def told(kept: str) -> dict[str, Any]:
    """The replay an import keeps, rebuilt (an import made before facts were kept holds the document itself)."""
    first, _, rest = kept.partition("\n")
    head = json.loads(first)
    if "steps" in head:
        return dict(head)
    stored = [(number, decode(payload)) for number, payload in enumerate(rest.split("\n"), start=1)]
    return build_replay(head["game_id"], stored, FULL)


class ImportedReplays:
    """Importing a replay file (once per key of the importing player), and reading an import back while it is kept."""

    def __init__(
        self,
        store: ReplayStore,
        players: PlayerStore,
        ttl: int,
        *,
        max_events: int = Settings.max_replay_events,
        clock: Callable[[], float] = time.time,
        remembered: int = 8,
    ) -> None:
        self.store = store
        self.players = players  # whose slots hold the records of keyed imports
        self.records = CreateRecords(players.redis)
        self.ttl = ttl
        self.max_events = max_events
        self.clock = clock
        self.remembered = remembered
        self._read: OrderedDict[str, dict[str, Any]] = OrderedDict()  # the last replays read, rebuilt
        self._lock = threading.Lock()  # request threads share them

    def import_once(self, player: Player, document: dict[str, Any], idempotency: Idempotency | None = None) -> Imported:
        """:meth:`add`, by ``player``; with ``idempotency``, a retry of the same request is answered as the first was
        (``replayed``), while its import is kept; the same key with another request is ``idempotency_key_reused``.

        The import is the same whoever makes it (its id is its content's): only what the first answer said of it
        (new, or imported before) is the request's, and that is what the key's record keeps.
        """
        try:
            return self._import_once(player, document, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None

    def _import_once(self, player: Player, document: dict[str, Any], idempotency: Idempotency | None) -> Imported:
        mine = self.players.create_records_key(player.id)
        first = self.records.find(mine, idempotency) if idempotency is not None else None
        if first is not None and (again := self.find(first["id"])) is not None:
            return _as_first(again, first)
        imported = self.add(document)
        if idempotency is None:
            return imported
        first = self.records.claim(mine, idempotency, _record(imported))
        return imported if first is None else _as_first(imported, first)

    def add(self, document: dict[str, Any]) -> Imported:
        """Verify a file and keep its facts.

        ``payload_too_large`` for a file with more events or steps than a game has, before the verifier spends time
        on them; ``invalid_replay``, every problem with its field, if it does not verify.
        """
        self._within_bounds(document)
        verdict = verify_replay(document)
        if not verdict.ok or verdict.document is None:
            detail = "The replay does not verify: " + "; ".join(verdict.problems[:5])
            errors = [{**error, "location": "json"} for error in verdict.errors]
            raise Refused("invalid_replay", detail, problems=verdict.problems, errors=errors)
        kept = verdict.document
        replay_id = self.store.id_for(kept)
        created = self.store.save(replay_id, kept_text(kept), self.ttl)
        self._remember(replay_id, kept)
        return Imported(replay_id, created, kept, self._expires_at(self.ttl if self.ttl > 0 else None))

    def _within_bounds(self, document: dict[str, Any]) -> None:
        most = self.max_events
        for part in ("events", "steps"):
            if len(document.get(part) or ()) > most:
                raise Refused(
                    "payload_too_large",
                    f"A replay may hold at most {most} {part}; this one holds {len(document[part])} (no game is that long).",
                    **{f"max_{part}": most},
                )

    def find(self, replay_id: str) -> Imported | None:
        """An import made before, as its answer says it (a retried request is answered with it)."""
        document = self.get(replay_id)
        if document is None:
            return None
        return Imported(replay_id, False, document, self._expires_at(self.store.seconds_left(replay_id)))

    def seconds_left(self, replay_id: str) -> int | None:
        """How long an import is kept from now (``None``: for good, or not kept): what its analysis is kept."""
        return self.store.seconds_left(replay_id)

    def _expires_at(self, seconds: int | None) -> str | None:
        if seconds is None:
            return None
        return datetime.fromtimestamp(int(self.clock()) + seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")

    def get(self, replay_id: str) -> dict[str, Any] | None:
        """An import's replay while it is kept; ``None`` once it has expired, or if there never was one."""
        with self._lock:
            document = self._read.get(replay_id)
        if document is not None:
            if self.store.exists(replay_id):
                return document
            with self._lock:  # expired since it was read
                self._read.pop(replay_id, None)
            return None
        kept = self.store.get(replay_id)
        if kept is None:
            return None
        document = told(kept)
        self._remember(replay_id, document)
        return document

    def _remember(self, replay_id: str, document: dict[str, Any]) -> None:
        with self._lock:
            self._read[replay_id] = document
            self._read.move_to_end(replay_id)
            while len(self._read) > self.remembered:
                self._read.popitem(last=False)
