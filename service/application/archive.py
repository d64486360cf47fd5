"""A player's public archive of finished games (issue 40): listed with filters a page at a time, exported a replay per
line, dumped a month at a time by the operator, and rebuilt from the game streams.

The archive is a projection, as the ladders are: each finished game is indexed in the archive of each of its players
(:meth:`ArchiveService.index`, called as the game is listed as finished — ``service.application.listing``) as an
entry (:mod:`service.domain.archive`), so a query reads entries and never folds a stream.  ``red7 archive rebuild``
(:meth:`ArchiveService.rebuild`) makes every entry again from the streams and compares, byte for byte.

An export streams lines kept once per finished game (``service/storage/export_lines.py``): written as the game is
indexed, or on the first export that meets a game without one (or with one made before one of its players was
deleted), and made again by the rebuild.  A kept line is the line ``exportReplay``'s document makes, without its
decision analysis, which may come later: it is put at the end of the line as it is sent, where ``exportReplay`` has it
(outside the content hash), so a line sent from the store equals one made afresh, byte for byte.

What others see follows the rules of the rest of the service:

- a deleted account has no archive (its id and handle answer 404 ``player_not_found``, as its profile does); in the
  archives of the others its seat keeps its pseudonymous id and is named "deleted player", as replays name it;
- a player who hides their archive (``updateMe``'s ``archive_hidden``) has, for everyone but themself, an archive
  with no game in it: the list answers an empty page and the export no line, as for a player who finished no game.
  A 404 would say no more (the profile still answers), and an empty answer is what any client already handles.
  Their games stay in their opponents' archives: those are the opponents' games too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.analysis import VERSION
from replays.build import in_language
from service.application.erasure import DELETED_NAME
from service.common.errors import NotFound, Refused
from service.common.texts import DEFAULT
from service.domain.archive import Cursor, Entry, Filters, cursor_of, entry_of, parse_cursor, summary
from service.domain.game import Game
from service.domain.ratings import AI_PREFIX, ladder_of
from service.storage.analyses import AnalysisStore
from service.storage.archive import CHUNK, ArchiveStore
from service.storage.export_lines import ExportLines, Kept
from service.storage.players import Player, PlayerStore
from service.storage.ratings import RatingStore

#: The longest page of an archive.
MAX_PAGE = 100

#: Games an export reads kept lines for at a time (compressed, ~25 KB each: a batch holds ~1 to 2 MB).
LINE_BATCH = 50

#: A finished game's full replay without its analysis, the players seated in it and those deleted when it was built.
Replayed = tuple[dict[str, Any], set[str], frozenset[str]]


@dataclass
class Rebuilt:
    """What a rebuild found: the finished games in the streams, the archives compared, those that differed, and
    those written (with ``write``)."""

    games: int = 0
    players: int = 0
    different: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    #: the export lines kept, compared with lines made again (games whose kept lines differed; those with none kept)
    lines: int = 0
    lines_different: list[str] = field(default_factory=list)
    lines_missing: list[str] = field(default_factory=list)
    lines_written: int = 0

    @property
    def identical(self) -> bool:
        """The archives and the kept lines are what the streams make (a line not kept yet is made when needed)."""
        return not self.different and not self.lines_different


def line_of(document: dict[str, Any]) -> str:
    """A replay as one line of an export: the JSON export's document, compact (``POST /v1/replays`` takes it)."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n"


def with_analysis(line: str, analysis: dict[str, Any] | None) -> str:
    """A kept line with the game's analysis put last, as ``line_of({**document, "analysis": analysis})`` writes it
    (the analysis is outside the content hash: the line's hash stays)."""
    if analysis is None:
        return line
    return f'{line[:-2]},"analysis":{json.dumps(analysis, separators=(",", ":"), ensure_ascii=False)}}}\n'


def month_bounds(month: str) -> tuple[int, int]:
    """The first and last millisecond of ``YYYY-MM`` (UTC)."""
    try:
        start = datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
    except ValueError:
        raise ValueError(f"{month!r} is not a month written YYYY-MM") from None
    end = start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000) - 1


