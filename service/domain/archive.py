"""A player's public archive of finished games, as the service knows it (pure): what an entry of the archive holds,
the query's filters and whether an entry passes them, and the cursor that pages through it.

An entry is a finished game reduced to what a search needs (variant, action rules, seats, places, the winner, whether
it was rated, when it finished), so a query reads a player's index (``service/storage/archive.py``) and never folds a
game's stream.  It is a projection: :func:`entry_of` makes it from the game itself, and ``red7 archive rebuild``
makes every one again from the streams and compares.  Names are kept as the game recorded them; a deleted account's
are taken out when the entry is read (``service.application.archive``), as a replay does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.common.errors import bad_cursor
from service.domain.game import Game
from service.domain.ratings import is_rated


@dataclass(frozen=True, slots=True)
class ArchivedSeat:
    """A seat as the archive shows it: who held it (``player_id`` ``None``: an AI's from the start), its name as the
    game recorded it, whether an AI played it and at what level, and whether its player resigned."""

    player_id: str | None
    name: str | None
    kind: str
    level: str | None
    resigned: bool


@dataclass(frozen=True, slots=True)
class Entry:
    """A finished game in its players' archives."""

    game_id: str
    finished_ms: int
    variant: str
    action_rules: bool
    rated: bool
    seats: tuple[ArchivedSeat, ...]
    places: tuple[int, ...]  # each seat's place, 1 the winner
    winner: int

    @property
    def players(self) -> set[str]:
        """The people seated (an account each), whose archives hold the game."""
        return {seat.player_id for seat in self.seats if seat.player_id}

    def seat_of(self, player_id: str) -> int | None:
        return next((n for n, seat in enumerate(self.seats) if seat.player_id == player_id), None)

    def won_by(self, player_id: str) -> bool:
        """Whether ``player_id`` won it: their seat came first and they had not resigned it (as their record counts)."""
        seat = self.seat_of(player_id)
        return seat is not None and seat == self.winner and not self.seats[seat].resigned

    def to_text(self) -> str:
        seats = [[s.player_id, s.name, s.kind, s.level, int(s.resigned)] for s in self.seats]
        body = [self.finished_ms, self.variant, int(self.action_rules), int(self.rated), seats, list(self.places), self.winner]
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_text(cls, game_id: str, text: str) -> Entry:
        ms, variant, actions, rated, seats, places, winner = json.loads(text)
        return cls(
            game_id,
            int(ms),
            variant,
            bool(actions),
            bool(rated),
            tuple(ArchivedSeat(p, name, kind, level, bool(resigned)) for p, name, kind, level, resigned in seats),
            tuple(places),
            int(winner),
        )


def epoch_ms(iso: str) -> int:
    """An ISO 8601 time (``Z`` or an offset) in milliseconds since the epoch."""
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def entry_of(game: Game) -> Entry | None:
    """The archive's entry of ``game`` (``None``: it did not finish with a winner: waiting, in play, called off or
    aborted games are in nobody's archive)."""
    order = game.standing()
    if game.status != "finished" or order is None or game.state.winner is None:
        return None
    places = [0] * len(game.seats)
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    seats = tuple(ArchivedSeat(s.player_id, s.name, s.kind, s.level, s.resigned) for s in game.seats)
    return Entry(
        game.id,
        epoch_ms(game.updated_at),
        game.variant.value,
        game.action_rules,
        is_rated(game),
        seats,
        tuple(places),
        game.state.winner,
    )


@dataclass(frozen=True, slots=True)
class Filters:
    """What a query keeps (``None``: any).  ``since``/``until`` bound when the game finished (ms, both included);
    ``result`` is the archive's player's (``won`` or ``lost``); ``opponent`` a player id seated beside them;
    ``analysed``: whether its decision analysis is done."""

    since: int | None = None
    until: int | None = None
    variant: str | None = None
    action_rules: bool | None = None
    players: int | None = None
    rated: bool | None = None
    result: str | None = None
    opponent: str | None = None
    analysed: bool | None = None

    def keeps(self, entry: Entry, player_id: str, analysed: bool = False) -> bool:
        """Whether ``entry`` of ``player_id``'s archive passes every filter (``analysed``: whether it has an analysis)."""
        if self.since is not None and entry.finished_ms < self.since:
            return False
        if self.until is not None and entry.finished_ms > self.until:
            return False
        if self.variant is not None and entry.variant != self.variant:
            return False
        if self.action_rules is not None and entry.action_rules != self.action_rules:
            return False
        if self.players is not None and len(entry.seats) != self.players:
            return False
        if self.rated is not None and entry.rated != self.rated:
            return False
        if self.result is not None and entry.won_by(player_id) != (self.result == "won"):
            return False
        if self.opponent is not None and (self.opponent == player_id or self.opponent not in entry.players):
            return False
        return self.analysed is None or analysed == self.analysed


#: A position in an archive: after the game finished at ``ms`` with this id (newest first).
Cursor = tuple[int, str]

_CURSOR = re.compile(r"([0-9]{1,15})\.([A-Za-z0-9_]{1,40})")


def parse_cursor(cursor: str | None) -> Cursor | None:
    """The position a ``next_cursor`` names (``None``: the start); a malformed one is refused (``bad_cursor``)."""
    if cursor is None:
        return None
    match = _CURSOR.fullmatch(cursor)
    if match is None:
        raise bad_cursor()
    return int(match[1]), match[2]


def cursor_of(entry: Entry) -> str:
    return f"{entry.finished_ms}.{entry.game_id}"


def as_iso(ms: int) -> str:
    """Milliseconds since the epoch as the API's times read (UTC, milliseconds, ``Z``)."""
    from datetime import UTC

    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def summary(entry: Entry) -> dict[str, Any]:
    """The entry's own facts as the API shows them (names not yet checked against deleted accounts)."""
    return {
        "game_id": entry.game_id,
        "finished_at": as_iso(entry.finished_ms),
        "variant": entry.variant,
        "action_rules": entry.action_rules,
        "players": len(entry.seats),
        "rated": entry.rated,
        "winner": entry.winner,
    }
