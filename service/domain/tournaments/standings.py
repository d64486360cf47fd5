"""Standings, computed from the rounds' tables and places on every read (never kept), with their tie-breaks.

**Points from places.**  A game's places are the engine's standing as the ladders take it
(:mod:`service.domain.ratings.results`: 1 is first; tied seats share the better place, 1, 2, 2, 4; a seat that
resigned or timed out is last).  A place is worth ``seats - place`` points at a table of ``seats``:

====== ===== ===== ===== =====
seats  1st   2nd   3rd   4th
====== ===== ===== ===== =====
2      1     0
3      2     1     0
4      3     2     1     0
====== ===== ===== ===== =====

so two seats tied for 2nd at a table of 4 both take 2nd's 2 points.  A bye is worth the mean of the table's points,
``(size - 1) / 2`` (½ at tables of 2, 1 at 3, 1½ at 4): neither a loss nor a win.  A game settled at a round's
deadline scores by the places it was settled with.

**Tie-breaks.**  Swiss: points, then Buchholz (the sum, over every game played, of each human opponent's points now),
then the number of first places, then the order of entry.  Round robin, within each group: points, then
head-to-head (among the players tied on points, 2 for each tied player placed behind you at a shared table and 1 for
each placed equal, summed over the games), then average place (lower first), then the order of entry.

**Duplicate.**  In a duplicate round every table of the same size is dealt the same cards, so a seat's hand is the
same at every such table (the whole game's in the basic game; in the advanced game its first deal's: later deals are
shuffled from the cards not scored, rule 23).  A player is compared with every other holder of the same seat (the
same seat number at a table of the same size) in the same round, AI seats included: 2 matchpoints for each holder
placed behind them, 1 for each placed equal, 0 for each placed ahead (as duplicate bridge scores a board).  The
round's score is the share of the top: ``mp / (2 * (n - 1))`` for ``n`` holders, from 0 to 1; a seat nobody else
held, or a bye, scores ½ (an average).  A player's duplicate score is the sum of their rounds' scores, and a
duplicate tournament ranks by it first, then by the standings above.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from service.domain.tournaments.tournament import Entrant, Tournament

HALF = Fraction(1, 2)


def points_for(place: int, seats: int) -> int:
    """The points a place earns at a table of ``seats`` (the module's table)."""
    return seats - place


def bye_points(size: int) -> Fraction:
    """What a bye earns at tables of ``size``: the mean of the table's points."""
    return Fraction(size - 1, 2)


@dataclass(frozen=True, slots=True)
class Played:
    """One seat's game with places: who held it (``None``: an AI), the place, the seats at the table, the others."""

    round: int
    game_id: str
    seat: int
    player: str | None
    place: int
    seats: int
    others: tuple[tuple[str | None, int], ...]  # (holder, place) of every other seat


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's line: points and every tie-break, the duplicate score (``None`` unless the tournament is
    duplicate), the place (1 is first) and whether they withdrew."""

    player_id: str
    name: str
    points: Fraction
    games: int
    byes: int
    firsts: int
    buchholz: Fraction
    head_to_head: int
    average_place: Fraction | None
    duplicate: Fraction | None
    withdrawn: str | None
    rank: int = 0


def games(t: Tournament) -> list[Played]:
    """Every seat of every game with places, round by round."""
    played = []
    for rnd in t.rounds:
        for table in rnd.tables:
            places = rnd.results.get(table.game_id)
            if places is None:
                continue
            seats = len(table.seats)
            for seat, holder in enumerate(table.seats):
                others = tuple((table.seats[o], places[o]) for o in range(seats) if o != seat)
                played.append(Played(rnd.number, table.game_id, seat, holder, places[seat], seats, others))
    return played


def points(t: Tournament) -> dict[str, Fraction]:
    """Each entrant's points so far (games with places and byes)."""
    total = {player: Fraction(0) for player in t.entrants}
    for game in games(t):
        if game.player is not None:
            total[game.player] += points_for(game.place, game.seats)
    for rnd in t.rounds:
        for player in rnd.byes:
            total[player] += bye_points(t.terms.table_size)
    return total


def met(t: Tournament) -> dict[str, set[str]]:
    """Each entrant's human opponents so far, at every table they were seated at (finished or not)."""
    opponents: dict[str, set[str]] = {player: set() for player in t.entrants}
    for rnd in t.rounds:
        for table in rnd.tables:
            for player in table.players:
                opponents[player].update(p for p in table.players if p != player)
    return opponents


