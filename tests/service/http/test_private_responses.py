"""What a response shows depends on the caller's token: no cache may hand one player's hand (or token) to another."""

from __future__ import annotations

from tests.service.http.test_api_games import DECK, two_humans


def assert_private(response, *, stored: bool = True) -> None:
    """``Vary: Authorization`` and ``Cache-Control: private`` (``no-store`` for what should be kept nowhere)."""
    assert response.status_code < 400, response.get_data(as_text=True)
    assert "authorization" in {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}, response.headers
    directives = {d.strip() for d in response.headers.get("Cache-Control", "").split(",")}
    assert ("private" if stored else "no-store") in directives, response.headers


def test_every_response_made_for_the_caller_is_private_to_it(api):
    ana, bo, game = two_humans(api, deck=DECK)
    token, game_id = ana["token"], game["id"]
    path = f"/v1/games/{game_id}"
    assert_private(api.call("GET", path, token))
    assert_private(api.call("GET", path))  # the spectator's view: another view of the same URL
    assert_private(api.call("GET", path, token, headers={"If-None-Match": f'"{game["version"]}"'}))  # 304
    assert_private(api.call("GET", f"{path}/events", token))
    assert_private(api.call("GET", f"{path}/events?after=0&wait=0", bo["token"]))
    stream = api.call("GET", f"{path}/stream", token)  # not read: the game is not over, the stream would go on
    assert_private(stream, stored=False)
    assert stream.headers["X-Accel-Buffering"] == "no"  # nginx passes each event on at once
    stream.close()  # ends its request (and the player it found)
    assert_private(api.call("GET", f"{path}/replay", token))
    assert_private(api.call("GET", f"{path}/replay?at=0", token))
    ndjson = api.call("GET", f"{path}/replay", token, headers={"Accept": "application/x-ndjson"})
    assert_private(ndjson)
    ndjson.get_data()  # streamed: read to the end, which ends its request (and the player it found)

    steps = [{"type": "play", "card": "R6"}, {"type": "discard", "card": "G4"}]
    key = {"Idempotency-Key": "turn-1"}
    assert_private(api.act(game_id, token, steps, headers=key))
    replayed = api.act(game_id, token, steps, headers=key)
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert_private(replayed)
    left = api.call("POST", f"{path}/leave", bo["token"])
    assert_private(left)
    assert left.get_json()["seats"][1]["resigned"] is True

    assert_private(api.call("GET", "/v1/players/me", token))
    assert_private(api.call("GET", "/v1/players/me/games", token))
    assert_private(api.call("GET", "/v1/players/me/games?status=active&limit=1", token))
    assert_private(api.call("GET", "/v1/players/me/tokens", token))
    # A token or a webhook secret, shown once: kept nowhere.
    assert_private(api.call("POST", "/v1/players", json={"name": "Cy"}), stored=False)
    assert_private(api.call("POST", "/v1/players/me/tokens", token, json={"label": "phone"}), stored=False)
    assert_private(api.call("PATCH", "/v1/players/me", token, json={"webhook_url": "https://example.org/hook"}), stored=False)
    assert_private(api.call("PATCH", "/v1/players/me", token, json={"name": "Ana B"}), stored=False)

    waiting = api.game(token, [{"kind": "human"}, {"kind": "human"}])  # its view holds the join code
    assert_private(api.call("POST", "/v1/games", token, json={"seats": [{"kind": "human"}, {"kind": "human"}]}))
    assert_private(api.call("POST", f"/v1/games/{waiting['id']}/join", bo["token"], json={"code": waiting["join_code"]}))
    other = api.game(token, [{"kind": "human"}, {"kind": "human"}])
    assert_private(api.call("DELETE", f"/v1/games/{other['id']}", token))
