"""A ladder as a fold of its finished rated games, in the order they finished: the rebuild, the benchmarks, and the
shape of what is stored.

A game may be applied after games that finished later (its job ran late): :func:`insert` rewinds their players'
forms to before the first of them, applies it, and applies them again on top, so that a ladder is the same fold
whatever order its games arrive in.  The storage layer (:mod:`service.storage.ratings`) does the same game by game
in Redis; :class:`Ladder` is that fold in memory, in the same words and bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.domain.ratings.counting import RULES, Applied, Form, PairLog, Rules, apply, established
from service.domain.ratings.model import NEW, Rating, text
from service.domain.ratings.results import Placing, Result


@dataclass(slots=True)
class Record:
    """A player's standing on a ladder: their rating, how many games moved it, their record (played, won, the sum of
    their places; the same by number of players), and the name of their last rated game."""

    name: str = ""
    rating: Rating = NEW
    played: int = 0
    won: int = 0
    places: int = 0
    by_players: dict[int, list[int]] = field(default_factory=dict)  # players -> [played, won, places]
    counted: int = 0  # games that moved the rating (:class:`Form`)

    @property
    def form(self) -> Form:
        return Form(self.rating, self.counted)

    def count(self, placing: Placing, players: int) -> None:
        self.played += 1
        self.won += placing.place == 1
        self.places += placing.place
        mine = self.by_players.setdefault(players, [0, 0, 0])
        mine[0] += 1
        mine[1] += placing.place == 1
        mine[2] += placing.place

    def to_text(self) -> str:
        """The stored form (canonical JSON: the same record is the same bytes)."""
        return json.dumps(
            {
                "name": self.name,
                "mu": text(self.rating.mu),
                "sigma": text(self.rating.sigma),
                "counted": self.counted,
                "played": self.played,
                "won": self.won,
                "places": self.places,
                "by_players": {str(n): counts for n, counts in sorted(self.by_players.items())},
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @classmethod
    def from_text(cls, stored: str) -> Record:
        data = json.loads(stored)
        return cls(
            data["name"],
            Rating(float(data["mu"]), float(data["sigma"])),
            data["played"],
            data["won"],
            data["places"],
            {int(n): list(counts) for n, counts in data["by_players"].items()},
            data.get("counted", 0),  # a ladder stored before the rules: ``red7 ratings rebuild --write`` brings it
        )


def insert(
    result: Result,
    records: Mapping[str, Record],
    later: Sequence[Applied] = (),
    log: PairLog | None = None,
    rules: Rules = RULES,
) -> tuple[list[Applied], dict[str, Record]]:
    """``result`` folded into a ladder whose players' records are ``records`` (absent: new), where ``later`` are the
    games already applied that finished after it, in the order they finished, and ``log`` holds the games that
    counted between pairs of people in the window before ``result`` (and none of ``later``'s: they are applied
    again).  ``log`` is added to as the games are applied.

    The fold is in the order games finished, whatever the order their jobs ran in: the forms of ``later``'s
    players go back to what they were before the first of them, ``result`` is applied, and ``later`` is applied
    again on top (their places stand; their ratings before and after, and which of their results count, may
    change).  Usually ``later`` is empty.  Returns the games to store — ``result``, then each of ``later`` as
    applied again — and the record of every player they touch.
    """
    log = log if log is not None else PairLog(rules.pair_window_ms)
    players = dict.fromkeys([*result.players, *(p for applied in later for p in applied.result.players)])
    mine = {p: Record.from_text(records[p].to_text()) if p in records else Record() for p in players}
    rewound: set[str] = set()
    for applied in later:
        for player in applied.result.players:
            if player not in rewound:
                mine[player].rating = applied.before[player].rating
                mine[player].counted = applied.before[player].counted
                rewound.add(player)
    out = []
    for game in (result, *(applied.result for applied in later)):
        applied = apply(game, {p: mine[p].form for p in game.players}, log, rules)
        log.add(applied)
        for player, form in applied.after.items():
            mine[player].rating, mine[player].counted = form.rating, form.counted
        out.append(applied)
    latest = {p for applied in later for p in applied.result.players}
    for placing in result.seats:  # the records count places, which no order changes
        mine[placing.player].count(placing, len(result.seats))
        if placing.player not in latest:  # the name of the player's last game in the fold's order
            mine[placing.player].name = placing.name
    return out, mine


def ranked(records: Mapping[str, Record], rules: Rules = RULES) -> dict[str, str]:
    """The players a ladder ranks (established), each with their μ as stored: what a leaderboard orders by."""
    return {p: text(r.rating.mu) for p, r in sorted(records.items()) if established(p, r.form, rules)}


@dataclass(slots=True)
class Ladder:
    """A ladder folded in memory: what Redis holds for it (:mod:`service.storage.ratings`), in the same words."""

    name: str
    records: dict[str, Record] = field(default_factory=dict)
    games: dict[str, Applied] = field(default_factory=dict)
    tail: tuple[int, str] = (0, "")  # the key of the last game in the fold's order
    rules: Rules = RULES
    log: PairLog = field(default_factory=PairLog)

    def __post_init__(self) -> None:
        self.log.window_ms = self.rules.pair_window_ms

    def add(self, result: Result) -> Applied:
        """Fold one more game, in its place among those folded (:func:`insert`)."""
        later: list[Applied] = []
        if self.games and result.key < self.tail:
            later = sorted((a for a in self.games.values() if a.result.key > result.key), key=lambda a: a.result.key)
        for applied in later:
            self.log.remove(applied)  # applied again, in :func:`insert`
        self.tail = max(self.tail, result.key)
        games, records = insert(result, self.records, later, self.log, self.rules)
        self.records.update(records)
        for applied in games:
            self.games[applied.result.game_id] = applied
        return games[0]

    def stored(self, hidden: Iterable[str] = ()) -> dict[str, Any]:
        """What the ladder's keys hold, as text (:func:`service.storage.ratings.RatingStore.export` reads the same
        shape): every player's record, every game applied and when it finished, the players it ranks, the leaderboard
        (those ranked but the ``hidden``: deleted accounts, banned players), each player's games."""
        played: dict[str, dict[str, str]] = {}
        for game_id, applied in self.games.items():
            for player in applied.result.players:
                played.setdefault(player, {})[game_id] = str(applied.result.finished_ms)
        ranks = ranked(self.records, self.rules)
        hide = set(hidden)
        return {
            "records": {p: r.to_text() for p, r in sorted(self.records.items())},
            "games": {g: a.to_text() for g, a in sorted(self.games.items())},
            "order": {g: str(a.result.finished_ms) for g, a in sorted(self.games.items())},
            "ranked": ranks,
            "board": {p: score for p, score in ranks.items() if p not in hide},
            "played": {p: dict(sorted(games.items())) for p, games in sorted(played.items())},
        }


def fold(results: Iterable[Result], rules: Rules = RULES) -> dict[str, Ladder]:
    """Every ladder from the results of finished rated games, each applied once, in the order they finished."""
    ladders: dict[str, Ladder] = {}
    seen: set[str] = set()
    for result in sorted(results, key=lambda r: r.key):
        if result.game_id in seen:
            continue
        seen.add(result.game_id)
        ladders.setdefault(result.ladder, Ladder(result.ladder, rules=rules)).add(result)
    return ladders
