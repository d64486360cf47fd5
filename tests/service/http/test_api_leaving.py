"""Leaving games: a player leaves a waiting game (the seat opens again) or resigns from one in play (an AI takes
the seat); a creator calls off a waiting game."""

from __future__ import annotations

from tests.harness.support import HUMAN, ai
from tests.service.http.test_api_games import DECK, two_humans


def leave(api, game_id, token):
    return api.call("POST", f"/v1/games/{game_id}/leave", token)


def test_a_resigned_seat_is_played_by_an_ai_and_the_game_goes_on_to_its_end(api):
    ana, bo, game = two_humans(api, deck=DECK)  # Ana is to move
    resigned = leave(api, game["id"], ana["token"])
    assert resigned.status_code == 200
    view = resigned.get_json()
    seat = view["seats"][0]
    assert seat["resigned"] and seat["kind"] == "ai" and seat["level"] == "greedy" and seat["player_id"] == ana["id"]
    assert seat["name"] == "Ana (resigned; AI greedy)"
    assert view["version"] == game["version"] + 1 and view["legal_steps"] == []
    for _ in range(400):  # Bo plays on against the AI that took Ana's seat
        api.run_jobs()
        view = api.view(game["id"], bo["token"])
        if view["status"] == "finished":
            break
        if view["legal_steps"]:
            step = next(s for s in view["legal_steps"] if s["type"] in ("play", "discard", "fold"))
            assert api.act(game["id"], bo["token"], [{k: step[k] for k in ("type", "card") if k in step}]).status_code == 200
    assert view["status"] == "finished" and view["winner"] in (0, 1)
    kinds = [e["type"] for e in api.call("GET", f"/v1/games/{game['id']}/events?limit=500", bo["token"]).get_json()["events"]]
    assert "seat_resigned" in kinds and kinds.index("seat_resigned") < len(kinds) - 1  # the game went on after it
    replay = api.call("GET", f"/v1/games/{game['id']}/replay", bo["token"]).get_json()
    texts = [step["text"] for step in replay["steps"]]
    assert "Ana resigned: an AI (greedy) plays the seat from here." in texts
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export", bo["token"]).get_json()
    imported = api.call("POST", "/v1/replays", bo["token"], json=exported)  # verified by folding it again
    assert imported.status_code == 201 and imported.get_json()["steps"] == len(exported["steps"])


def test_a_resigned_player_can_no_longer_act_nor_see_the_seats_cards(api):
    ana, _, game = two_humans(api, deck=DECK)
    hand = api.view(game["id"], ana["token"])["you"]["hand"]
    assert leave(api, game["id"], ana["token"]).status_code == 200
    refused = api.act(game["id"], ana["token"], [{"type": "play", "card": hand[0]}])
    assert refused.status_code == 409 and refused.get_json()["code"] == "seat_resigned"
    again = leave(api, game["id"], ana["token"])
    assert again.status_code == 409 and again.get_json()["code"] == "seat_resigned"
    view = api.view(game["id"], ana["token"])
    assert view["you"] == {"seat": 0, "hand": []} and view["legal_steps"] == []
    for path in (f"/v1/games/{game['id']}", f"/v1/games/{game['id']}/events", f"/v1/games/{game['id']}/replay"):
        text = api.call("GET", path, ana["token"]).get_data(as_text=True)
        for card in hand:  # the seat's hand is an AI's now (none of it is on a palette yet)
            assert f'"{card}"' not in text, (path, card)
    summary = next(g for g in api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"] if g["id"] == game["id"])
    assert summary["your_turn"] is False


def test_a_feed_read_while_a_player_resigns_shows_nothing_past_the_version_it_was_decided_on(api, runtime):
    ana, _, game = two_humans(api, deck=DECK)
    ana_player = runtime.players.get(ana["id"])
    before = runtime.games.load(game["id"])  # a request loads the game, decides what Ana may see ...
    assert leave(api, game["id"], ana["token"]).status_code == 200
    api.run_jobs()  # ... and meanwhile she resigns and the AI plays her seat, drawing cards
    assert runtime.store.version(game["id"]) > before.version + 1
    events = runtime.games.feed(before, ana_player.id, 0, 500)
    assert events[-1]["n"] == before.version  # the AI's moves wait for a read that knows she resigned
    replay = runtime.games.replay(before, ana_player.id)
    assert replay["events"][-1]["n"] == before.version
    later = runtime.games.feed(runtime.games.load(game["id"]), ana_player.id, before.version, 500)
    assert later and all(e.get("card") is None for e in later if e["type"] == "card_drawn")


def test_a_resigned_players_game_is_not_listed_as_their_turn(api):
    ana, _, game = two_humans(api, deck=DECK)  # Ana is to move
    assert leave(api, game["id"], ana["token"]).status_code == 200  # the AI in her seat has not moved yet
    newer = api.game(ana["token"], [HUMAN, HUMAN])
    listed = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert [g["id"] for g in listed] == [game["id"], newer["id"]]  # active before waiting, not ahead as "your turn"
    assert not any(g["your_turn"] for g in listed)


def test_a_player_who_leaves_a_waiting_game_frees_the_seat_for_someone_else(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    game = api.game(ana["token"], [HUMAN, HUMAN, HUMAN])
    path = f"/v1/games/{game['id']}"
    assert api.call("POST", f"{path}/join", bo["token"], json={"code": game["join_code"]}).status_code == 200
    left = leave(api, game["id"], bo["token"])
    assert left.status_code == 200
    view = left.get_json()
    assert view["status"] == "waiting" and "you" not in view
    assert [s["open"] for s in view["seats"]] == [False, True, True] and view["seats"][1]["player_id"] is None
    assert game["id"] not in {g["id"] for g in api.call("GET", "/v1/players/me/games", bo["token"]).get_json()["games"]}
    creator = leave(api, game["id"], ana["token"])
    assert creator.status_code == 409 and creator.get_json()["code"] == "creator_cannot_leave"
    twice = leave(api, game["id"], bo["token"])
    assert twice.status_code == 403 and twice.get_json()["code"] == "not_a_player"
    for token in (cy["token"], bo["token"]):  # the freed seat, then the last one: the game starts
        assert api.call("POST", f"{path}/join", token, json={"code": game["join_code"]}).status_code == 200
    assert api.view(game["id"], bo["token"])["status"] == "active"
    texts = [step["text"] for step in api.call("GET", f"{path}/replay", bo["token"]).get_json()["steps"]]
    assert "Bo left; the seat is open again." in texts


def test_only_seated_players_leave_and_only_a_game_not_over(api):
    ana, cy = api.player("Ana"), api.player("Cy")
    _, _, game = two_humans(api)
    stranger = leave(api, game["id"], cy["token"])
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "not_a_player"
    assert leave(api, game["id"], None).status_code == 401
    assert leave(api, "g_nope", cy["token"]).get_json()["code"] == "game_not_found"
    finished = api.game(ana["token"], [HUMAN, ai("random")], variant="basic")
    api.run_jobs()
    assert api.act(finished["id"], ana["token"], [{"type": "fold"}]).status_code == 200
    over = leave(api, finished["id"], ana["token"])
    assert over.status_code == 409 and over.get_json()["code"] == "game_not_active"


def test_when_every_human_resigns_the_ais_finish_the_game(api):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai("random"), ai("greedy")], seed=5)
    api.run_jobs()
    assert leave(api, game["id"], ana["token"]).status_code == 200
    for _ in range(50):
        api.run_jobs()
        if api.view(game["id"])["status"] == "finished":
            break
    assert api.view(game["id"])["status"] == "finished"


