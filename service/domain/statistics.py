"""Statistics across finished games (issue 40, item 5), as the service knows them (pure): what one finished game adds
to each of its players' counters and to everyone's, and how the counters read as the API shows them.

A statistic is a sum over finished games, so the projection keeps counters, and a game's share of them
(:func:`player_counts`, :func:`global_counts`) is a function of its events alone: folding the same streams gives the
same counters whatever order the games are counted in, which is what lets ``red7 stats rebuild`` find the stored
bytes again.  A game counts when it finished with a winner (the archive's rule, :func:`service.domain.archive.entry_of`):
waiting, called-off and aborted games count for nobody.

- **Rounds won by the rule in force**: each ``round_won`` names the winner and the rule they won under.
- **The card that won the round**: the winner's highest qualifying card under that rule (docs/rules.md: the most
  cards that count, then the highest of them breaks a tie), read from the palettes just before ``round_won``; a
  round won by the last seat standing with no card that counts has none (``-``).
- **By colour played**: the cards each seat played to its palette, by colour; the rules it set (cards to the
  canvas), by colour.
- **By seat, games and places**: the seat a player sat in (0 the first), their place (1 the winner) and whether
  they won (first, and not resigned: as their record counts it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.cards import Card, Color, cards_in
from engine.events import CardDiscarded, CardPlayed, RoundDealt, RoundWon
from engine.rules import qualifying_mask
from service.domain.archive import Entry, entry_of
from service.domain.game import Game, apply, decode, engine_event
from service.domain.lobby import LOBBY_TYPES

#: The colours as the API names them, strongest first (docs/rules.md 1).
COLOURS = tuple(str(c) for c in sorted(Color, reverse=True))
#: A round won with no card that counts.
NO_CARD = "-"


@dataclass(frozen=True, slots=True)
class Round:
    winner: int
    rule: str  # the colour's name
    card: str  # the winning card in notation ("R7"), or NO_CARD


@dataclass(frozen=True, slots=True)
class Facts:
    """A finished game reduced to what the statistics count."""

    entry: Entry
    rounds: tuple[Round, ...]
    played: tuple[tuple[str, ...], ...]  # per seat, the colour of each card played to the palette
    discarded: tuple[tuple[str, ...], ...]  # per seat, the colour of each card played to the canvas

    @property
    def game_id(self) -> str:
        return self.entry.game_id


def winning_card(palette: int, rule: Color) -> str:
    """The highest card of ``palette`` that counts under ``rule`` (``NO_CARD`` if none does)."""
    counted = cards_in(qualifying_mask(palette, rule))
    return str(counted[0]) if counted else NO_CARD


def facts_of(game_id: str, envelopes: Iterable[tuple[int, str]]) -> Facts | None:
    """The facts of a game from its stored envelopes (``None``: it did not finish with a winner)."""
    game = Game(game_id)
    rounds: list[Round] = []
    played: list[list[str]] = []
    discarded: list[list[str]] = []
    for number, payload in envelopes:
        data = decode(payload)
        if data["type"] not in LOBBY_TYPES:
            event = engine_event(data)
            if isinstance(event, RoundDealt) and not played:
                played = [[] for _ in event.palettes]
                discarded = [[] for _ in event.palettes]
            elif isinstance(event, RoundWon):
                palette = game.state.palettes[event.seat]
                rounds.append(Round(event.seat, str(event.rule), winning_card(palette, event.rule)))
            elif isinstance(event, CardPlayed):
                played[event.seat].append(str(Card(event.card).color))
            elif isinstance(event, CardDiscarded):
                discarded[event.seat].append(str(Card(event.card).color))
        apply(game, number, data)
        game.head = payload
    entry = entry_of(game)
    if entry is None:
        return None
    return Facts(entry, tuple(rounds), tuple(map(tuple, played)), tuple(map(tuple, discarded)))


def _add(counts: dict[str, int], field: str, by: int = 1) -> None:
    counts[field] = counts.get(field, 0) + by


def player_counts(facts: Facts, seat: int) -> dict[str, int]:
    """What the game adds to the counters of the player in ``seat``."""
    entry = facts.entry
    counts: dict[str, int] = {"games": 1, f"place:{entry.places[seat]}": 1, f"seat:{seat}:games": 1}
    _add(counts, f"players:{len(entry.seats)}:games")
    if seat == entry.winner and not entry.seats[seat].resigned:
        counts["won"] = 1
        counts[f"seat:{seat}:won"] = 1
        counts[f"players:{len(entry.seats)}:won"] = 1
    counts["rounds"] = len(facts.rounds)
    for won in facts.rounds:
        if won.winner == seat:
            _add(counts, "rounds_won")
            _add(counts, f"rule:{won.rule}")
    for colour in facts.played[seat] if seat < len(facts.played) else ():
        _add(counts, f"played:{colour}")
    for colour in facts.discarded[seat] if seat < len(facts.discarded) else ():
        _add(counts, f"canvas:{colour}")
    return counts


def group_of(entry: Entry) -> str:
    """The group of everyone's statistics a game counts in: its variant and player count (``basic:2``)."""
    return f"{entry.variant}:{len(entry.seats)}"


