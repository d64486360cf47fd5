"""listPlayerGames and exportPlayerGames over HTTP on 300 finished games among 20 players: every filter against a
recomputation from the games themselves, the cursor, hidden archives and deleted names on every route (a leak scan),
export lines that verify on their own, gzip when asked, the export's own budgets."""

from __future__ import annotations

import gzip
import json
import uuid
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replays.verify import verify_replay
from service.domain.archive import as_iso, epoch_ms
from service.domain.game import Game
from service.http.app import create_app
from service.runtime import build_runtime
from service.storage.archive import ArchiveStore
from tests.harness.archive import Made, many_games
from tests.harness.slots import SlotCheckedRedis
from tests.harness.support import Api, settings_for


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[Api, Made, dict[str, Game]]]:
    """One store of 300 finished games for the module (making them takes a while): the filters only read it."""
    server = fakeredis.FakeServer()
    runtime = build_runtime(
        settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"),
        clients=(SlotCheckedRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server)),
    )
    made = many_games(runtime)
    games = {g: runtime.games.load(g) for g in made.games}
    yield Api(create_app(runtime), runtime), made, games


def recomputed(games: dict[str, Game], analysed: set[str], player: str, query: dict[str, Any]) -> list[str]:
    """The ids the archive must list for ``query``, from the folded games, newest first (by time, then id)."""
    kept = []
    for game_id, game in games.items():
        seat = game.seat_of(player)
        if seat is None:
            continue
        ms = epoch_ms(game.updated_at)
        won = game.state.winner == seat and not game.seats[seat].resigned
        others = {s.player_id for s in game.seats if s.player_id and s.player_id != player}
        checks = {
            "since": lambda v, ms=ms: ms >= epoch_ms(v),
            "until": lambda v, ms=ms: ms <= epoch_ms(v),
            "variant": lambda v, g=game: g.variant.value == v,
            "action_rules": lambda v, g=game: g.action_rules == (v == "true"),
            "players": lambda v, g=game: len(g.seats) == int(v),
            "rated": lambda v, g=game: g.rated == (v == "true"),
            "result": lambda v, won=won: won == (v == "won"),
            "opponent": lambda v, others=others: v in others,
            "analysed": lambda v, gid=game_id: (gid in analysed) == (v == "true"),
        }
        if all(checks[k](v) for k, v in query.items()):
            kept.append((ms, game_id))
    return [g for _, g in sorted(kept, reverse=True)]


def listed(api: Api, ref: str, query: dict[str, Any], token: str | None = None, limit: int = 30) -> list[str]:
    """Every game id the archive lists for ``query``, page after page."""
    ids: list[str] = []
    cursor = None
    while True:
        params = {**query, "limit": limit, **({"cursor": cursor} if cursor else {})}
        body = api.call("GET", f"/v1/players/{ref}/archive", token, query_string=params).get_json()
        ids += [g["game_id"] for g in body["games"]]
        cursor = body["next_cursor"]
        if cursor is None:
            return ids