def test_the_creator_calls_off_a_waiting_game_and_it_leaves_every_list(api):
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    game = api.game(ana["token"], [HUMAN, HUMAN, HUMAN])
    path = f"/v1/games/{game['id']}"
    assert api.call("POST", f"{path}/join", bo["token"], json={"code": game["join_code"]}).status_code == 200
    not_mine = api.call("DELETE", path, bo["token"])
    assert not_mine.status_code == 403 and not_mine.get_json()["code"] == "not_the_creator"
    cancelled = api.call("DELETE", path, ana["token"])
    assert cancelled.status_code == 200
    view = cancelled.get_json()
    assert view["status"] == "cancelled" and view["phase"] == "cancelled" and "join_code" not in view
    for token in (ana["token"], bo["token"]):
        listed = api.call("GET", "/v1/players/me/games", token).get_json()["games"]
        assert game["id"] not in {g["id"] for g in listed}
    late = api.call("POST", f"{path}/join", cy["token"], json={"code": game["join_code"]})
    assert late.status_code == 409 and late.get_json()["code"] == "game_not_waiting" and "cancelled" in late.get_json()["detail"]
    twice = api.call("DELETE", path, ana["token"])
    assert twice.status_code == 409 and twice.get_json()["code"] == "game_not_waiting"
    page = api.call("GET", f"{path}/events?wait=5", ana["token"])  # over: answered at once, no long poll
    assert page.get_json()["finished"] is True and page.get_json()["events"][-1]["type"] == "game_cancelled"
    replay = api.call("GET", f"{path}/replay", ana["token"]).get_json()
    assert replay["steps"][-1]["text"] == "The game was called off before it started."


def test_a_game_in_play_cannot_be_called_off(api):
    ana, _, game = two_humans(api)
    refused = api.call("DELETE", f"/v1/games/{game['id']}", ana["token"])
    assert refused.status_code == 409 and refused.get_json()["code"] == "game_not_waiting"
    assert refused.get_json()["detail"] == "The game is active: only a game still waiting can be called off."


def test_a_cancelled_game_left_in_a_list_is_unlisted_by_the_next_listing(api, runtime):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, HUMAN])
    games = runtime.games
    original = games.lists.forget
    games.lists.forget = lambda game: None  # the canceller stops before unlisting it
    try:
        assert api.call("DELETE", f"/v1/games/{game['id']}", ana["token"]).status_code == 200
    finally:
        games.lists.forget = original
    assert runtime.players.game_ids(ana["id"]) == {game["id"]}
    listed = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert game["id"] not in {g["id"] for g in listed}
    assert runtime.players.game_ids(ana["id"]) == set()


def test_a_leave_retried_with_its_idempotency_key_is_answered_as_it_was(api):
    _, bo, game = two_humans(api, deck=DECK)
    key = {"Idempotency-Key": "leave-1"}
    first = api.call("POST", f"/v1/games/{game['id']}/leave", bo["token"], headers=key)
    retry = api.call("POST", f"/v1/games/{game['id']}/leave", bo["token"], headers=key)
    assert first.status_code == retry.status_code == 200, retry.get_json()  # not 409 seat_resigned
    assert retry.get_json() == first.get_json() and retry.headers["Idempotent-Replayed"] == "true"
    assert len(api.runtime.store.read(game["id"])) == first.get_json()["version"]
    assert leave(api, game["id"], bo["token"]).get_json()["code"] == "seat_resigned"
