"""The ratings over HTTP: getLeaderboard, and a rated game's view with its seats' ratings and the change at its end."""

from __future__ import annotations

from engine import Variant
from replays.verify import verify_replay
from service.application.commands import NewGame, SeatRequest
from service.domain.ratings import Placing, Result, Rules
from tests.harness.support import HUMAN

AT = "2026-05-01T12:00:{:02d}.000Z"


#: Every result counts and a game establishes a rating: a ladder of ten people to page through (the rules that make a
#: rating count and established are service/domain/ratings/counting.py's, tested in tests/service/domain/test_ratings.py).
OPEN_LADDER = Rules(established_sigma=9.0, established_games=1, pair_limit=0, anchored=False)


def ladder_of_ten(runtime) -> None:
    """Ten players p0..p9 on the basic ladder, p0 the best: each beat every player after them, once."""
    store = runtime.ratings.store
    store.rules = OPEN_LADDER
    n = 0
    for better in range(10):
        for worse in range(better + 1, 10):
            store.apply(
                Result(
                    f"g{n:03d}",
                    "basic",
                    AT.format(n % 60).replace("12:00", f"12:{n // 60:02d}"),
                    (Placing(0, f"p{better}", f"P{better}", 1), Placing(1, f"p{worse}", f"P{worse}", 2)),
                )
            )
            n += 1


def test_the_leaderboard_ranks_best_first_a_page_at_a_time(api):
    ladder_of_ten(api.runtime)
    body = api.call("GET", "/v1/ladders/basic/leaderboard?limit=4").get_json()
    assert body["ladder"] == "basic" and body["ranked"] == 10 and body["offset"] == 0
    assert [line["player_id"] for line in body["players"]] == ["p0", "p1", "p2", "p3"]
    assert [line["rank"] for line in body["players"]] == [1, 2, 3, 4]
    first = body["players"][0]
    assert first["name"] == "P0" and first["played"] == 9 and first["won"] == 9 and first["average_place"] == 1.0
    assert first["by_players"] == {"2": {"played": 9, "won": 9, "average_place": 1.0}}
    ratings = [line["rating"] for line in body["players"]]
    assert ratings == sorted(ratings, reverse=True)
    page = api.call("GET", "/v1/ladders/basic/leaderboard?limit=4&offset=8").get_json()
    assert [line["player_id"] for line in page["players"]] == ["p8", "p9"]
    assert api.call("GET", "/v1/ladders/advanced/leaderboard").get_json() == {
        "ladder": "advanced",
        "ranked": 0,
        "offset": 0,
        "players": [],
    }


def test_the_page_around_a_player_centres_on_their_rank(api):
    ladder_of_ten(api.runtime)
    body = api.call("GET", "/v1/ladders/basic/leaderboard?around=p6&limit=5").get_json()
    assert [line["player_id"] for line in body["players"]] == ["p4", "p5", "p6", "p7", "p8"]
    assert body["offset"] == 4
    top = api.call("GET", "/v1/ladders/basic/leaderboard?around=p0&limit=5").get_json()
    assert top["offset"] == 0 and top["players"][0]["player_id"] == "p0"


def test_an_unknown_ladder_or_an_unrated_player_is_a_404_and_a_bad_page_a_422(api):
    ladder_of_ten(api.runtime)
    missing = api.call("GET", "/v1/ladders/chess/leaderboard")
    assert missing.status_code == 404 and missing.get_json()["code"] == "ladder_not_found"
    assert missing.get_json()["ladders"] == ["basic", "advanced"]
    nobody = api.call("GET", "/v1/ladders/basic/leaderboard?around=p_nobody")
    assert nobody.status_code == 404 and nobody.get_json()["code"] == "player_not_rated"
    api.runtime.ratings.hide("p3", "banned")
    hidden = api.call("GET", "/v1/ladders/basic/leaderboard?around=p3")
    assert hidden.status_code == 404 and hidden.get_json()["code"] == "player_not_rated", "off the board: not around"
    for query in ("limit=0", "limit=101", "offset=-1"):
        refused = api.call("GET", f"/v1/ladders/basic/leaderboard?{query}")
        assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request", query


