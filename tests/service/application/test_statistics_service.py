"""Statistics across games (issue 40, item 5) against a recomputation from the game streams' events, on fakeredis
and the real Redis: many seeded finished games (and more drawn by hypothesis), each counted twice; a player's
statistics and everyone's equal what the events say; the accuracy trend follows the analyses in time order; a hidden
archive and a deleted account hold; ``rebuild`` finds the stored bytes, sees a change, and writes it back."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Variant
from engine.analysis import VERSION
from engine.cards import Card, Color
from engine.events import event_from_dict
from engine.rules import qualifying_cards
from engine.state import fold
from service.domain.archive import as_iso, epoch_ms
from service.domain.game import decode
from service.domain.lobby import LOBBY_TYPES
from service.runtime import Runtime
from service.storage.analyses import AnalysisStore
from service.storage.statistics import StatisticsStore
from tests.harness.archive import LEVELS, START_MS, payloads, store_finished

COLOURS = ["red", "orange", "yellow", "green", "blue", "indigo", "violet"]


def events_of(runtime: Runtime, game_id: str) -> list[dict[str, Any]]:
    return [decode(e.payload) for e in runtime.store.read(game_id)]


def recount(runtime: Runtime, game_ids: list[str]) -> tuple[dict[str, Counter[str]], dict[str, Counter[str]]]:
    """Every player's and every group's counters, recomputed from each game's events: the winning card from the fold
    of the events before each ``round_won`` (a prefix folded anew), the places from the game's standing."""
    people: dict[str, Counter[str]] = {}
    groups: dict[str, Counter[str]] = {}
    for game_id in game_ids:
        envelopes = events_of(runtime, game_id)
        game = runtime.games.load(game_id)
        engine = [e for e in envelopes if e["type"] not in LOBBY_TYPES]
        won = []
        for n, data in enumerate(engine):
            if data["type"] == "round_won":
                state = fold(
                    [event_from_dict({k: v for k, v in e.items() if k not in ("at", "by", "v", "n")}) for e in engine[:n]]
                )
                palette = [c for c in range(49) if state.palettes[data["seat"]] >> c & 1]
                counted = qualifying_cards([Card(c) for c in palette], Color.parse(data["rule"]))
                won.append((data["seat"], data["rule"], str(max(counted)) if counted else "-"))
        group = groups.setdefault(f"{game.variant.value}:{len(game.seats)}", Counter())
        group["games"] += 1
        group["rounds"] += len(won)
        for _, rule, card in won:
            group[f"rule:{rule}"] += 1
            group[f"card:{card}"] += 1
        order = game.standing()
        assert order is not None
        seen: set[str] = set()
        for seat, held in enumerate(game.seats):
            if not held.player_id or held.player_id in seen:
                continue
            seen.add(held.player_id)
            mine = people.setdefault(held.player_id, Counter())
            mine["games"] += 1
            mine[f"place:{order.index(seat) + 1}"] += 1
            mine[f"seat:{seat}:games"] += 1
            mine[f"players:{len(game.seats)}:games"] += 1
            if game.state.winner == seat and not held.resigned:
                mine["won"] += 1
                mine[f"seat:{seat}:won"] += 1
                mine[f"players:{len(game.seats)}:won"] += 1
            mine["rounds"] += len(won)
            for winner, rule, _ in won:
                if winner == seat:
                    mine["rounds_won"] += 1
                    mine[f"rule:{rule}"] += 1
            for data in engine:
                if data["type"] == "card_played" and data["seat"] == seat:
                    mine[f"played:{Card.parse(data['card']).color}"] += 1
                if data["type"] == "card_discarded" and data["seat"] == seat:
                    mine[f"canvas:{Card.parse(data['card']).color}"] += 1
    return people, groups


def pct(n: int, of: int) -> float:
    return round(100 * n / of, 1) if of else 0.0