def global_counts(facts: Facts) -> dict[str, int]:
    """What the game adds to everyone's counters of its group (:func:`group_of`)."""
    counts: dict[str, int] = {"games": 1, "rounds": len(facts.rounds)}
    for won in facts.rounds:
        _add(counts, f"rule:{won.rule}")
        _add(counts, f"card:{won.card}")
    return counts


def seats_of(facts: Facts) -> dict[str, int]:
    """Each person seated (an account) and their seat (a person seated twice is counted in their first seat)."""
    seats: dict[str, int] = {}
    for n, seat in enumerate(facts.entry.seats):
        if seat.player_id and seat.player_id not in seats:
            seats[seat.player_id] = n
    return seats


def total(games: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Counters summed, as the projection sums them game by game."""
    out: dict[str, int] = {}
    for counts in games:
        for field, n in counts.items():
            _add(out, field, n)
    return out


def canonical(counts: Mapping[str, int], games: Iterable[str]) -> str:
    """A group of counters and the games counted in it as one text, the same for the same sums (a rebuild compares
    these)."""
    return json.dumps({"counts": dict(sorted(counts.items())), "games": sorted(games)}, separators=(",", ":"))


def _share(n: int, of: int) -> float:
    return round(100 * n / of, 1) if of else 0.0


def ranked(counts: Mapping[str, int], prefix: str, of: int) -> list[dict[str, object]]:
    """The counters named ``prefix:<key>`` as a list, the most common first (then by key), each with its share of
    ``of`` in percent (one decimal)."""
    found = [(k[len(prefix) + 1 :], n) for k, n in counts.items() if k.startswith(prefix + ":") and n]
    return [{"key": key, "count": n, "percent": _share(n, of)} for key, n in sorted(found, key=lambda kv: (-kv[1], kv[0]))]


def player_view(counts: Mapping[str, int]) -> dict[str, object]:
    """A player's counters as ``getPlayerStatistics`` shows them (without the accuracy trend)."""
    games, won = counts.get("games", 0), counts.get("won", 0)
    rounds_won = counts.get("rounds_won", 0)
    played = sum(counts.get(f"played:{c}", 0) for c in COLOURS)
    canvas = sum(counts.get(f"canvas:{c}", 0) for c in COLOURS)
    seats = []
    for seat in range(4):
        seat_games = counts.get(f"seat:{seat}:games", 0)
        if seat_games:
            seat_won = counts.get(f"seat:{seat}:won", 0)
            seats.append({"seat": seat, "games": seat_games, "won": seat_won, "percent": _share(seat_won, seat_games)})
    tables = []
    for players in (2, 3, 4):
        table_games = counts.get(f"players:{players}:games", 0)
        if table_games:
            table_won = counts.get(f"players:{players}:won", 0)
            tables.append({"players": players, "games": table_games, "won": table_won, "percent": _share(table_won, table_games)})
    return {
        "games": games,
        "won": won,
        "won_percent": _share(won, games),
        "places": [
            {"place": p, "count": counts.get(f"place:{p}", 0), "percent": _share(counts.get(f"place:{p}", 0), games)}
            for p in (1, 2, 3, 4)
        ],
        "seats": seats,
        "tables": tables,
        "rounds": counts.get("rounds", 0),
        "rounds_won": rounds_won,
        "rounds_won_by_rule": [
            {"rule": c, "count": counts.get(f"rule:{c}", 0), "percent": _share(counts.get(f"rule:{c}", 0), rounds_won)}
            for c in COLOURS
        ],
        "colours_played": [
            {
                "colour": c,
                "palette": counts.get(f"played:{c}", 0),
                "palette_percent": _share(counts.get(f"played:{c}", 0), played),
                "canvas": counts.get(f"canvas:{c}", 0),
                "canvas_percent": _share(counts.get(f"canvas:{c}", 0), canvas),
            }
            for c in COLOURS
        ],
    }


def group_view(group: str, counts: Mapping[str, int], cards: int = 10) -> dict[str, object]:
    """One group's counters as ``getGameStatistics`` shows them: the winning rules, the ``cards`` most common
    winning cards."""
    variant, players = group.split(":")
    rounds = counts.get("rounds", 0)
    return {
        "variant": variant,
        "players": int(players),
        "games": counts.get("games", 0),
        "rounds": rounds,
        "rules": [{"rule": r["key"], "count": r["count"], "percent": r["percent"]} for r in ranked(counts, "rule", rounds)],
        "cards": [
            {"card": r["key"], "count": r["count"], "percent": r["percent"]} for r in ranked(counts, "card", rounds)[:cards]
        ],
    }


#: Every group, in the order the API lists them.
GROUPS = tuple(f"{variant}:{players}" for variant in ("basic", "advanced") for players in (2, 3, 4))
