"""Who sits with whom in a round: Swiss by score and round robin by a fixed schedule — pure functions of the field.

**Swiss.**  The players come ranked (by points, or first by the duplicate score in a duplicate tournament, then
rating, then order of entry: the caller's standing, ``standings.swiss_order``) and sit
with their neighbours in that order, at tables of the tournament's size, with nobody meeting anyone they met
before where that can be avoided.  A field that does not fill its tables is treated by the organiser's rule:

- ``ai_seat``: ``ceil(n / size)`` tables; the empty seats are AI seats, spread one a table from the bottom table up
  (so no table has two AI seats while another has none);
- ``bye``: ``n // size`` full tables; the ``n % size`` players left over have a bye, chosen as the lowest-ranked who
  have had the fewest byes.  A field smaller than a table plays one short table.

The tables are found by a depth-first search over the ranked players: each table is opened by the highest-ranked
player not yet seated, who takes a table of a size still to fill, and is completed by later players, those who add
no repeat meeting first, each in rank order (so the first path tried is the plain "neighbours" pairing).  The
search runs with a number of repeat meetings allowed, 0 first, then 1, 2 …, each with a budget of steps
(:data:`SEARCH_BUDGET`, and :data:`SEARCH_TOTAL` for all levels together); a level searched to its end without a
pairing proves that fewer repeats are impossible, so the pairing returned is proven to have the fewest repeat
meetings possible whenever every lower level was searched to its end (``Pairing.optimal``) — always on small fields
(tested against a brute force on fields of up to 10 players).  On a large field where a level runs out of budget,
the search stops there and takes its first path with any repeats allowed (the neighbours pairing, each seat taking
a player who adds no repeat where one is left), bettered by swaps between the nearest tables while a swap lowers
the repeats; ``optimal`` says which.

**Round robin.**  Groups are drawn by rating, snake-wise (group sizes differ by at most one; a group short of its
size has empty slots), and every group plays a schedule in which every pair meets exactly once per cycle:

- tables of 2: the circle method (Berger tables), ``g - 1`` rounds for a group of even size ``g``, ``g`` for an odd
  one (an empty slot added); in every other cycle the two seats are swapped;
- tables of 3 or 4, a group of the table's size: the whole group at one table each round, seats turned by one;
- tables of 3 or 4, a group of the size's square (9 or 16): the affine plane AG(2, q) of order ``q`` = the table
  size, its points numbered ``x * q + y``; round ``i`` of a cycle is the parallel class of slope ``i`` (lines
  ``y = i·x + b``), the last round the class ``x = b``: ``q + 1`` rounds of ``q`` tables, each pair on exactly one line.

A slot that nobody fills (an empty slot, or a withdrawn player's) is an AI seat under ``ai_seat``; under ``bye`` its
table plays without it when two or more players remain there, and a player left alone has a bye.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from service.domain.tournaments.settings import rounds_per_meeting

T = TypeVar("T")

#: The steps one level of the Swiss search may take before it gives up proving that level impossible.
SEARCH_BUDGET = 20_000
#: The steps every level of the Swiss search may take together.
SEARCH_TOTAL = 80_000


@dataclass(frozen=True, slots=True)
class Pairing:
    """A round's tables (players in rank order, ``None`` for an AI seat), its byes, the repeat meetings it makes,
    and whether that number is proven the fewest possible (the module says when)."""

    tables: list[list[str | None]]
    byes: list[str]
    repeats: int
    optimal: bool


def capacities(players: int, size: int, odd_rule: str) -> tuple[list[int], int]:
    """How many players each table seats, top table first, and how many byes, for a field of ``players``."""
    if players < 2:
        return [], players
    if players <= size:
        return [players], 0
    if odd_rule == "bye":
        return [size] * (players // size), players % size
    tables = math.ceil(players / size)
    ai = tables * size - players
    return [size - ai // tables - (1 if t >= tables - ai % tables else 0) for t in range(tables)], 0


def swiss(
    ranked: Sequence[str],
    met: Mapping[str, Collection[str]],
    byes_had: Mapping[str, int],
    size: int,
    odd_rule: str,
    *,
    budget: int = SEARCH_BUDGET,
) -> Pairing:
    """A Swiss round for ``ranked`` (best first) who have met ``met`` (each player's opponents so far) and had
    ``byes_had`` byes, at tables of ``size`` under ``odd_rule`` (the module states the rules)."""
    caps, bye_count = capacities(len(ranked), size, odd_rule)
    rank = {player: n for n, player in enumerate(ranked)}
    byes = sorted(ranked, key=lambda p: (byes_had.get(p, 0), -rank[p]))[:bye_count]
    resting = set(byes)
    playing = [p for p in ranked if p not in resting]
    index = {player: n for n, player in enumerate(playing)}
    opponents = [{index[o] for o in met.get(p, ()) if o in index} for p in playing]
    found, optimal = None, True
    left = max(budget, SEARCH_TOTAL)
    for allowed in range(sum(cap * (cap - 1) // 2 for cap in caps) + 1):
        search = _Search(len(playing), caps, opponents, allowed, min(budget, left))
        found = search.run()
        left -= search.steps
        if found is not None or search.out_of_budget:
            optimal = found is not None
            break
    if found is None:
        optimal, found = False, _Search(len(playing), caps, opponents, len(playing) * size, budget=None).run()
        assert found is not None, "with every repeat allowed, the first path fills every table"
    if not optimal:
        found = _repair(found, opponents)
    repeats = sum(_cost(p, table, opponents) for table in found for p in table) // 2
    return _pairing(playing, found, byes, size, odd_rule, repeats, optimal)


def _cost(player: int, table: Sequence[int], met: list[set[int]]) -> int:
    """How many others at ``table`` ``player`` has met."""
    return sum(1 for other in table if other != player and other in met[player])


def _repair(tables: list[list[int]], met: list[set[int]]) -> list[list[int]]:
    """A pairing the search could not prove best, bettered by swaps: a player who meets someone again at their table
    changes places with a player of the nearest table for whom the swap lowers the repeats, until no swap does."""
    better = True
    while better:
        better = False
        for a, here in enumerate(tables):
            for x in [p for p in here if _cost(p, here, met)]:
                for b in sorted(range(len(tables)), key=lambda b: abs(b - a)):
                    there = tables[b]
                    if b == a or x not in here:
                        continue
                    rest_here, now_x = [p for p in here if p != x], _cost(x, here, met)
                    for y in list(there):
                        rest_there = [p for p in there if p != y]
                        before = now_x + _cost(y, there, met)
                        after = _cost(y, [*rest_here, y], met) + _cost(x, [*rest_there, x], met)
                        if after < before:
                            here[:], there[:] = sorted([*rest_here, y]), sorted([*rest_there, x])
                            better = True
                            break
                    if x not in here:
                        break
    return tables


def _pairing(
    playing: list[str], found: list[list[int]], byes: list[str], size: int, odd_rule: str, repeats: int, optimal: bool
) -> Pairing:
    tables: list[list[str | None]] = []
    for table in found:
        seats: list[str | None] = [playing[n] for n in table]
        if odd_rule == "ai_seat":
            seats += [None] * (size - len(table))
        tables.append(seats)
    return Pairing(tables, byes, repeats, optimal)


def repeat_meetings(tables: Sequence[Sequence[str | None]], met: Mapping[str, Collection[str]]) -> int:
    """How many pairs at ``tables`` have met before (the number the Swiss search keeps as low as it can)."""
    count = 0
    for table in tables:
        players = [p for p in table if p is not None]
        count += sum(1 for n, a in enumerate(players) for b in players[n + 1 :] if b in met.get(a, ()))
    return count


class _Search:
    """The depth-first search of :func:`swiss` at one level of repeats allowed, on an explicit stack (a field of a
    thousand is deeper than Python's recursion)."""

    def __init__(self, n: int, caps: list[int], met: list[set[int]], allowed: int, budget: int | None) -> None:
        self.n, self.met, self.allowed, self.budget = n, met, allowed, budget
        self.caps: dict[int, int] = {}
        for cap in caps:
            self.caps[cap] = self.caps.get(cap, 0) + 1
        self.free = list(range(n))  # the players not seated, in rank order
        self.tables: list[list[int]] = []
        self.sizes: list[int] = []
        self.repeats = 0
        self.out_of_budget = False
        self.steps = 0

    def run(self) -> list[list[int]] | None:
        if self.n == 0:
            return []
        stack: list[tuple[Iterator[tuple[str, int, int]], list[tuple[str, int, int]]]] = [(self._options(), [])]
        while stack:
            options, applied = stack[-1]
            if applied:
                self._undo(applied.pop())
            option = next(options, None)
            if option is None:
                stack.pop()
                continue
            self.steps += 1
            if self.budget is not None and self.steps > self.budget:
                self.out_of_budget = True
                return None
            self._do(option)
            applied.append(option)
            if not self.free:
                return [list(table) for table in self.tables]
            stack.append((self._options(), []))
        return None

    def _options(self) -> Iterator[tuple[str, int, int]]:
        """What the next step may do: open a table (for the best free player, of a size still to fill) or add a
        player to the open one."""
        if self.tables and len(self.tables[-1]) < self.sizes[-1]:
            return self._members(self.tables[-1], self.sizes[-1] - len(self.tables[-1]))
        return iter([("open", cap, 0) for cap in sorted((c for c, left in self.caps.items() if left), reverse=True)])

    def _members(self, table: list[int], need: int) -> Iterator[tuple[str, int, int]]:
        candidates = self.free[bisect_left(self.free, table[-1] + 1) :]
        later: list[tuple[str, int, int]] = []
        for position, player in enumerate(candidates):
            if len(candidates) - position < need:
                break  # too few players after this one to fill the table
            added = sum(1 for member in table if player in self.met[member])
            if not added:
                yield ("add", player, 0)
            elif self.repeats + added <= self.allowed:
                later.append(("add", player, added))
        later.sort(key=lambda option: option[2])
        yield from later

    def _do(self, option: tuple[str, int, int]) -> None:
        kind, value, added = option
        if kind == "open":
            head = self.free.pop(0)
            self.tables.append([head])
            self.sizes.append(value)
            self.caps[value] -= 1
        else:
            self.free.pop(bisect_left(self.free, value))
            self.tables[-1].append(value)
            self.repeats += added

    def _undo(self, option: tuple[str, int, int]) -> None:
        kind, value, added = option
        if kind == "open":
            self.free.insert(0, self.tables.pop()[0])
            self.sizes.pop()
            self.caps[value] += 1
        else:
            insort(self.free, self.tables[-1].pop())
            self.repeats -= added


# --- round robin ---------------------------------------------------------------------------


def draw_groups(ranked: Sequence[str], group_size: int) -> list[list[str | None]]:
    """Groups of ``group_size`` slots drawn snake-wise from ``ranked`` (best first); slots nobody fills are ``None``."""
    count = max(1, math.ceil(len(ranked) / group_size))
    groups: list[list[str | None]] = [[] for _ in range(count)]
    for n, player in enumerate(ranked):
        row, column = divmod(n, count)
        groups[column if row % 2 == 0 else count - 1 - column].append(player)
    return [group + [None] * (group_size - len(group)) for group in groups]


def group_tables(slots: Sequence[T], size: int, round_index: int) -> list[list[T | None]]:
    """The tables of a group's round ``round_index`` (0 is the first) under the schedule the module states."""
    g = len(slots)
    meeting, i = divmod(round_index, rounds_per_meeting(g, size))
    if size == 2:
        return [[slots[a] if a < g else None, slots[b] if b < g else None][:: -1 if meeting % 2 else 1] for a, b in _circle(g, i)]
    if g == size:
        turn = round_index % size
        turned: list[T | None] = [*slots[turn:], *slots[:turn]]
        return [turned]
    return [[slots[point] for point in line] for line in _parallel_class(size, i)]


def _circle(g: int, i: int) -> list[tuple[int, int]]:
    """Round ``i`` of the circle method for ``g`` slots (an odd ``g`` gains slot ``g``, nobody's): slot 0 stays, the
    others turn one place a round; the first meets the last, the second the last but one …"""
    n = g + g % 2
    others = list(range(1, n))
    turned = others[len(others) - i :] + others[: len(others) - i] if i else others
    ring = [0, *turned]
    return [(ring[j], ring[n - 1 - j]) for j in range(n // 2)]


_GF4_MUL = ((0, 0, 0, 0), (0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2))


def _parallel_class(q: int, i: int) -> list[list[int]]:
    """The lines of the affine plane of order ``q`` (3 or 4) in parallel class ``i``: slope ``i`` for ``i < q``
    (``y = i·x + b`` over the field of ``q`` elements), else the lines ``x = b``; a point ``(x, y)`` is ``x * q + y``."""
    if i == q:
        return [[b * q + y for y in range(q)] for b in range(q)]

    def line(b: int) -> list[int]:
        if q == 3:
            return [x * q + (i * x + b) % 3 for x in range(q)]
        return [x * q + (_GF4_MUL[i][x] ^ b) for x in range(q)]

    return [line(b) for b in range(q)]


def round_robin(
    groups: Sequence[Sequence[str | None]], size: int, round_number: int, active: Collection[str], odd_rule: str
) -> tuple[list[list[str | None]], list[str]]:
    """Round ``round_number`` (1 is the first) of every group's schedule: its tables and byes, a slot of a player
    not ``active`` (withdrawn) counted as empty (the module states what an empty slot does)."""
    tables: list[list[str | None]] = []
    byes: list[str] = []
    for group in groups:
        slots = [p if p is not None and p in active else None for p in group]
        for table in group_tables(slots, size, round_number - 1):
            players = [p for p in table if p is not None]
            if not players:
                continue
            if odd_rule == "ai_seat":
                tables.append(table)
            elif len(players) >= 2:
                tables.append(list(players))
            else:
                byes += players
    return tables, byes
