"""The benchmarks still run and print their figures (tiny runs; nothing here is timed).

Speed targets live in ``bench/`` and are judged by a person reading the figures;
these tests only keep every benchmark working as the code under it changes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.support import REAL_REDIS_SKIP, REAL_REDIS_URL

ROOT = Path(__file__).resolve().parents[2]
NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens there: the store bench falls back to fakeredis


def run_bench(module: str, *args: str, redis_url: str = NO_REDIS) -> str:
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{module}", *args],
        cwd=ROOT,
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_engine_bench_prints_self_play_and_fold_rates_with_the_targets() -> None:
    out = run_bench("engine_bench", "--seconds", "0.05", "--repeat", "1")
    assert "random self-play, 3 players, advanced, no action rules:" in out
    assert "random self-play, 4 players, advanced, action rules:" in out
    assert out.count("rounds/s: best") == 2 and out.count("games/s:  best") == 2
    assert "events/s: best" in out
    assert "target 1,000:" in out and "target 300,000:" in out


def test_replay_bench_builds_a_long_game_and_prints_time_and_memory() -> None:
    out = run_bench("replay_bench", "--repeat", "1")
    assert "4-player advanced game with action rules" in out
    assert "build time: median" in out and "target < 50 ms" in out
    assert "peak memory while building" in out


def test_store_bench_runs_on_fakeredis_when_no_redis_answers() -> None:
    out = run_bench("store_bench", "--repeat", "1")
    assert "event store on fakeredis (no Redis answered)" in out
    assert "from the events alone" in out and "from a snapshot 5 events back" in out
    assert "append of one event with its version check" in out


@pytest.mark.real_redis
def test_store_bench_on_the_real_redis_leaves_no_keys_behind() -> None:
    if REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    assert REAL_REDIS_URL is not None
    import redis

    client = redis.Redis.from_url(REAL_REDIS_URL)
    out = run_bench("store_bench", "--repeat", "1", redis_url=REAL_REDIS_URL)
    assert f"event store on {REAL_REDIS_URL}" in out
    assert not list(client.scan_iter(match="red7-bench-*"))


def test_match_bench_forms_games_and_prints_their_rate_and_the_waits() -> None:
    out = run_bench("match_bench", "--tickets", "200", "--rate", "20")
    assert "quick match on fakeredis (no Redis answered)" in out
    assert "backlog: 200 waiting tickets" in out and "games/s" in out and "find_matches alone" in out
    lines = ("compatible players, live pools", "compatible players, correspondence pools", "AI seats, from the ai_fill_after")
    for line in lines:
        assert line in out and "p99" in out.split(line, 1)[1].splitlines()[0], out
    assert "Redis keys of this run deleted" in out


def test_arena_plays_every_pair_and_prints_win_rates_with_intervals() -> None:
    out = run_bench("arena", "--games", "2", "--iterations", "2")
    assert "expert:greedy" in out and "greedy:random" in out
    assert "95% CI" in out and "expert time per move" in out


@pytest.mark.real_redis
@pytest.mark.slow
def test_api_bench_serves_both_endpoints_under_gunicorn_and_cleans_up() -> None:
    if REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    assert REAL_REDIS_URL is not None
    out = run_bench(
        "api_bench",
        "--seconds",
        "0.2",
        "--warmup",
        "0.05",
        "--clients",
        "1",
        "--rounds",
        "2",
        "--workers",
        "1",
        "--threads",
        "2",
        "--floor",
        redis_url=REAL_REDIS_URL,
    )
    assert "GET /v1/games/{id}" in out and "POST /v1/games/{id}/actions" in out
    assert out.count("games made for POST") == 2 and out.count("of bare (rounds: ") == 3  # two rounds each, pooled
    label = "GET /healthz (the app's floor)"
    floor = next(line for line in out.splitlines() if line.startswith(label)).removeprefix(label).split()
    assert floor[2].endswith("%") and floor[3] not in ("ok", "MISS"), floor  # against the bare GET; no target of its own
    assert "non-200 answers: 0" in out
    assert "Redis keys of this run deleted" in out


@pytest.mark.real_redis
def test_api_profile_prints_cpu_and_redis_commands_per_request_and_cleans_up() -> None:
    if REAL_REDIS_SKIP:
        pytest.skip(REAL_REDIS_SKIP)
    assert REAL_REDIS_URL is not None
    import redis

    out = run_bench("api_profile", "--requests", "5", "--rate-limits", "--profile", "get", "--top", "3", redis_url=REAL_REDIS_URL)
    for label in ("bare GET /bare", "bare POST /bare", "GET /v1/games/{id}", "POST /v1/games/{id}/actions"):
        assert label in out
    assert out.count("commands,") == 3 and "cProfile of 5 GET requests" in out
    client = redis.Redis.from_url(REAL_REDIS_URL)
    assert not list(client.scan_iter(match="red7-profile*")) and not list(client.scan_iter(match="*red7-profile_*"))


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not on PATH (apt-get install redis-server)")
@pytest.mark.parametrize("wait", ["view", "events"])
def test_load_bench_prints_actions_per_second_latencies_and_cpu_per_process_kind(wait: str) -> None:
    out = run_bench("load_bench", "--clients", "3", "--seconds", "2", "--warmup", "1", "--wait", wait)
    assert "3 clients" in out and "human actions/s accepted" in out
    how = "the view's long-poll" if wait == "view" else "the events' long-poll, then the view"
    assert f"clients wait for the AIs with {how}" in out, out
    for line in ("GET view", "POST action", "wait for the AIs", "CPU per accepted action: redis-server"):
        assert line in out, out
    accepted = float(re.search(r"([0-9.]+) human actions/s accepted", out).group(1))  # type: ignore[union-attr]
    assert accepted > 0, out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not on PATH (apt-get install redis-server)")
def test_analysis_flood_bench_prints_both_runs_the_flood_and_the_ratios() -> None:
    out = run_bench("analysis_flood_bench", "--seconds", "6", "--tables", "2", "--flood", "40", "--distinct", "2")
    for line in ("without the flood:", "with the flood:", "CPU seconds with:", "analysts", "the other player's analysis"):
        assert line in out, out
    assert "40 requests from one token at once, 30 x 202, 10 x 429 (its budget: 30)" in out, out
    assert re.search(r"the median of each game's largest gap [0-9.]+x, every gap's p99 [0-9.]+x", out), out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not on PATH (apt-get install redis-server)")
def test_cost_bench_prints_the_cost_of_a_move_its_parts_and_the_memory_of_a_live_and_a_finished_game() -> None:
    out = run_bench("cost_bench", "--moves", "5", "--samples", "3", "--day-turns", "3", "--idle", "1")
    assert "default rate limits (600 per minute a token" in out and "a webhook on every player" in out
    for line in (
        "per accepted human move",
        "per human turn",
        "top 10 commands per accepted move: ",
        "GET view, default rate limits",
        "GET view, no rate limits",
        "POST action (the request alone)",
        "its jobs (AI turns, scoring, webhooks)",
        "long-poll answered at once",
        "idle background, per second",
        "live async game, one move per player per hour",
        "game:{<game>}:events",
        "finished game, what it keeps for good (no TTL)",
    ):
        assert line in out, out
    per_move = next(line for line in out.splitlines() if line.startswith("per accepted human move"))
    assert float(per_move.split()[4]) > 0, per_move  # commands were counted
    received = int(out.split("webhook deliveries received: ")[1].split(";")[0])
    assert received > 0, out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not on PATH (apt-get install redis-server)")
def test_cost_bench_split_prints_each_redis_apart() -> None:
    out = run_bench("cost_bench", "--split", "--moves", "3", "--owner-moves", "2")
    assert "cost, split: the stores and the queue on two redis-servers" in out, out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("stores Redis", "queue Redis"))}
    assert set(rows) == {"stores", "queue"}, out
    for row in rows.values():
        commands, round_trips, flushes = (float(x) for x in row[2:5])
        assert commands > 0 and 0 < round_trips <= commands and flushes > 0, row  # AOF always: each write flushed
    assert "of them sent by the clients" in out and "rate limits" in out, out


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not on PATH (apt-get install redis-server)")
def test_compaction_bench_sizes_finished_games_before_and_after_and_checks_their_replays() -> None:
    out = run_bench("compaction_bench", "--games", "1")
    assert "game   1:" in out and "KB compacted" in out, out
    assert "1 finished games" in out and "every replay the same bytes after, and verified" in out, out


def test_ratings_bench_ranks_the_ai_levels_in_order_on_a_small_seeded_run() -> None:
    """The acceptance's ranking, small and seeded (the bench's default plays 300 games): expert > greedy > random."""
    out = run_bench("ratings_bench", "ranks", "--games", "24", "--iterations", "32")
    assert "24 rated games of 2, 3 and 4 AI seats" in out
    assert out.count("expert > greedy > random (ratings): yes") == 2, out


def test_ratings_bench_predicts_and_prints_the_elo_baseline_beside() -> None:
    out = run_bench("ratings_bench", "predicts", "--games", "100")
    assert "each of the last 20 predicted before it is applied" in out
    assert "OpenSkill (Plackett-Luce): winner right" in out and "pairwise Elo (baseline) : winner right" in out


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server (the bench starts its own)")
def test_ratings_bench_times_updates_and_leaderboard_reads_on_its_own_redis() -> None:
    out = run_bench("ratings_bench", "fast", "--players", "300", "--updates", "20", "--reads", "20", "--no-cluster")
    assert "300 rated players written" in out
    assert "update (read, Plackett-Luce, one script)" in out and "top-50 leaderboard read" in out


def test_analysis_bench_prints_the_calibration_with_its_reliability_table() -> None:
    out = run_bench("analysis_bench", "--part", "calibration", "--calibration-games", "3", "--per-game", "2")
    assert "calibration: 6 decision points from 3 greedy self-play games" in out
    assert "Brier score" in out and "expected calibration error (10 bins)" in out
    bins = [line.split()[0] for line in out.splitlines() if line.strip()[:3] in {f"{b / 10:.1f}"[:3] for b in range(10)}]
    assert bins == [f"{b / 10:.1f}-{(b + 1) / 10:.1f}" for b in range(10)]  # the ten bins of the reliability table


def test_archive_bench_streams_a_players_games_and_prints_time_and_memory() -> None:
    out = run_bench("archive_bench", "--games", "30")
    assert "30 games streamed in" in out and "resident memory:" in out and "target <= 50 MB" in out


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not on PATH (apt-get install redis-server)")
def test_talk_bench_carries_every_message_to_the_other_seats_stream_and_prints_its_latency() -> None:
    tiny = ("--games", "3", "--messages", "2", "--every", "0.5", "--senders", "4", "--gunicorn-workers", "1")
    out = run_bench("talk_bench", *tiny)
    assert "games talking at once: 3 (two human seats each), streams open: 6 of 6" in out, out
    assert "messages: 6 said in" in out and "0 refused or held, 0 lost" in out, out
    latency = next(line for line in out.splitlines() if line.startswith("latency say-to-other-seat's-stream:"))
    assert all(f"{p} " in latency for p in ("p50", "p95", "p99")) and "(target p99 <= 1 s)" in latency
    assert "CPU per message said: redis-server" in out and "Redis commands per message said" in out


def test_tournament_bench_reads_one_duplicate_swiss_both_ways_and_says_which_separated_sooner() -> None:
    out = run_bench("tournament_bench", "duplicate", "--field", "6", "--rounds", "2", "--trials", "2", "--iterations", "2")
    assert "duplicate Swiss of 3-seat tables, basic game: 6 players" in out
    assert len(re.findall(r"^\s+[12] +[01]\.\d{3} ± \d\.\d{3} +[01]\.\d{3} ± \d\.\d{3}", out, re.M)) == 2
    assert "plain: round from which the experts stay on top, per trial (never = 3)" in out
    assert re.search(
        r"rounds the duplicate order needed to rank as well as the plain one after round r .*: 1: [-12], 2: [-12]$", out, re.M
    )
    assert re.search(r"duplicate separated sooner in \d trials, later in \d, in the same round in \d", out)


def test_tournament_bench_reads_a_duplicate_round_robin_group_both_ways() -> None:
    args = ("duplicate", "--format", "round_robin", "--field", "9", "--rounds", "4", "--trials", "1", "--iterations", "2")
    out = run_bench("tournament_bench", *args)
    assert "duplicate round robin (one group, every pair meeting in each 4 rounds) of 3-seat tables" in out
    assert len(re.findall(r"^\s+[1-4] +[01]\.\d{3} ± \d\.\d{3} +[01]\.\d{3} ± \d\.\d{3}", out, re.M)) == 4
    refused = subprocess.run(
        [sys.executable, "-m", "bench.tournament_bench", "duplicate", "--format", "round_robin", "--field", "12"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "one group of 9" in refused.stderr


def test_the_tournament_bench_measures_separation_by_the_expert_greedy_pairs_ranked_right() -> None:
    from bench.tournament_bench import concordance, separated_from

    assert concordance([True, True, False, False]) == 1.0 and concordance([False, False, True, True]) == 0.0
    assert concordance([True, False, True, False]) == 0.75
    assert separated_from([[False, True], [True, False], [True, False]]) == 2
    assert separated_from([[True, False], [False, True], [True, False]]) == 3
    assert separated_from([[True, False], [False, True]]) is None


def test_the_tournament_bench_says_how_many_rounds_each_order_needs_to_rank_as_well() -> None:
    from bench.tournament_bench import rounds_to_reach, sign_z

    # Duplicate's mean after round 2 is plain's after round 3; plain's after round 4 is never reached.
    assert rounds_to_reach([0.5, 0.6, 0.7, 0.9], [0.6, 0.7, 0.75, 0.8]) == [1, 1, 2, None]
    assert sign_z(219, 139) > 4 and sign_z(10, 10) == 0.0 and sign_z(0, 0) == 0.0
