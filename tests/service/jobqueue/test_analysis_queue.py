"""The analyses' queue: players served in turn, a share each, leases that outlive no analyst (issue 34).

The properties are checked against the scripts themselves, on fakeredis and the real Redis: a batch asked for at once
is served round by round; a player who asks later is served within the next round, whatever others asked before; a
player never runs more than their share; nothing asked for is lost, whatever analysts take, finish, give back or die
with.  The production-shaped proof (a flood of one token's requests, another player's analysis, all-AI games beside)
is ``tests/faults/test_analysis_queue.py`` and ``bench/analysis_flood_bench.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.jobqueue.analysis_queue import LEASE_MS, AnalysisQueue, Taken

FEW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def queue(redis_pair, key_prefix):
    made = AnalysisQueue(redis_pair[1], key_prefix, per_player=1)
    yield made
    made.clear()


def test_a_player_who_asks_after_a_hundred_of_anothers_is_served_second(queue):
    for n in range(100):
        assert queue.push("p_flood", f"game:g_{n:03}", 1_000 + n)
    assert not queue.push("p_flood", "game:g_000", 5_000), "asked again: it keeps its place"
    assert queue.push("p_other", "game:g_mine", 9_000)
    served = []
    for _ in range(4):
        taken = queue.take("analyst-1", 10_000)
        assert taken is not None
        served.append((taken.player, taken.subject))
        queue.finish(taken, "analyst-1")
    assert served == [
        ("p_flood", "game:g_000"),
        ("p_other", "game:g_mine"),
        ("p_flood", "game:g_001"),
        ("p_flood", "game:g_002"),
    ]


def test_asking_one_at_a_time_jumps_no_round(queue):
    """A player who asks again each time theirs is served is served once a round, like one who asked for all at once."""
    for n in range(3):
        queue.push("p_batch", f"game:g_b{n}", 1_000 + n)
    queue.push("p_drip", "game:g_d0", 2_000)
    served = []
    for n in range(6):
        taken = queue.take("analyst", 3_000 + n)
        assert taken is not None
        queue.finish(taken, "analyst")
        served.append(taken.player)
        if taken.player == "p_drip" and served.count("p_drip") < 3:
            queue.push("p_drip", f"game:g_d{n + 1}", 3_000 + n)
    assert served == ["p_batch", "p_drip"] * 3


def test_a_player_runs_their_share_at_once_and_another_starts_beside_them(queue):
    for n in range(5):
        queue.push("p_flood", f"game:g_{n}", 1_000 + n)
    first = queue.take("analyst-1", 2_000)
    assert first == Taken("game:g_0", "p_flood")
    assert queue.take("analyst-2", 2_001) is None, "their share is running: the rest wait, however many analysts idle"
    queue.push("p_other", "replay:r_1", 2_002)
    assert queue.take("analyst-2", 2_003) == Taken("replay:r_1", "p_other"), "another player's starts at once"
    queue.finish(first, "analyst-1")
    assert queue.take("analyst-1", 2_004) == Taken("game:g_1", "p_flood")
    assert queue.running() == {"game:g_1": "p_flood", "replay:r_1": "p_other"}


def test_no_share_means_every_analyst_may_take_one_players(redis_pair, key_prefix):
    unlimited = AnalysisQueue(redis_pair[1], key_prefix, per_player=0)
    try:
        for n in range(3):
            unlimited.push("p", f"game:g_{n}", n)
        assert [unlimited.take(f"a{n}", 10) for n in range(3)] == [Taken(f"game:g_{n}", "p") for n in range(3)]
    finally:
        unlimited.clear()


def test_a_dead_analysts_lease_lapses_and_its_analysis_goes_back_in_its_round(queue):
    queue.push("p_a", "game:g_a1", 1_000)
    queue.push("p_a", "game:g_a2", 1_001)
    queue.push("p_b", "game:g_b1", 1_002)
    taken = queue.take("dies", 2_000)
    assert taken == Taken("game:g_a1", "p_a")
    assert queue.renew(taken, "dies", 2_000 + LEASE_MS // 2)
    assert queue.take("lives", 2_000 + LEASE_MS // 2 + 1) == Taken("game:g_b1", "p_b"), "p_a's share is held"
    queue.finish(Taken("game:g_b1", "p_b"), "lives")
    # Renewed until LEASE_MS / 2; nothing since: the lease lapses, and the analysis is taken again first (round 1).
    assert queue.take("lives", 2_000 + LEASE_MS) is None
    again = queue.take("lives", 2_000 + LEASE_MS // 2 + LEASE_MS + 1)
    assert again == Taken("game:g_a1", "p_a")
    assert not queue.renew(taken, "dies", 2_000 + 2 * LEASE_MS), "the dead one's lease is another's now"
    queue.finish(taken, "dies")  # a late finish of a lease it lost changes nothing
    assert queue.running() == {"game:g_a1": "p_a"}


def test_a_stopping_analyst_gives_its_analysis_back_ahead_of_later_ones(queue):
    queue.push("p_a", "game:g_1", 1_000)
    queue.push("p_a", "game:g_2", 1_001)
    taken = queue.take("stops", 2_000)
    queue.give_back(taken, "stops")
    assert queue.waiting() == [("p_a", "game:g_1"), ("p_a", "game:g_2")]
    assert queue.take("other", 2_001) == Taken("game:g_1", "p_a")


def test_one_subject_asked_for_by_two_players_runs_once(queue):
    queue.push("p_a", "game:g_same", 1_000)
    queue.push("p_b", "game:g_same", 1_001)
    assert queue.take("analyst-1", 2_000) == Taken("game:g_same", "p_a")
    assert queue.take("analyst-2", 2_001) == Taken("", "p_b"), "its twin is dropped while it runs"
    assert queue.waiting() == [] and queue.take("analyst-2", 2_002) is None


def test_a_running_analysis_renews_itself_into_a_queue_that_lost_its_data(queue):
    queue.push("p_a", "game:g_1", 1_000)
    taken = queue.take("analyst-1", 2_000)
    queue.clear()  # the queue's Redis came back empty
    assert queue.renew(taken, "analyst-1", 3_000), "its lease is written again"
    queue.push("p_a", "game:g_1", 1_000)  # the ticker puts back what the stores hold as asked for
    assert queue.take("analyst-2", 3_001) is None, "not taken twice: it runs, in p_a's share"
    queue.finish(taken, "analyst-1")
    # Taken once it is over, the analysis put back finds its result done (AnalysisService.run): nothing runs twice.
    assert queue.take("analyst-2", 3_002) == taken


# --- properties ---------------------------------------------------------------------------------------------------------

players = st.sampled_from(["p_a", "p_b", "p_c"])


@FEW
@given(st.lists(players, min_size=1, max_size=40))
def test_a_batch_is_served_round_by_round_each_players_in_the_order_asked(queue, askers):
    queue.clear()
    for n, player in enumerate(askers):
        queue.push(player, f"game:g_{n:03}", 1_000 + n)
    left, served = Counter(askers), Counter()
    order: dict[str, list[str]] = {}
    while (taken := queue.take("analyst", 5_000)) is not None:
        queue.finish(taken, "analyst")
        served[taken.player] += 1
        left[taken.player] -= 1
        order.setdefault(taken.player, []).append(taken.subject)
        waiting = [p for p in left if left[p] > 0]
        # No player still waiting is more than one analysis behind any other who is.
        assert not waiting or max(served[p] for p in waiting) - min(served[p] for p in waiting) <= 1, served
    assert served == Counter(askers)
    for player, subjects in order.items():
        assert subjects == sorted(subjects), f"{player}'s own in the order asked"


@FEW
@given(st.lists(st.one_of(players.map(lambda p: ("ask", p)), st.just(("serve", ""))), min_size=1, max_size=80))
def test_an_analysis_waits_for_no_more_rounds_than_its_player_has_analyses_ahead_of_it(queue, script):
    """Asked for with ``k`` of its player's analyses waiting ahead of it, an analysis waits for at most ``k + 2`` of
    each other player's: the rest of the round being served, and one a round for the ``k + 1`` rounds after.  So a
    player with nothing waiting is served before anyone else is served three times, whatever anyone asked before."""
    queue.clear()
    served: Counter[str] = Counter()
    waiting_of: Counter[str] = Counter()
    watched: dict[str, tuple[int, Counter[str]]] = {}  # waiting -> its player's ahead of it, who was served by then
    clock = 1_000
    for n, (op, player) in enumerate(script):
        clock += 1
        if op == "ask":
            name = f"game:g_{n:03}"
            queue.push(player, name, clock)
            watched[name] = (waiting_of[player], Counter(served))
            waiting_of[player] += 1
            continue
        taken = queue.take("analyst", clock)
        if taken is None:
            assert not +waiting_of
            continue
        queue.finish(taken, "analyst")
        served[taken.player] += 1
        waiting_of[taken.player] -= 1
        ahead, before = watched.pop(taken.subject)
        for other, count in served.items():
            if other != taken.player:
                assert count - before[other] <= ahead + 2, f"{other} served {count - before[other]} times before {taken}"


@FEW
@given(
    st.lists(
        st.one_of(
            players.map(lambda p: ("ask", p)),
            st.sampled_from(["take", "finish", "give_back", "renew"]).flatmap(
                lambda op: st.sampled_from(["a1", "a2", "a3"]).map(lambda a: (op, a))
            ),
            st.just(("die", "")),
        ),
        min_size=1,
        max_size=80,
    )
)
def test_no_share_is_exceeded_nothing_runs_twice_and_nothing_asked_for_is_lost(queue, script):
    queue.clear()
    clock = 1_000
    holding: dict[str, Taken] = {}  # analyst -> what it runs, as it believes
    asked, finished = set(), set()
    for n, (op, who) in enumerate(script):
        clock += 10
        if op == "ask":
            name = f"game:g_{n:03}"
            queue.push(who, name, clock)
            asked.add(name)
        elif op == "take" and who not in holding:
            taken = queue.take(who, clock)
            if taken is not None and taken.subject:
                holding[who] = taken
        elif op == "finish" and who in holding:
            taken = holding.pop(who)
            if queue.renew(taken, who, clock):  # still its own: it finished it
                queue.finish(taken, who)
                finished.add(taken.subject)
        elif op == "give_back" and who in holding:
            queue.give_back(holding.pop(who), who)
        elif op == "renew" and who in holding and not queue.renew(holding[who], who, clock):
            del holding[who]  # taken over: it stops
        elif op == "die":
            clock += LEASE_MS + 1  # every analyst's lease lapses; they are gone
            holding.clear()
        running = queue.running()
        per_player = Counter(running.values())
        assert all(count <= 1 for count in per_player.values()), running
        waiting = [subject for _, subject in queue.waiting()]
        assert len(waiting) == len(set(waiting))
        # Every subject asked for and not finished is waiting or running (a lapsed lease counts as running until the
        # next take puts it back), and none is both.
        assert not set(waiting) & set(running)
        assert set(waiting) | set(running) == asked - finished