class ArchiveService:
    """Players' archives over the archive store, the game streams (for exports and rebuilds), the ladders (ratings
    before and after) and the analyses (the ``analysed`` filter)."""

    def __init__(
        self,
        store: ArchiveStore,
        players: PlayerStore,
        find: Callable[[str], Player],
        load: Callable[[str], Game],
        replay: Callable[[Game], Replayed],
        analysis_of: Callable[[str], dict[str, Any] | None],
        ratings: RatingStore,
        analyses: AnalysisStore,
        game_ids: Callable[[], Iterable[str]],
        lines: ExportLines,
    ) -> None:
        self._store = store
        self._players = players
        self.find = find  # a player by id or handle; NotFound player_not_found for nobody or a deleted account
        self.load = load
        self.replay = replay  # a finished game's replay without its analysis, as GameFeeds.finished_replay makes it
        self.analysis_of = analysis_of  # a finished game's decision analysis, if one is done
        self._ratings = ratings
        self._analyses = analyses
        self.game_ids = game_ids  # every game id the streams hold (for a rebuild and the month's dump)
        self._lines = lines

    # --- the projection -----------------------------------------------------------------------

    def index(self, game: Game) -> None:
        """Index a finished game in its players' archives (safe to repeat; a deleted account is left out)."""
        entry = entry_of(game)
        if entry is None:
            return
        people = entry.players
        self._store.add(entry, people - self._players.deleted_among(people))
        self.keep_line(game, DEFAULT)

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's archive and its setting go (its games stay in the others', its name erased there), and
        so do its games' kept lines, which name it (a reader would make them again anyway: they were made before)."""
        self._lines.drop(self._store.game_ids(player_id))
        self._store.drop(player_id)

    # --- export lines ---------------------------------------------------------------------------

    def keep_line(self, game: Game, language: str) -> str:
        """Make the finished game's export line in ``language`` (without its analysis), keep it, and return it."""
        document, seated, deleted = self.replay(game)
        line = line_of(in_language(document, language))
        self._lines.put(game.id, seated, deleted, language, line)
        return line

    def fresh_line(self, game_id: str, language: str = DEFAULT) -> str | None:
        """The game's export line made now from its stream, as ``exportReplay`` sends it (``None``: no such finished
        game).  Kept nowhere: what a kept line is compared with."""
        try:
            game = self.load(game_id)
        except NotFound:
            return None
        if game.status != "finished":
            return None
        return with_analysis(line_of(in_language(self.replay(game)[0], language)), self.analysis_of(game_id))

    def _kept_lines(self, game_ids: list[str], language: str) -> Iterator[str]:
        """The export lines of these games in this order, from the kept lines where they are still good (made with
        the deletions there are now), else made and kept now; each with its analysis, if one is done."""
        kept = self._lines.get_many(game_ids, language)
        seated = set().union(*(k.seated for k in kept.values())) if kept else set()
        deleted = self._players.deleted_among(seated) if seated else set()
        analysed = self._analyses.done_among(game_ids, VERSION)
        for game_id in game_ids:
            line = self._good(kept.get(game_id), deleted)
            if line is None:
                try:
                    game = self.load(game_id)
                except NotFound:
                    continue  # indexed, and gone from the store since
                if game.status != "finished":
                    continue
                line = self.keep_line(game, language)
            yield with_analysis(line, self.analysis_of(game_id) if game_id in analysed else None)

    @staticmethod
    def _good(kept: Kept | None, deleted: set[str]) -> str | None:
        if kept is None or kept.packed is None or kept.deleted != kept.seated & deleted:
            return None
        return kept.line()

    def set_hidden(self, player_id: str, hidden: bool) -> None:
        self._store.set_hidden(player_id, hidden)

    def hidden(self, player_id: str) -> bool:
        return self._store.hidden(player_id)

    # --- queries ------------------------------------------------------------------------------

    def owner(self, ref: str, viewer: str | None) -> tuple[Player, bool]:
        """The player ``ref`` names, and whether the viewer may see their archive (not hidden, or their own)."""
        player = self.find(ref)
        return player, viewer == player.id or not self._store.hidden(player.id)

    def resolve_opponent(self, ref: str | None) -> str | None:
        """The player id an ``opponent`` filter names (by id or handle); nobody by that name is refused."""
        if ref is None:
            return None
        try:
            return self.find(ref).id
        except NotFound:
            raise Refused("invalid_request", f"There is no player {ref!r} to filter by.", field="opponent") from None

    def entries(self, player_id: str, filters: Filters, after: Cursor | None = None) -> Iterator[Entry]:
        """The player's archive newest first, after ``after``, as ``filters`` keep it (read a chunk at a time)."""
        found = self._store.entries(player_id, since=filters.since, until=filters.until, after=after)
        while True:
            chunk = [entry for _, entry in zip(range(CHUNK), found, strict=False)]
            if not chunk:
                return
            done = set()
            if filters.analysed is not None:
                done = self._analyses.done_among([e.game_id for e in chunk], VERSION)
            yield from (e for e in chunk if filters.keeps(e, player_id, e.game_id in done))

    def page(self, ref: str, viewer: str | None, filters: Filters, limit: int, cursor: str | None) -> dict[str, Any]:
        """A page of the archive of the player ``ref`` names, as ``listPlayerGames`` answers it."""
        after = parse_cursor(cursor)
        player, visible = self.owner(ref, viewer)
        limit = max(1, min(limit, MAX_PAGE))
        taken: list[Entry] = []
        if visible:
            for entry in self.entries(player.id, filters, after):
                taken.append(entry)
                if len(taken) > limit:
                    break
        shown = taken[:limit]
        return {
            "player_id": player.id,
            "games": self.render(shown, player.id),
            "next_cursor": cursor_of(shown[-1]) if len(taken) > limit else None,
        }

    def render(self, entries: list[Entry], player_id: str) -> list[dict[str, Any]]:
        """Entries as the API shows them, from ``player_id``'s archive: seats with places and ratings before and after,
        deleted accounts' names erased, links to the replay and its viewer."""
        seated = set().union(*(e.players for e in entries)) if entries else set()
        tags = self._players.tags(seated) if seated else {}
        applied: dict[str, Any] = {}
        for ladder in {ladder_of(e.variant == "advanced") for e in entries if e.rated}:
            wanted = [e.game_id for e in entries if e.rated and ladder_of(e.variant == "advanced") == ladder]
            applied.update(self._ratings.games(ladder, wanted))
        out = []
        for entry in entries:
            game = applied.get(entry.game_id)
            seats = []
            for n, seat in enumerate(entry.seats):
                tag = tags.get(seat.player_id) if seat.player_id else None
                deleted = tag is not None and tag.deleted
                rated_as = seat.player_id or AI_PREFIX + (seat.level or "random")
                before = game.before.get(rated_as) if game is not None else None
                after = game.after.get(rated_as) if game is not None else None
                seats.append(
                    {
                        "seat": n,
                        "player_id": seat.player_id,
                        "name": DELETED_NAME if deleted else seat.name,
                        "handle": None if tag is None or deleted else tag.handle,
                        "kind": seat.kind,
                        "level": seat.level,
                        "resigned": seat.resigned,
                        "place": entry.places[n],
                        "rating_before": before.rating.shown if before is not None else None,
                        "rating_after": after.rating.shown if after is not None else None,
                    }
                )
            mine = entry.seat_of(player_id)
            out.append(
                {
                    **summary(entry),
                    "seat": mine,
                    "place": entry.places[mine] if mine is not None else None,
                    "result": "won" if entry.won_by(player_id) else "lost",
                    "seats": seats,
                    "replay_url": f"/v1/games/{entry.game_id}/replay",
                    "view_url": f"/v1/games/{entry.game_id}/replay/view",
                }
            )
        return out

    def export(
        self, ref: str, viewer: str | None, filters: Filters, limit: int | None = None, language: str = DEFAULT
    ) -> Iterator[str]:
        """The archive of the player ``ref`` names as replays, newest first, a line each in ``language`` (what
        ``exportPlayerGames`` streams).  The player is looked up now (a 404 is answered before the first line); the
        lines come :data:`LINE_BATCH` games at a time, kept compressed, so a process holds a few whatever the count."""
        player, visible = self.owner(ref, viewer)
        return self._export_lines(player.id if visible else None, filters, limit, language)

    def _export_lines(self, player_id: str | None, filters: Filters, limit: int | None, language: str) -> Iterator[str]:
        if player_id is None:
            return
        left = limit
        found = self.entries(player_id, filters)
        while left is None or left > 0:
            size = LINE_BATCH if left is None else min(left, LINE_BATCH)
            batch = [entry.game_id for _, entry in zip(range(size), found, strict=False)]
            if not batch:
                return
            for line in self._kept_lines(batch, language):
                if left is not None:
                    left -= 1
                yield line

    # --- the operator's --------------------------------------------------------------------------

    def month(self, month: str) -> Iterator[str]:
        """Every finished game of ``YYYY-MM`` (UTC, by when it finished), oldest first, a replay a line: the month's
        database, as ``red7 archive dump`` writes it.  Reads every stream's id and folds each game (an operator's
        command, not a request's); holds the month's ids, one replay at a time."""
        start, end = month_bounds(month)
        found: list[tuple[int, str]] = []
        for game_id in self.game_ids():
            entry = self._entry(game_id)
            if entry is not None and start <= entry.finished_ms <= end:
                found.append((entry.finished_ms, game_id))
        for start in range(0, len(found), LINE_BATCH):
            yield from self._kept_lines([game_id for _, game_id in sorted(found)[start : start + LINE_BATCH]], DEFAULT)

    def _entry(self, game_id: str) -> Entry | None:
        try:
            return entry_of(self.load(game_id))
        except Refused:
            return None  # gone meanwhile

    def rebuild(self, *, write: bool = False) -> Rebuilt:
        """Make every player's archive again from the streams and compare it with the stored one (``write``: store
        the rebuilt one in place of one that differs).  Deleted accounts have none."""
        report = Rebuilt()
        rebuilt: dict[str, dict[str, Entry]] = {}
        for game_id in sorted(self.game_ids()):
            entry = self._entry(game_id)
            if entry is None:
                continue
            report.games += 1
            for player_id in entry.players:
                rebuilt.setdefault(player_id, {})[game_id] = entry
        people = set(rebuilt) | set(self._store.players())
        gone = self._players.deleted_among(people)
        for player_id in sorted(people):
            entries = {} if player_id in gone else rebuilt.get(player_id, {})
            report.players += 1
            if {g: e.to_text() for g, e in sorted(entries.items())} == self._store.export(player_id):
                continue
            report.different.append(player_id)
            if write:
                self._store.replace(player_id, entries)
                report.written.append(player_id)
        self._rebuild_lines(report, write=write)
        return report

    def _rebuild_lines(self, report: Rebuilt, *, write: bool) -> None:
        """Make every finished game's kept lines again (in each language kept, the default one always) and compare
        (``write``: keep the line made where the kept one differs or is missing).  A game gone from the streams has
        its lines dropped when writing."""
        finished = set()
        for game_id in sorted(self.game_ids()):
            try:
                game = self.load(game_id)
            except NotFound:
                continue
            if entry_of(game) is None:
                continue
            finished.add(game_id)
            document, seated, deleted = self.replay(game)
            languages = sorted({DEFAULT, *self._lines.languages(game_id)})
            for language in languages:
                report.lines += 1
                made = line_of(in_language(document, language))
                kept = self._lines.get_many([game_id], language).get(game_id)
                if kept is None or kept.packed is None:
                    report.lines_missing.append(f"{game_id}:{language}")
                elif kept.line() != made or kept.seated != frozenset(seated) or kept.deleted != deleted:
                    report.lines_different.append(f"{game_id}:{language}")
                else:
                    continue
                if write:
                    self._lines.put(game_id, seated, deleted, language, made)
                    report.lines_written += 1
        stray = [game_id for game_id in self._lines.games() if game_id not in finished]
        report.lines_different += [f"{game_id}:*" for game_id in stray]
        if write:
            self._lines.drop(stray)