def test_a_rated_game_shows_its_seats_ratings_and_at_its_end_the_change(api):
    runtime = api.runtime
    ana = api.player("Ana")
    player = runtime.accounts.by_token(ana["token"])
    assert player is not None
    request = NewGame([SeatRequest("human"), SeatRequest("ai", "greedy")], variant=Variant.BASIC, rated=True)
    game = runtime.games.create(player, request).game
    assert game is not None
    view = api.view(game.id, ana["token"])
    assert view["ratings"] == {
        "ladder": "basic",
        "applied": False,
        "seats": [
            {
                "seat": n,
                "player": who,
                "rating": 1000,
                "provisional": who == player.id,  # an AI level is established from the start: an anchor
                "change": None,
                "place": None,
                "counted": None,
                "not_counted": None,
            }
            for n, who in enumerate([player.id, "ai:greedy"])
        ],
    }
    api.call("POST", f"/v1/games/{game.id}/leave", ana["token"], json={})  # resigns: placed last
    api.run_jobs()
    finished = api.call("GET", f"/v1/games/{game.id}", ana["token"], headers={"If-None-Match": f'"{view["version"]}"'})
    ended = finished.get_json()
    assert ended["status"] == "finished" and ended["ratings"]["applied"]
    me, ai = ended["ratings"]["seats"]
    assert (me["place"], ai["place"]) == (2, 1)
    assert me["rating"] == ai["rating"] == 1000 and me["change"] < 0 == ai["change"]
    assert me["counted"] and not ai["counted"], "the AI counts for a newcomer; a provisional rating does not move it"
    assert ai["not_counted"] == "no_established_opponent" and me["not_counted"] is None
    again = api.call("GET", f"/v1/games/{game.id}", ana["token"], headers={"If-None-Match": f'"{ended["version"]}"'})
    assert again.status_code == 200, "a finished rated game's view changes at its version (its ladder takes it): no 304"
    board = api.call("GET", "/v1/ladders/basic/leaderboard").get_json()
    assert [line["player_id"] for line in board["players"]] == ["ai:greedy"], "a provisional rating is not ranked"
    assert board["players"][0]["rating"] == 1000 and not board["players"][0]["provisional"]


def test_an_unrated_game_shows_no_ratings_and_keeps_its_304(api):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, {"kind": "ai", "level": "greedy"}])
    assert "ratings" not in api.view(game["id"], ana["token"])
    same = api.call("GET", f"/v1/games/{game['id']}", ana["token"], headers={"If-None-Match": f'"{game["version"]}"'})
    assert same.status_code == 304


def test_a_rated_games_replay_carries_its_seats_ratings_outside_its_hash_and_its_export_none(api):
    runtime = api.runtime
    ana = api.player("Ana")
    player = runtime.accounts.by_token(ana["token"])
    assert player is not None
    request = NewGame([SeatRequest("ai", "random"), SeatRequest("ai", "greedy")], variant=Variant.BASIC, rated=True)
    game = runtime.games.create(player, request).game
    assert game is not None
    api.run_jobs()
    replay = api.call("GET", f"/v1/games/{game.id}/replay").get_json()
    assert replay["ratings"]["applied"] and [s["player"] for s in replay["ratings"]["seats"]] == ["ai:random", "ai:greedy"]
    assert replay["ratings"] == api.view(game.id)["ratings"]
    assert verify_replay(replay).ok, "the ratings are the ladder's: the replay's hash holds without them"
    page = api.call("GET", f"/v1/games/{game.id}/replay/view").get_data(as_text=True)
    assert '"ratings":' in page and '"ai:greedy"' in page, "the viewer page holds them too, for it to show"
    export = api.call("GET", f"/v1/games/{game.id}/replay/export").get_json()
    assert "ratings" not in export and export["hash"] == replay["hash"]


def test_a_rated_table_still_open_shows_the_seated_players_ratings_and_no_one_on_the_open_seat(api):
    runtime = api.runtime
    ana = api.player("Ana")
    player = runtime.accounts.by_token(ana["token"])
    assert player is not None
    request = NewGame([SeatRequest("human"), SeatRequest("human")], variant=Variant.ADVANCED, rated=True)
    game = runtime.games.create(player, request).game
    assert game is not None and game.status == "waiting"
    seats = api.view(game.id, ana["token"])["ratings"]["seats"]
    assert seats[0]["player"] == player.id and seats[0]["rating"] == 1000
    assert seats[1] == {
        "seat": 1,
        "player": None,
        "rating": None,
        "provisional": None,
        "change": None,
        "place": None,
        "counted": None,
        "not_counted": None,
    }


def test_a_players_profile_shows_their_ratings_once_they_have_one(api):
    from tests.harness.support import HUMAN, ai, play_out

    ana = api.player("Ana")
    profile = api.call("GET", f"/v1/players/{ana['id']}").get_json()
    assert "ratings" not in profile  # none yet: present once there are any
    game = api.game(ana["token"], [HUMAN, ai("random")], variant="basic", rated=True)
    play_out(api, game["id"], ana["token"])
    api.run_jobs()  # the rate job
    ratings = api.call("GET", f"/v1/players/{ana['id']}").get_json()["ratings"]
    basic = ratings["basic"]
    assert set(ratings) == {"basic"} and basic["played"] == basic["counted"] == 1 and basic["provisional"]
    assert basic["rank"] is None and basic["ranked"] == 1, "not ranked until established (the AI level is: an anchor)"
    assert basic["history"][0]["counted"] and basic["history"][0]["not_counted"] is None


def test_the_open_tables_compare_the_players_ratings_on_the_tables_ladder(api):
    from service.application.tables import table_rating

    runtime = api.runtime
    ana = api.player("Ana")
    game = api.game(ana["token"], [{"kind": "human"}, {"kind": "human"}], variant="advanced", listed=True)
    loaded = runtime.games.load(game["id"])
    asked: list[tuple[str, str]] = []
    assert table_rating(loaded, lambda player, ladder: asked.append((player, ladder)) or 1234) == 1234
    assert asked == [(ana["id"], "advanced")]
    assert runtime.games.tables.rating == runtime.ratings.rating  # wired by the composition root