def byes_had(t: Tournament) -> dict[str, int]:
    count: dict[str, int] = defaultdict(int)
    for rnd in t.rounds:
        for player in rnd.byes:
            count[player] += 1
    return dict(count)


def swiss_order(t: Tournament, players: Sequence[Entrant]) -> list[str]:
    """``players`` in the order a Swiss round pairs them: by what the standings rank by first (the duplicate score in
    a duplicate tournament, else points), then points, rating and order of entry.  Pairing by another score than the
    one ranked by would seat the leaders of the standings apart (docs/tournaments.md, "Duplicate deals")."""
    now = points(t)
    dup = duplicate_scores(t) if t.terms.duplicate else {}
    return [e.player_id for e in sorted(players, key=lambda e: (-dup.get(e.player_id, 0), -now[e.player_id], -e.rating, e.order))]


def duplicate_scores(t: Tournament) -> dict[str, Fraction]:
    """Each entrant's duplicate score (the module states the formula), from the rounds' places."""
    score = {player: Fraction(0) for player in t.entrants}
    holders: dict[tuple[int, int, int], list[tuple[str | None, int]]] = defaultdict(list)
    for game in games(t):
        holders[(game.round, game.seats, game.seat)].append((game.player, game.place))
    for held in holders.values():
        for n, (player, place) in enumerate(held):
            if player is None:
                continue
            rivals = [other for m, (_, other) in enumerate(held) if m != n]
            if not rivals:
                score[player] += HALF
                continue
            mp = sum(2 if place < other else 1 if place == other else 0 for other in rivals)
            score[player] += Fraction(mp, 2 * len(rivals))
    for rnd in t.rounds:
        for player in rnd.byes:
            score[player] += HALF
    return score


def standings(t: Tournament) -> list[Standing]:
    """The standings of a Swiss tournament, or of a round robin's whole field (ranked within each group by
    :func:`group_standings`; here groups one after the other), best first."""
    if t.groups:
        return [line for group in group_standings(t) for line in group]
    return _ranked(t, list(t.entrants), _Facts.of(t), with_buchholz=True)


def group_standings(t: Tournament) -> list[list[Standing]]:
    """Each round-robin group's standings, best first."""
    facts = _Facts.of(t)  # once for every group: a field of thousands has thousands of groups
    return [_ranked(t, [p for p in group if p is not None], facts, with_buchholz=False) for group in t.groups]


@dataclass(frozen=True, slots=True)
class _Facts:
    """What every line of the standings reads: points, duplicate scores, each player's games and byes."""

    points: dict[str, Fraction]
    duplicate: dict[str, Fraction] | None
    games: dict[str, list[Played]]
    byes: dict[str, int]

    @staticmethod
    def of(t: Tournament) -> _Facts:
        mine: dict[str, list[Played]] = defaultdict(list)
        for game in games(t):
            if game.player is not None:
                mine[game.player].append(game)
        return _Facts(points(t), duplicate_scores(t) if t.terms.duplicate else None, mine, byes_had(t))


def _ranked(t: Tournament, players: list[str], facts: _Facts, *, with_buchholz: bool) -> list[Standing]:
    now, dup = facts.points, facts.duplicate
    lines = []
    for player in players:
        entrant, own = t.entrants[player], facts.games.get(player, [])
        buchholz = sum((now[o] for g in own for o, _ in g.others if o is not None), Fraction(0)) if with_buchholz else Fraction(0)
        tied = set() if with_buchholz else {p for p in players if now[p] == now[player] and p != player}
        h2h = sum(2 if g.place < place else 1 if g.place == place else 0 for g in own for o, place in g.others if o in tied)
        average = Fraction(sum(g.place for g in own), len(own)) if own else None
        lines.append(
            Standing(
                player,
                entrant.name,
                now[player],
                len(own),
                facts.byes.get(player, 0),
                sum(1 for g in own if g.place == 1),
                buchholz,
                h2h,
                average,
                None if dup is None else dup[player],
                entrant.withdrawn,
            )
        )

    def key(line: Standing) -> tuple[object, ...]:
        first = (-(line.duplicate or 0),) if dup is not None else ()
        tail = (-line.buchholz, -line.firsts) if with_buchholz else (-line.head_to_head, line.average_place or 5)
        return (*first, -line.points, *tail, t.entrants[line.player_id].order)

    ordered = sorted(lines, key=key)
    return [replace(line, rank=n + 1) for n, line in enumerate(ordered)]
