"""Statistics across finished games (issue 40, item 5): a player's (``getPlayerStatistics``) and everyone's
(``getGameStatistics``), from a projection counted as each game finishes and rebuilt by ``red7 stats rebuild``.

The projection is counters (:mod:`service.domain.statistics` says what a game adds; ``service/storage/statistics.py``
keeps them): :meth:`StatisticsService.count` is joined to the hook that indexes a finished game in its players'
archives (``service.application.listing``), so it runs as the game's last append is stored, and again whenever the
game is found finished and not yet listed so.  Each group counts a game once (its set of games counted, checked by
the same script that adds), so a second run counts nothing.  A read sums nothing: it reads a hash.

What a player's statistics show others follows their archive's rules (``service.application.archive``): a deleted
account has none (404 ``player_not_found``: its counters go with it; its games stay in everyone's); a player who
hides their archive shows others statistics of no game, as for a player who finished none.

The accuracy trend is read, not counted: each analysed game of the player's archive with their accuracy in it, from
the analyses as they are stored (an analysis comes after its game, when someone asks for it, and is kept for good),
oldest first, the newest :data:`TREND` of them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.analysis import VERSION
from service.common.errors import NotFound
from service.domain.archive import as_iso
from service.domain.game import Game
from service.domain.statistics import (
    GROUPS,
    Facts,
    canonical,
    facts_of,
    global_counts,
    group_of,
    group_view,
    player_counts,
    player_view,
    seats_of,
    total,
)
from service.storage.analyses import AnalysisStore
from service.storage.archive import CHUNK, ArchiveStore
from service.storage.players import Player, PlayerStore
from service.storage.statistics import StatisticsStore

#: The most analysed games an accuracy trend shows (the newest).
TREND = 100


@dataclass
class Rebuilt:
    """What a rebuild found: the finished games counted, the groups compared (players' and everyone's), those that
    differed and those written (with ``write``), and a sha256 over every rebuilt and every stored group's text."""

    games: int = 0
    players: int = 0
    groups: int = 0
    different: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    rebuilt_sha256: str = ""
    stored_sha256: str = ""

    @property
    def identical(self) -> bool:
        return not self.different