def expected_player(counts: Counter[str]) -> dict[str, Any]:
    """What getPlayerStatistics must say for these counters (the trend apart)."""
    played = sum(counts[f"played:{c}"] for c in COLOURS)
    canvas = sum(counts[f"canvas:{c}"] for c in COLOURS)
    return {
        "games": counts["games"],
        "won": counts["won"],
        "won_percent": pct(counts["won"], counts["games"]),
        "places": [
            {"place": p, "count": counts[f"place:{p}"], "percent": pct(counts[f"place:{p}"], counts["games"])}
            for p in (1, 2, 3, 4)
        ],
        "seats": [
            {
                "seat": s,
                "games": counts[f"seat:{s}:games"],
                "won": counts[f"seat:{s}:won"],
                "percent": pct(counts[f"seat:{s}:won"], counts[f"seat:{s}:games"]),
            }
            for s in range(4)
            if counts[f"seat:{s}:games"]
        ],
        "tables": [
            {
                "players": n,
                "games": counts[f"players:{n}:games"],
                "won": counts[f"players:{n}:won"],
                "percent": pct(counts[f"players:{n}:won"], counts[f"players:{n}:games"]),
            }
            for n in (2, 3, 4)
            if counts[f"players:{n}:games"]
        ],
        "rounds": counts["rounds"],
        "rounds_won": counts["rounds_won"],
        "rounds_won_by_rule": [
            {"rule": c, "count": counts[f"rule:{c}"], "percent": pct(counts[f"rule:{c}"], counts["rounds_won"])} for c in COLOURS
        ],
        "colours_played": [
            {
                "colour": c,
                "palette": counts[f"played:{c}"],
                "palette_percent": pct(counts[f"played:{c}"], played),
                "canvas": counts[f"canvas:{c}"],
                "canvas_percent": pct(counts[f"canvas:{c}"], canvas),
            }
            for c in COLOURS
        ],
    }


def expected_group(group: str, counts: Counter[str]) -> dict[str, Any]:
    variant, players = group.split(":")
    rounds = counts["rounds"]

    def most(prefix: str) -> list[tuple[str, int]]:
        found = [(k.split(":", 1)[1], n) for k, n in counts.items() if k.startswith(prefix + ":")]
        return sorted(found, key=lambda kv: (-kv[1], kv[0]))

    return {
        "variant": variant,
        "players": int(players),
        "games": counts["games"],
        "rounds": rounds,
        "rules": [{"rule": r, "count": n, "percent": pct(n, rounds)} for r, n in most("rule")],
        "cards": [{"card": c, "count": n, "percent": pct(n, rounds)} for c, n in most("card")[:10]],
    }


def check_everything(runtime: Runtime, game_ids: list[str], players: list[str]) -> None:
    statistics = runtime.statistics
    assert statistics is not None
    people, groups = recount(runtime, game_ids)
    for player_id in players:
        shown = statistics.player(player_id, None)
        del shown["accuracy"], shown["player_id"]
        assert shown == expected_player(people.get(player_id, Counter())), player_id
    everyone = statistics.everyone()
    expected = [
        expected_group(g, groups.get(g, Counter())) for g in (f"{v}:{n}" for v in ("basic", "advanced") for n in (2, 3, 4))
    ]
    assert everyone["groups"] == expected
    assert everyone["games"] == len(game_ids)


def make_games(runtime: Runtime, players: list[str], count: int, seed: int, first: int = 0) -> list[str]:
    rng = random.Random(seed)
    made = []
    for g in range(first, first + count):
        seats_count = rng.randint(2, 4)
        humans = rng.randint(1, seats_count)
        chosen = rng.sample(players, min(humans, len(players)))
        seats: list[tuple[str, str] | str] = [(p, f"Name {p[-4:]}") for p in chosen]
        seats += [rng.choice(LEVELS) for _ in range(seats_count - len(chosen))]
        rng.shuffle(seats)
        game_id = f"g_stat{seed % 100_000:05d}{g:04d}"
        envelopes = payloads(
            seats,
            variant=rng.choice([Variant.BASIC, Variant.ADVANCED]),
            action_rules=rng.random() < 0.5,
            rated=False,
            seed=seed * 1000 + g,
            at_ms=START_MS + g * 3_700_000,
        )
        store_finished(runtime, game_id, envelopes)
        made.append(game_id)
    return made


def sign_up(runtime: Runtime, n: int) -> list[str]:
    return [runtime.accounts.sign_up(f"Player {k}").player.id for k in range(n)]


def test_statistics_equal_a_recomputation_from_the_events_and_count_each_game_once(runtime):
    players = sign_up(runtime, 8)
    games = make_games(runtime, players, 80, seed=7)
    for game_id in games[::3]:  # a finish seen again (a job run twice, a listing): nothing counted twice
        game = runtime.games.load(game_id)
        runtime.games.lists.archive(game)
        runtime.statistics.count(game)
    check_everything(runtime, games, players)
    everyone = runtime.statistics.everyone()
    assert {g["variant"] for g in everyone["groups"] if g["games"]} == {"basic", "advanced"}
    assert {g["players"] for g in everyone["groups"] if g["games"]} == {2, 3, 4}
    filtered = runtime.statistics.everyone("advanced", 3)
    assert [(g["variant"], g["players"]) for g in filtered["groups"]] == [("advanced", 3)]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), count=st.integers(1, 12), people=st.integers(1, 4))
