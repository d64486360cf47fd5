"""Tournament pairings on their own (service/domain/tournaments/pairing.py): Swiss seats everyone once with the
fewest repeat meetings a brute force finds on small fields; round robin's schedules make every pair of a group meet
exactly once per cycle."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.tournaments import draw_groups, group_tables, repeat_meetings, round_robin, swiss
from service.domain.tournaments.pairing import capacities
from service.domain.tournaments.settings import group_sizes, rounds_per_meeting


def partitions(players: Sequence[str], caps: Sequence[int]) -> Iterator[list[list[str]]]:
    """Every way to seat ``players`` at tables of the sizes ``caps`` (a multiset: tables of one size unordered)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for cap in sorted(set(caps)):
        left = list(caps)
        left.remove(cap)
        for others in itertools.combinations(rest, cap - 1):
            remaining = [p for p in rest if p not in others]
            for tail in partitions(remaining, left):
                yield [[head, *others], *tail]


def fewest_repeats(players: Sequence[str], caps: Sequence[int], met: dict[str, set[str]]) -> int:
    return min(repeat_meetings(tables, met) for tables in partitions(players, caps))


@st.composite
def fields(draw: st.DrawFn, most: int = 10) -> tuple[list[str], dict[str, set[str]], int, str]:
    """A small ranked field, who met whom (random, symmetric), a table size and an odd-count rule."""
    size = draw(st.sampled_from([2, 3, 4]))
    n = draw(st.integers(2, most))
    players = [f"p{i}" for i in range(n)]
    met: dict[str, set[str]] = {p: set() for p in players}
    pairs = list(itertools.combinations(players, 2))
    for a, b in draw(st.lists(st.sampled_from(pairs), max_size=len(pairs))) if pairs else []:
        met[a].add(b)
        met[b].add(a)
    return players, met, size, draw(st.sampled_from(["ai_seat", "bye"]))


@settings(max_examples=150, deadline=None)
@given(fields())
def test_swiss_seats_everyone_once_with_the_fewest_repeats_a_brute_force_finds(field):
    players, met, size, rule = field
    paired = swiss(players, met, {}, size, rule)
    seated = [p for table in paired.tables for p in table if p is not None] + paired.byes
    assert sorted(seated) == sorted(players)  # everyone once, at a table or with a bye
    caps, byes = capacities(len(players), size, rule)
    assert len(paired.byes) == byes
    assert sorted(len([p for p in t if p is not None]) for t in paired.tables) == sorted(caps)
    assert all(len(t) == size for t in paired.tables) or rule == "bye" or len(players) < size
    playing = [p for p in players if p not in paired.byes]
    assert paired.optimal  # small fields are searched to the end
    assert paired.repeats == repeat_meetings(paired.tables, met) == fewest_repeats(playing, caps, met)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.sampled_from([2, 3, 4]), st.sampled_from(["ai_seat", "bye"]))
def test_the_odd_count_rules_fill_tables_as_stated(n, size, rule):
    caps, byes = capacities(n, size, rule)
    assert sum(caps) + byes == n
    if n <= size:
        assert (caps, byes) == ([n], 0)
    elif rule == "bye":
        assert caps == [size] * (n // size) and byes == n % size
    else:
        assert len(caps) == -(-n // size) and max(caps) - min(caps) <= 1 and caps == sorted(caps, reverse=True)


def test_byes_go_to_the_lowest_ranked_who_had_the_fewest():
    players = ["a", "b", "c", "d", "e"]
    assert swiss(players, {}, {}, 2, "bye").byes == ["e"]
    assert swiss(players, {}, {"e": 1}, 2, "bye").byes == ["d"]
    assert sorted(swiss(players, {}, {"e": 1}, 3, "bye").byes) == ["c", "d"]


def test_the_first_path_is_the_neighbours_pairing_by_rank():
    players = [f"p{i}" for i in range(9)]
    assert swiss(players, {}, {}, 3, "ai_seat").tables == [players[0:3], players[3:6], players[6:9]]
    assert swiss(players[:7], {}, {}, 3, "ai_seat").tables == [players[0:3], [*players[3:5], None], [*players[5:7], None]]


def test_a_thousand_players_over_many_rounds_pair_without_repeats():
    players = [f"p{i:04}" for i in range(1000)]
    met: dict[str, set[str]] = {p: set() for p in players}
    for shift in range(6):
        ranked = players[shift * 7 :] + players[: shift * 7]
        paired = swiss(ranked, met, {}, 4, "ai_seat")
        assert paired.repeats == 0
        for table in paired.tables:
            for a, b in itertools.permutations([p for p in table if p is not None], 2):
                met[a].add(b)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_every_group_size_allowed_meets_every_pair_exactly_once_a_cycle(size):
    for g in group_sizes(size):
        cycle = rounds_per_meeting(g, size)
        met: Counter[frozenset[int]] = Counter()
        for round_index in range(2 * cycle):
            tables = group_tables(list(range(g)), size, round_index)
            seated = [p for table in tables for p in table if p is not None]
            assert len(seated) == len(set(seated)) == g  # everyone once a round
            assert all(len(table) == size for table in tables)
            for table in tables:
                met.update(frozenset(pair) for pair in itertools.combinations([p for p in table if p is not None], 2))
        assert set(met) == {frozenset(pair) for pair in itertools.combinations(range(g), 2)}
        assert set(met.values()) == {2}, (g, size)


def test_pairs_swap_seats_in_their_second_meeting():
    first = {tuple(t) for r in range(3) for t in group_tables([0, 1, 2, 3], 2, r)}
    second = {tuple(t) for r in range(3, 6) for t in group_tables([0, 1, 2, 3], 2, r)}
    assert second == {(b, a) for a, b in first}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.sampled_from([2, 3, 4, 5, 9, 16]))
def test_groups_are_drawn_snake_wise_and_differ_by_one_at_most(n, g):
    ranked = [f"p{i}" for i in range(n)]
    groups = draw_groups(ranked, g)
    sizes = [len([p for p in group if p is not None]) for group in groups]
    assert all(len(group) == g for group in groups) and max(sizes) - min(sizes) <= 1
    assert sorted(p for group in groups for p in group if p is not None) == sorted(ranked)
    assert [group[0] for group in groups] == ranked[: len(groups)]


def test_an_empty_slot_is_an_ai_seat_or_shortens_the_table_or_gives_a_bye():
    groups = [["a", "b", "c", None]]
    tables, byes = round_robin(groups, 4, 1, {"a", "b", "c"}, "ai_seat")
    assert tables == [["a", "b", "c", None]] and byes == []
    tables, byes = round_robin(groups, 4, 1, {"a", "b", "c"}, "bye")
    assert tables == [["a", "b", "c"]] and byes == []
    tables, byes = round_robin([["a", "b", "c"]], 2, 1, {"a", "b"}, "bye")  # c withdrew; a meets the empty slot
    assert sorted(p for t in tables for p in t if p) + byes == ["a", "b"]
    assert all(len(t) == 2 for t in tables)