class StatisticsService:
    def __init__(
        self,
        store: StatisticsStore,
        players: PlayerStore,
        find: Callable[[str], Player],
        envelopes: Callable[[str], list[tuple[int, str]]],
        game_ids: Callable[[], Iterable[str]],
        archive: ArchiveStore,
        analyses: AnalysisStore,
    ) -> None:
        self._store = store
        self._players = players
        self.find = find  # a player by id or handle; NotFound player_not_found for nobody or a deleted account
        self.envelopes = envelopes  # a game's stored envelopes (number, payload), oldest first
        self.game_ids = game_ids  # every game id the streams hold (for a rebuild)
        self._archive = archive
        self._analyses = analyses

    # --- the projection -----------------------------------------------------------------------

    def facts(self, game_id: str) -> Facts | None:
        return facts_of(game_id, self.envelopes(game_id))

    def count(self, game: Game) -> None:
        """Count a finished game in its players' statistics and everyone's (once per group, however often it runs;
        a deleted account is left out)."""
        if game.status != "finished":
            return
        facts = self.facts(game.id)
        if facts is None:
            return
        seated = seats_of(facts)
        gone = self._players.deleted_among(set(seated)) if seated else set()
        for player_id, seat in sorted(seated.items()):
            if player_id not in gone:
                self._store.count_player(player_id, game.id, player_counts(facts, seat))
        self._store.count_group(group_of(facts.entry), game.id, global_counts(facts))

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's statistics go (its games stay counted in everyone's)."""
        self._store.drop(player_id)

    # --- reads --------------------------------------------------------------------------------

    def player(self, ref: str, viewer: str | None) -> dict[str, Any]:
        """The statistics of the player ``ref`` names, as ``getPlayerStatistics`` answers them."""
        player = self.find(ref)
        visible = viewer == player.id or not self._archive.hidden(player.id)
        counts = self._store.player(player.id) if visible else {}
        trend = self.accuracy_trend(player.id) if visible else []
        return {"player_id": player.id, **player_view(counts), "accuracy": trend}

    def accuracy_trend(self, player_id: str) -> list[dict[str, Any]]:
        """The player's accuracy in each of their newest :data:`TREND` analysed games, oldest first."""
        found: list[dict[str, Any]] = []
        chunk = []
        entries = self._archive.entries(player_id, since=None, until=None, after=None)
        for entry in entries:
            chunk.append(entry)
            if len(chunk) == CHUNK:
                found += self._accuracies(player_id, chunk, TREND - len(found))
                chunk = []
                if len(found) >= TREND:
                    break
        if chunk and len(found) < TREND:
            found += self._accuracies(player_id, chunk, TREND - len(found))
        return found[::-1]

    def _accuracies(self, player_id: str, entries: list[Any], wanted: int) -> list[dict[str, Any]]:
        done = self._analyses.done_among([e.game_id for e in entries], VERSION)
        out: list[dict[str, Any]] = []
        for entry in entries:
            if len(out) >= wanted:
                break
            seat = entry.seat_of(player_id)
            if entry.game_id not in done or seat is None:
                continue
            record = self._analyses.get(entry.game_id)
            players = (record.result or {}).get("players", []) if record is not None else []
            accuracy = next((p.get("accuracy") for p in players if p.get("seat") == seat), None)
            if accuracy is None:
                continue  # no decision of theirs judged (an AI or a deadline played every turn)
            out.append(
                {
                    "game_id": entry.game_id,
                    "finished_at": as_iso(entry.finished_ms),
                    "variant": entry.variant,
                    "players": len(entry.seats),
                    "accuracy": float(accuracy),
                }
            )
        return out

    def everyone(self, variant: str | None = None, players: int | None = None) -> dict[str, Any]:
        """Everyone's statistics by variant and player count, as ``getGameStatistics`` answers them."""
        groups = []
        for group in GROUPS:
            name, count = group.split(":")
            if (variant is None or name == variant) and (players is None or int(count) == players):
                groups.append(group_view(group, self._store.group(group)))
        return {
            "games": sum(g["games"] for g in groups),
            "rounds": sum(g["rounds"] for g in groups),
            "groups": groups,
        }

    # --- the operator's -----------------------------------------------------------------------

    def rebuild(self, *, write: bool = False) -> Rebuilt:
        """Count every finished game of the streams again and compare each group with the stored one, byte for byte
        (``write``: store the rebuilt group in place of one that differs).  Deleted accounts have none."""
        report = Rebuilt()
        people: dict[str, list[dict[str, int]]] = {}
        people_games: dict[str, set[str]] = {}
        groups: dict[str, list[dict[str, int]]] = {}
        groups_games: dict[str, set[str]] = {}
        for game_id in sorted(self.game_ids()):
            try:
                facts = self.facts(game_id)
            except NotFound:
                continue  # gone meanwhile
            if facts is None:
                continue
            report.games += 1
            for player_id, seat in seats_of(facts).items():
                people.setdefault(player_id, []).append(player_counts(facts, seat))
                people_games.setdefault(player_id, set()).add(game_id)
            group = group_of(facts.entry)
            groups.setdefault(group, []).append(global_counts(facts))
            groups_games.setdefault(group, set()).add(game_id)
        everyone = set(people) | set(self._store.players())
        gone = self._players.deleted_among(everyone) if everyone else set()
        rebuilt_hash, stored_hash = hashlib.sha256(), hashlib.sha256()
        for group in GROUPS:
            counts, games = total(groups.get(group, [])), groups_games.get(group, set())
            report.groups += 1
            self._compare(
                report, f"stats:{group}", canonical(counts, games), self._store.export_group(group), rebuilt_hash, stored_hash
            )
            if write and report.different and report.different[-1] == f"stats:{group}":
                self._store.replace_group(group, counts, games)
                report.written.append(f"stats:{group}")
        for player_id in sorted(everyone):
            counts = {} if player_id in gone else total(people.get(player_id, []))
            games = set() if player_id in gone else people_games.get(player_id, set())
            report.players += 1
            name = f"player:{player_id}"
            self._compare(report, name, canonical(counts, games), self._store.export_player(player_id), rebuilt_hash, stored_hash)
            if write and report.different and report.different[-1] == name:
                self._store.replace_player(player_id, counts, games)
                report.written.append(name)
        report.rebuilt_sha256, report.stored_sha256 = rebuilt_hash.hexdigest(), stored_hash.hexdigest()
        return report

    @staticmethod
    def _compare(report: Rebuilt, name: str, rebuilt: str, stored: str, rebuilt_hash: Any, stored_hash: Any) -> None:
        rebuilt_hash.update(f"{name}\n{rebuilt}\n".encode())
        stored_hash.update(f"{name}\n{stored}\n".encode())
        if rebuilt != stored:
            report.different.append(name)