def filter_values(made: Made, games: dict[str, Game]) -> list[tuple[str, str]]:
    times = sorted(epoch_ms(g.updated_at) for g in games.values())
    return [
        ("variant", "basic"),
        ("variant", "advanced"),
        ("action_rules", "true"),
        ("action_rules", "false"),
        ("players", "2"),
        ("players", "3"),
        ("players", "4"),
        ("rated", "true"),
        ("rated", "false"),
        ("result", "won"),
        ("result", "lost"),
        ("analysed", "true"),
        ("analysed", "false"),
        ("since", as_iso(times[len(times) // 3])),
        ("until", as_iso(times[2 * len(times) // 3])),
        ("opponent", made.players[1][0]),
    ]


def test_every_filter_value_alone_lists_what_a_recomputation_finds_for_every_player(world):
    api, made, games = world
    values = filter_values(made, games)
    for name, value in values:  # every value is present in the games
        assert any(recomputed(games, made.analysed, p, {name: value}) for p, _ in made.players), (name, value)
    for player, handle in made.players:
        assert listed(api, handle, {}) == recomputed(games, made.analysed, player, {})
        for name, value in values:
            expected = recomputed(games, made.analysed, player, {name: value})
            assert listed(api, player, {name: value}) == expected, (handle, name, value)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_filters_combined_and_any_page_size_list_what_a_recomputation_finds(world, data):
    api, made, games = world
    values = filter_values(made, games)
    player, handle = data.draw(st.sampled_from(made.players))
    chosen = data.draw(st.lists(st.sampled_from(values), max_size=4, unique_by=lambda kv: kv[0]))
    query = dict(chosen)
    limit = data.draw(st.integers(1, 12))
    assert listed(api, data.draw(st.sampled_from([player, handle, handle.upper()])), query, limit=limit) == recomputed(
        games, made.analysed, player, query
    )


def test_an_entry_has_seats_places_ratings_and_links(world):
    api, made, games = world
    player, handle = made.players[0]
    body = api.call("GET", f"/v1/players/{handle}/archive", query_string={"rated": "true", "limit": 100}).get_json()
    assert body["player_id"] == player and body["games"]
    for entry in body["games"]:
        game = games[entry["game_id"]]
        order = game.standing()
        assert order is not None
        assert [s["place"] for s in entry["seats"]] == [order.index(n) + 1 for n in range(len(game.seats))]
        assert entry["seats"][entry["seat"]]["player_id"] == player
        assert all(isinstance(s["rating_before"], int) and isinstance(s["rating_after"], int) for s in entry["seats"])
        assert api.call("GET", entry["replay_url"]).status_code == 200
        assert api.call("GET", entry["view_url"]).status_code == 200
    unrated = api.call("GET", f"/v1/players/{handle}/archive", query_string={"rated": "false"}).get_json()["games"]
    assert all(s["rating_before"] is None for e in unrated for s in e["seats"])


def test_bad_queries_are_problems(world):
    api, made, _ = world
    handle = made.players[0][1]
    assert api.call("GET", "/v1/players/nobody_at_all/archive").status_code == 404
    for bad in ({"cursor": "x"}, {"players": "5"}, {"result": "draw"}, {"opponent": "nobody_at_all"}, {"since": "yesterday"}):
        assert api.call("GET", f"/v1/players/{handle}/archive", query_string=bad).status_code in (400, 422), bad
    assert api.call("GET", f"/v1/players/{handle}/archive/export", headers={"Accept": "application/json"}).status_code == 406


def export_lines(api: Api, ref: str, token: str | None = None, **query: Any) -> list[dict[str, Any]]:
    response = api.call("GET", f"/v1/players/{ref}/archive/export", token, query_string=query)
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    assert "Content-Encoding" not in response.headers
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def test_the_export_is_the_same_query_a_replay_a_line_each_verifying_on_its_own(world):
    api, made, games = world
    player, handle = made.players[2]
    query = {"variant": "advanced"}
    lines = export_lines(api, handle, **query)
    assert [doc["game_id"] for doc in lines] == recomputed(games, made.analysed, player, query)
    for document in lines:
        assert verify_replay(document).ok
        exported = api.call("GET", f"/v1/games/{document['game_id']}/replay/export").get_json()
        assert document == exported  # exportReplay's document, as it is
    assert len(export_lines(api, handle, limit=3)) == 3
    imported = api.call("POST", "/v1/replays", api.player("Importer")["token"], json=lines[0])
    assert imported.status_code == 201


def test_gzip_is_negotiated_by_accept_encoding(world):
    api, made, _ = world
    handle = made.players[3][1]
    plain = api.call("GET", f"/v1/players/{handle}/archive/export").get_data()
    for accept in ("gzip", "gzip, deflate, br", "br;q=1, gzip;q=0.5"):
        packed = api.call("GET", f"/v1/players/{handle}/archive/export", headers={"Accept-Encoding": accept})
        assert packed.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed.headers["Vary"]
        assert gzip.decompress(packed.get_data()) == plain
    for accept in ("identity", "gzip;q=0", "br", "identity, gzip;q=0.5"):
        kept = api.call("GET", f"/v1/players/{handle}/archive/export", headers={"Accept-Encoding": accept})
        assert "Content-Encoding" not in kept.headers and kept.get_data() == plain, accept


def test_a_hidden_archive_and_a_deleted_name_hold_on_every_route(world):
    """A leak scan: the hidden player's games are shown to nobody but them; the deleted player's name nowhere."""
    api, made, games = world
    runtime = api.runtime
    hider, hider_handle = made.players[4]
    gone, gone_handle = made.players[5]
    hider_token = runtime.accounts.issue_token(runtime.accounts.get(hider), "t").token
    other_token = api.player("Watcher")["token"]
    mine = listed(api, hider, {}, hider_token)
    assert mine
    api.call("PATCH", "/v1/players/me", hider_token, json={"archive_hidden": True})
    assert api.call("GET", "/v1/players/me", hider_token).get_json()["archive_hidden"] is True
    runtime.accounts.delete(runtime.accounts.get(gone))
    gone_name = f"Name {gone_handle}"
    try:
        for ref in (hider, hider_handle, hider_handle.upper()):
            for token in (None, other_token):
                assert listed(api, ref, {}, token) == []
                assert listed(api, ref, {"rated": "true"}, token) == []
                assert export_lines(api, ref, token) == []
            assert listed(api, ref, {}, hider_token) == mine  # the player themself still sees it
            assert [d["game_id"] for d in export_lines(api, ref, hider_token)] == mine
        for ref in (gone, gone_handle):
            assert api.call("GET", f"/v1/players/{ref}/archive").status_code == 404
            assert api.call("GET", f"/v1/players/{ref}/archive/export").status_code == 404
        shared = [g for g, game in games.items() if game.seat_of(gone) is not None]
        seen_gone = 0
        for player, handle in made.players:
            if player in (hider, gone):
                continue
            body = api.call("GET", f"/v1/players/{handle}/archive", query_string={"limit": 100}).get_json()
            text = json.dumps(body) + api.call("GET", f"/v1/players/{handle}/archive/export").get_data(as_text=True)
            assert gone_name not in text and gone_handle not in text
            for entry in body["games"]:
                for seat in entry["seats"]:
                    if seat["player_id"] == gone:
                        seen_gone += 1
                        assert seat["name"] == "deleted player" and seat["handle"] is None
        assert shared and seen_gone  # its seats stay, under its id
        month = "".join(runtime.archive.month("2026-01"))
        assert gone_name not in month and gone in month
        assert all(verify_replay(json.loads(line)).ok for line in month.splitlines()[:20])
    finally:
        api.call("PATCH", "/v1/players/me", hider_token, json={"archive_hidden": False})
    assert listed(api, hider, {}) == mine


def test_the_month_dump_holds_every_finished_game_of_the_month_oldest_first(world):
    api, _, games = world
    lines = [json.loads(line) for line in api.runtime.archive.month("2026-01")]
    expected = sorted((epoch_ms(g.updated_at), gid) for gid, g in games.items() if g.updated_at.startswith("2026-01"))
    assert [d["game_id"] for d in lines] == [gid for _, gid in expected] and lines
    assert list(api.runtime.archive.month("2025-12")) == []
    with pytest.raises(ValueError):
        list(api.runtime.archive.month("2026-13"))


def test_the_rebuild_finds_the_stored_archives_identical_and_writes_back_one_that_differs(world):
    api, made, _ = world
    archive = api.runtime.archive
    assert archive.rebuild().identical
    player = made.players[6][0]
    api.runtime.redis.delete(ArchiveStore(api.runtime.redis, api.runtime.settings.key_prefix).games_key(player))
    report = archive.rebuild()
    assert report.different == [player] and not report.written
    assert archive.rebuild(write=True).written == [player]
    assert archive.rebuild().identical


def test_exports_draw_on_their_own_budgets_per_token_and_per_address(redis_pair, key_prefix):
    runtime = build_runtime(
        settings_for(key_prefix, rate_limit_export_token="2 per hour", rate_limit_export_address="4 per hour"),
        clients=redis_pair,
    )
    api = Api(create_app(runtime), runtime)
    ana = api.player("Ana")
    path = f"/v1/players/{ana['id']}/archive/export"
    assert [api.call("GET", path, ana["token"]).status_code for _ in range(3)] == [200, 200, 429]
    assert api.call("GET", path).status_code == 200  # the address's fourth (a refusal counts too)
    refused = api.call("GET", path)
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert api.call("GET", f"/v1/players/{ana['id']}/archive").status_code == 200  # the list is not an export
