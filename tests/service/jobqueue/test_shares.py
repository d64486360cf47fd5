"""Fair shares: one player's games hold at most their share of AI turns on the way; the rest wait in line, in order.

The production-shaped proof (a player at their AI quota does not slow another
player's AI turns) is ``tests/faults/test_fair_shares.py``; these check the
bookkeeping and the dispatcher's use of it, on fakeredis and the real Redis.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.application.followups import Due, due
from service.jobqueue.shares import HOLD_MS, Shares
from tests.harness.support import HUMAN, ai
from workers.runner import thread_worker


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


def round_trips(connection: Any, monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, Any]]]:
    """Each round trip ``connection`` makes from now on: the commands it carried, each as its name and first
    argument (a script's digest), a pipeline's together."""
    trips: list[list[tuple[str, Any]]] = []
    execute_command, pipeline = connection.execute_command, connection.pipeline

    def one(*args: Any, **options: Any) -> Any:
        trips.append([(str(args[0]).upper(), args[1] if len(args) > 1 else None)])
        return execute_command(*args, **options)

    def piped(*args: Any, **kwargs: Any) -> Any:
        pipe = pipeline(*args, **kwargs)
        execute = pipe.execute

        def run(*run_args: Any, **run_kwargs: Any) -> Any:
            trips.append([(str(c[0][0]).upper(), c[0][1] if len(c[0]) > 1 else None) for c in pipe.command_stack])
            return execute(*run_args, **run_kwargs)

        pipe.execute = run
        return pipe

    monkeypatch.setattr(connection, "execute_command", one)
    monkeypatch.setattr(connection, "pipeline", piped)
    return trips


def human_to_move(api: Any) -> tuple[str, str]:
    """A token and a game (a human first, two AIs after) where it is that human's turn."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("random"), ai("greedy")], seed=4)["id"]
    for _ in range(50):
        if api.view(game, token)["legal_steps"]:
            return token, game
        api.run_jobs()
    raise AssertionError("the human never came to move")


@pytest.mark.every_store
def test_a_move_handing_the_turn_to_an_ai_asks_for_its_place_its_job_and_its_marker_at_once(api, monkeypatch):
    """The share's admit, the job's record and the marker's ``SET NX`` go down one round trip to the queue's Redis
    (they were two: the admit, then the other two), and the turn is queued."""
    token, game = human_to_move(api)
    runtime = api.runtime
    admit = runtime.dispatcher.shares._admit.sha
    trips = round_trips(runtime.queue.connection, monkeypatch)
    response = api.act(game, token, [{"type": "fold"}])
    assert response.status_code == 200 and response.get_json()["turn"]["seat"] == 1, response.get_json()
    asked = [trip for trip in trips if ("EVALSHA", admit) in trip]
    assert len(asked) == 1, trips
    assert [name for name, _ in asked[0]] == ["EVALSHA", "HGETALL", "SET"], asked
    assert not [trip for trip in trips if trip is not asked[0] and any(name == "HGETALL" for name, _ in trip)], trips
    assert [job.args[:2] for job in runtime.queue.jobs] == [[game, response.get_json()["version"]]]


def test_a_queue_redis_without_the_share_script_still_admits_and_queues_the_turn(api):
    """A queue Redis new, restarted or flushed knows no script: the pipeline's admit answers NOSCRIPT, the ask is made
    again alone (loading the script), and the job and marker read beside it stand (on fakeredis, whose server is this
    test's own; ``tests/faults`` restarts a real queue Redis empty under play)."""
    token, game = human_to_move(api)
    runtime = api.runtime
    runtime.queue.connection.script_flush()
    response = api.act(game, token, [{"type": "fold"}])
    assert response.status_code == 200, response.get_json()
    assert [job.args[:2] for job in runtime.queue.jobs] == [[game, response.get_json()["version"]]]
    assert runtime.queue.connection.script_exists(runtime.dispatcher.shares._admit.sha) == [True]


@pytest.mark.every_store
def test_a_turn_refused_a_place_leaves_no_marker_behind(api):
    """The marker claimed beside a refused admit is given back: when a place frees, whoever queues the turn needs it."""
    token = api.player("Busy")["token"]
    api.game(token, [ai("random"), ai("random")], variant="basic")
    second = api.game(token, [ai("random"), ai("random")], variant="basic")["id"]
    runtime = api.runtime
    dispatcher = runtime.dispatcher
    (item,) = due(runtime.games.load(second))
    assert item.job == "ai_turn" and len(runtime.queue.jobs) == 1, "the second game waits in its player's line"
    assert not runtime.queue.connection.exists(dispatcher._marker(item, item.job_id(dispatcher.namespace)))
