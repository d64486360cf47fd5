"""Fair shares: one player's games hold at most their share of AI turns on the way; the rest wait in line, in order.

The production-shaped proof (a player at their AI quota does not slow another
player's AI turns) is ``tests/faults/test_fair_shares.py``; these check the
bookkeeping and the dispatcher's use of it, on fakeredis and the real Redis.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.application.followups import Due, due
from tests.support import ai
from workers.runner import thread_worker
from workers.shares import HOLD_MS, Shares


def jobs(game: str) -> tuple[str, str]:
    """The id of a game's AI turn at version 5, and the prefix of all its AI turns."""
    item = Due("ai_turn", game, 5)
    return item.job_id(), item.job_id_prefix()


def test_a_player_holds_their_share_and_the_rest_wait_in_line_in_order(redis_pair, key_prefix):
    shares = Shares(redis_pair[1], key_prefix, per_player=1)
    assert shares.admit("p_busy", *jobs_of("g_a"), 1_000)
    assert not shares.admit("p_busy", *jobs_of("g_b"), 1_001)
    assert not shares.admit("p_busy", *jobs_of("g_c"), 1_002)
    assert not shares.admit("p_busy", *jobs_of("g_b"), 1_003), "asking again keeps its place in line"
    assert shares.admit("p_other", *jobs_of("g_x"), 1_004), "another player's share is their own"
    assert shares.done("p_busy", jobs("g_a")[0]) == ["g_b", "g_c"]
    assert shares.admit("p_busy", *jobs_of("g_b"), 1_005)
    assert shares.done("p_busy", "an id it never held") == ["g_c"], "giving back what one does not hold frees nothing"
    assert not shares.admit("p_busy", *jobs_of("g_c"), 1_006)


def test_two_ai_seats_in_a_row_keep_the_place_unless_another_game_waits(redis_pair, key_prefix):
    shares = Shares(redis_pair[1], key_prefix, per_player=1)
    assert shares.admit("p", "red7-ai_turn-g_a-5", "g_a", "red7-ai_turn-g_a-", 1_000)
    # The running turn queues the game's next AI turn: it takes over the place (nobody else waits).
    assert shares.admit("p", "red7-ai_turn-g_a-7", "g_a", "red7-ai_turn-g_a-", 1_001)
    assert shares.done("p", "red7-ai_turn-g_a-5") == []
    # Now another game of the player waits: the game's next turn queues behind it, not ahead of it.
    assert not shares.admit("p", "red7-ai_turn-g_b-3", "g_b", "red7-ai_turn-g_b-", 1_002)
    assert not shares.admit("p", "red7-ai_turn-g_a-9", "g_a", "red7-ai_turn-g_a-", 1_003)
    assert shares.done("p", "red7-ai_turn-g_a-7") == ["g_b", "g_a"]


def test_a_job_whose_worker_died_gives_its_place_back_when_its_hold_lapses(redis_pair, key_prefix):
    shares = Shares(redis_pair[1], key_prefix, per_player=1)
    assert shares.admit("p", *jobs_of("g_a"), 1_000)
    assert shares.admit("p", *jobs_of("g_a"), 2_000), "the same job queued again (healed) keeps its place"
    assert not shares.admit("p", *jobs_of("g_b"), 2_000 + HOLD_MS - 1)
    assert shares.admit("p", *jobs_of("g_b"), 2_000 + HOLD_MS + 1)


def test_no_share_means_no_limit(redis_pair, key_prefix):
    shares = Shares(redis_pair[1], key_prefix, per_player=0)
    assert all(shares.admit("p", *jobs_of(f"g_{n}"), 1_000) for n in range(10))


def jobs_of(game: str) -> tuple[str, str, str]:
    job_id, prefix = jobs(game)
    return job_id, game, prefix


def test_a_players_many_games_against_ais_take_turns_and_all_finish(api):
    """Four all-AI games of one player: one AI turn queued at a time, each game in its turn, and every game ends."""
    token = api.player("Busy")["token"]
    games = [api.game(token, [ai("random"), ai("greedy"), ai("random")], variant="basic")["id"] for _ in range(4)]
    queue = api.runtime.queue
    assert queue.count == 1, "only the first game's AI turn is queued; the others wait in their player's line"
    worker = thread_worker(api.runtime, [queue])
    order: list[str] = []
    while queue.count and len(order) < 2_000:
        order.append(queue.jobs[0].args[0])
        worker.work(burst=True, max_jobs=1, logging_level="WARNING")
        assert queue.count <= 1
    assert set(order) == set(games)
    first_round = order[:4]
    assert sorted(first_round) == sorted(games), "each game moved once before any moved twice"
    assert all(api.view(game)["status"] == "finished" for game in games)


def test_another_players_ai_turn_is_queued_at_once_beside_a_busy_player(api):
    busy = api.player("Busy")["token"]
    for _ in range(3):
        api.game(busy, [ai("random"), ai("random")], variant="basic")
    other = api.player("Other")["token"]
    game = api.game(other, [ai("greedy"), ai("greedy")], variant="basic")
    queued = [job.args[0] for job in api.runtime.queue.jobs]
    assert game["id"] in queued and len(queued) == 2, queued
    assert [item.job for item in due(api.runtime.games.load(game["id"]))] == ["ai_turn"]


def test_a_place_held_by_a_job_that_died_is_taken_back_when_another_turn_asks(api):
    """A job killed with its worker never says it is done; the next turn of its player that is refused finds the
    holder no longer on its way (the same test that queues a lost job again) and takes its place."""
    token = api.player("Busy")["token"]
    first = api.game(token, [ai("random"), ai("random")], variant="basic")["id"]
    second = api.game(token, [ai("random"), ai("random")], variant="basic")["id"]
    runtime = api.runtime
    dispatcher = runtime.dispatcher
    assert [job.args[0] for job in runtime.queue.jobs] == [first], "the second game waits in its player's line"
    runtime.queue.jobs[0].delete()  # the job and its worker are gone, the place still held
    waiting = runtime.games.load(second)
    assert not dispatcher.reoffer(waiting, due(waiting)), "within the grace, the holder may still be on its way"
    later = datetime.now(UTC) + timedelta(seconds=5)
    dispatcher.clock = lambda: later
    assert dispatcher.reoffer(waiting, due(waiting)), "past it, the place is taken back and the turn queued"
    assert [job.args[0] for job in runtime.queue.jobs] == [second]