def test_any_games_counted_equal_a_recomputation(runtime, seed, count, people):
    """Each example adds its games (and players) to the store of those before it: the whole is checked each time."""
    before = sorted(g for g in runtime.statistics.game_ids() if runtime.statistics.facts(g) is not None)
    players = sign_up(runtime, people)
    games = make_games(runtime, players, count, seed=seed, first=len(before))
    everyone = sorted(set(StatisticsStore(runtime.redis, runtime.settings.key_prefix).players()) | set(players))
    check_everything(runtime, sorted(set(before) | set(games)), everyone)
    assert runtime.statistics.rebuild().identical


def test_the_accuracy_trend_is_each_analysed_game_in_time_order(runtime):
    players = sign_up(runtime, 3)
    games = make_games(runtime, players, 24, seed=11)
    analyses = AnalysisStore(runtime.redis, runtime.settings.key_prefix)
    expected: dict[str, list[tuple[str, float]]] = {p: [] for p in players}
    for n, game_id in enumerate(games):
        if n % 2:
            continue
        game = runtime.games.load(game_id)
        summaries = [{"seat": s, "accuracy": round(50 + (n * 7 + s * 3) % 50 + 0.5, 1)} for s in range(len(game.seats))]
        result = {"players": summaries}
        analyses.claim(game_id, VERSION, 0, 1)
        analyses.finish(game_id, result)
        for seat, held in enumerate(game.seats):
            if held.player_id and game.seat_of(held.player_id) == seat:
                expected[held.player_id].append((game_id, summaries[seat]["accuracy"]))
    for player_id in players:
        trend = runtime.statistics.player(player_id, None)["accuracy"]
        ordered = sorted(expected[player_id], key=lambda ga: (epoch_ms(runtime.games.load(ga[0]).updated_at), ga[0]))
        assert [(t["game_id"], t["accuracy"]) for t in trend] == ordered
        assert [t["finished_at"] for t in trend] == sorted(t["finished_at"] for t in trend)
        assert all(t["finished_at"] == as_iso(epoch_ms(runtime.games.load(t["game_id"]).updated_at)) for t in trend)


def test_a_hidden_archive_shows_no_game_to_others_and_a_deleted_account_has_none(runtime):
    players = sign_up(runtime, 3)
    games = make_games(runtime, players, 20, seed=3)
    ana = players[0]
    mine = runtime.statistics.player(ana, None)
    assert mine["games"] > 0
    runtime.archive.set_hidden(ana, True)
    hidden = runtime.statistics.player(ana, None)
    assert hidden["games"] == 0 and hidden["rounds_won"] == 0 and hidden["accuracy"] == []
    assert runtime.statistics.player(ana, ana) == mine
    everyone = runtime.statistics.everyone()
    runtime.accounts.delete(runtime.accounts.find(ana))
    assert runtime.statistics.everyone() == everyone  # their games stay counted in everyone's
    store = StatisticsStore(runtime.redis, runtime.settings.key_prefix)
    assert ana not in set(store.players())
    rebuilt = runtime.statistics.rebuild()
    assert rebuilt.identical, rebuilt.different
    check_everything(runtime, games, players[1:])


def test_a_rebuild_finds_the_stored_bytes_sees_a_change_and_writes_it_back(runtime):
    players = sign_up(runtime, 4)
    make_games(runtime, players, 30, seed=5)
    store = StatisticsStore(runtime.redis, runtime.settings.key_prefix)
    before = {p: store.export_player(p) for p in players} | {g: store.export_group(g) for g in ("basic:2", "advanced:4")}
    report = runtime.statistics.rebuild()
    assert report.identical and report.games == 30 and report.rebuilt_sha256 == report.stored_sha256
    runtime.redis.hincrby(store.group_keys("basic:2")[0], "rule:red", 1)
    runtime.redis.delete(*store.player_keys(players[0]))
    report = runtime.statistics.rebuild()
    assert sorted(report.different) == sorted(["stats:basic:2", f"player:{players[0]}"])
    assert report.rebuilt_sha256 != report.stored_sha256
    runtime.statistics.rebuild(write=True)
    after = {p: store.export_player(p) for p in players} | {g: store.export_group(g) for g in ("basic:2", "advanced:4")}
    assert after == before
    again = runtime.statistics.rebuild()
    assert again.identical and again.rebuilt_sha256 == again.stored_sha256
    assert json.loads(before[players[1]])["games"]  # the text holds the games counted
