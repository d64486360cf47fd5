"""Players: creation, tokens, the caller's profile and games."""

from __future__ import annotations

import time

import pytest

from service.storage.players import MAX_TOKENS, PlayerStore, hash_token
from service.storage.players.keys import finished_key, games_key, player_key, token_key
from tests.harness.support import HUMAN, ai


def test_creating_a_player_returns_its_id_and_a_token_once(api):
    response = api.call("POST", "/v1/players", json={"name": "Ana"})
    assert response.status_code == 201
    body = response.get_json()
    assert body["name"] == "Ana" and body["id"].startswith("p_") and body["token"].startswith("r7_")
    assert response.headers["Location"] == "/v1/players/me"  # where the new token finds its player
    me = api.call("GET", "/v1/players/me", body["token"]).get_json()
    assert me == {
        "id": body["id"],
        "name": "Ana",
        "handle": None,
        "created_at": body["created_at"],
        "webhook_url": None,
        "language": None,
        "live_listed": True,
        "challenge_from": "everyone",
        "talk_from": "opponents",
        "moderator": False,
        "unread_notifications": 0,
        "archive_hidden": False,
        "time_zone": "UTC",
        "weekends_off": False,
        "vacations": [],
        "vacation_hours_left": 240,
        "vacation_hours_per_year": 240,
    }


def test_tokens_are_stored_only_hashed(api, runtime):
    token = api.player()["token"]
    stored = [runtime.redis.hgetall(k) for k in runtime.redis.scan_iter(match=f"{runtime.settings.key_prefix}player:*")]
    assert stored and all(token not in str(values) for values in stored)
    assert not list(runtime.redis.scan_iter(match=f"*{token}*"))


def test_player_names_are_validated_with_field_paths(api):
    for body in ({}, {"name": ""}, {"name": "x" * 41}, {"name": 5}, {"name": "Ana", "extra": 1}):
        response = api.call("POST", "/v1/players", json=body)
        assert response.status_code == 422
        problem = response.get_json()
        assert problem["code"] == "invalid_request"
        assert {e["field"] for e in problem["errors"]} & {"name", "extra"}


#: Control characters, bidi overrides and isolates, zero-width characters, the BOM, line and paragraph separators.
UNPRINTABLE = [
    "\x00",
    "\x07",
    "\n",
    "\x7f",
    "\x85",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200b",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u2028",
    "\u00ad",
]
PRINTABLE = ["Ana", "Zoë", "李雷", "Ana 🙂", "O'Brien-Smith", "Ana Lía", "محمد", "🇫🇷 Léa"]


def test_names_and_token_labels_are_printable_text(api):
    """Others see a name as written: NUL, a bidi override or a zero-width character would make it look other than it is."""
    token = api.player()["token"]
    for char in UNPRINTABLE:
        for method, path, field in (
            ("POST", "/v1/players", "name"),
            ("PATCH", "/v1/players/me", "name"),
            ("POST", "/v1/players/me/tokens", "label"),
        ):
            refused = api.call(method, path, token, json={field: f"Ana{char}Bo"})
            assert refused.status_code == 422, (path, repr(char))
            problem = refused.get_json()
            assert problem["code"] == "invalid_request" and problem["errors"][0]["field"] == field, problem
            assert f"U+{ord(char):04X}" in problem["detail"]
    for name in PRINTABLE:
        created = api.call("POST", "/v1/players", json={"name": name})
        assert created.status_code == 201 and created.get_json()["name"] == name
        assert api.call("PATCH", "/v1/players/me", token, json={"name": name}).get_json()["name"] == name
        issued = api.call("POST", "/v1/players/me/tokens", created.get_json()["token"], json={"label": name})
        assert issued.status_code == 201 and issued.get_json()["label"] == name


def test_calls_without_or_with_a_wrong_token_are_refused(api):
    assert api.call("GET", "/v1/players/me").get_json()["code"] == "token_required"
    assert api.call("GET", "/v1/players/me", "r7_nope").get_json()["code"] == "invalid_token"
    wrong_scheme = api.call("GET", "/v1/players/me", headers={"Authorization": "Basic abc"})
    assert wrong_scheme.status_code == 401 and wrong_scheme.get_json()["code"] == "invalid_token"


def test_setting_a_webhook_shows_its_signing_secret_once(api):
    token = api.player()["token"]
    response = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": "https://example.org/hook"})
    body = response.get_json()
    assert response.status_code == 200 and body["webhook_url"] == "https://example.org/hook" and len(body["webhook_secret"]) > 20
    assert "webhook_secret" not in api.call("GET", "/v1/players/me", token).get_json()
    renamed = api.call("PATCH", "/v1/players/me", token, json={"name": "Bo"}).get_json()
    assert renamed["name"] == "Bo" and "webhook_secret" not in renamed
    removed = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": None}).get_json()
    assert removed["webhook_url"] is None
    bad = api.call("PATCH", "/v1/players/me", token, json={"webhook_url": "ftp://x"})
    assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] == "webhook_url"


def test_my_games_put_the_ones_where_it_is_my_turn_first(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    waiting = api.game(ana["token"], [HUMAN, HUMAN])
    finished = api.game(ana["token"], [HUMAN, ai("random")], variant="basic")
    mine_to_move = None
    for _ in range(10):
        candidate = api.game(ana["token"], [HUMAN, HUMAN], seed=_)
        api.call("POST", f"/v1/games/{candidate['id']}/join", bo["token"], json={"code": candidate["join_code"]})
        if api.view(candidate["id"], ana["token"])["turn"]["seat"] == 0:
            mine_to_move = candidate
            break
    assert mine_to_move is not None
    api.run_jobs()  # the AI moves first if it is to start
    assert api.act(finished["id"], ana["token"], [{"type": "fold"}]).status_code == 200
    games = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert games[0]["id"] == mine_to_move["id"] and games[0]["your_turn"]
    statuses = [g["status"] for g in games]
    assert statuses.index("waiting") > statuses.index("active")
    assert games[-1]["id"] == finished["id"] and games[-1]["status"] == "finished"
    assert waiting["id"] in {g["id"] for g in games}
    assert [g["id"] for g in api.call("GET", "/v1/players/me/games", bo["token"]).get_json()["games"]][:1] != [waiting["id"]]


def test_api_keys_restrict_creating_players_and_games(redis_pair, key_prefix):
    from service.http.app import create_app
    from service.runtime import build_runtime
    from tests.harness.support import Api, settings_for

    runtime = build_runtime(settings_for(key_prefix, api_keys=("k1", "k2")), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    refused = api.call("POST", "/v1/players", json={"name": "Ana"})
    assert refused.status_code == 401 and refused.get_json()["code"] == "api_key_required"
    created = api.call("POST", "/v1/players", json={"name": "Ana"}, headers={"X-Api-Key": "k2"})
    assert created.status_code == 201
    token = created.get_json()["token"]
    game = {"seats": [HUMAN, ai()]}
    assert api.call("POST", "/v1/games", token, json=game).get_json()["code"] == "api_key_required"
    assert api.call("POST", "/v1/games", token, json=game, headers={"X-Api-Key": "k1"}).status_code == 201


# --- tokens --------------------------------------------------------------------------------


def test_a_player_holds_several_labelled_tokens_and_sees_which_one_is_calling(api):
    ana = api.player()
    issued = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"})
    assert issued.status_code == 201
    phone = issued.get_json()
    assert phone["label"] == "phone" and phone["token"].startswith("r7_") and phone["current"] is False
    assert issued.headers["Location"] == f"/v1/players/me/tokens/{phone['id']}"
    assert api.call("GET", "/v1/players/me", phone["token"]).get_json()["id"] == ana["id"]

    listed = api.call("GET", "/v1/players/me/tokens", phone["token"])
    tokens = listed.get_json()["tokens"]
    assert [t["label"] for t in tokens] == ["first token", "phone"]
    assert [t["current"] for t in tokens] == [False, True]
    assert set(tokens[0]) == {"id", "label", "created_at", "current", "scopes"}
    text = listed.get_data(as_text=True)
    for secret in (ana["token"], phone["token"], hash_token(ana["token"]), hash_token(phone["token"])):
        assert secret not in text


def test_a_revoked_token_stops_working_and_the_others_keep_working(api):
    ana = api.player()
    phone = api.call("POST", "/v1/players/me/tokens", ana["token"], json={"label": "phone"}).get_json()
    first = next(t for t in api.call("GET", "/v1/players/me/tokens", ana["token"]).get_json()["tokens"] if t["current"])
    assert api.call("GET", "/v1/players/me", ana["token"]).status_code == 200  # cached in this process now

    assert api.call("DELETE", f"/v1/players/me/tokens/{first['id']}", phone["token"]).status_code == 204
    refused = api.call("GET", "/v1/players/me", ana["token"])
    assert refused.status_code == 401 and refused.get_json()["code"] == "invalid_token"
    assert api.call("GET", "/v1/players/me", phone["token"]).status_code == 200
    again = api.call("DELETE", f"/v1/players/me/tokens/{first['id']}", phone["token"])
    assert again.status_code == 404 and again.get_json()["code"] == "token_not_found"

    # Signing out: a token revokes itself.
    assert api.call("DELETE", f"/v1/players/me/tokens/{phone['id']}", phone["token"]).status_code == 204
    assert api.call("GET", "/v1/players/me", phone["token"]).get_json()["code"] == "invalid_token"


def test_nobody_revokes_another_players_token(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    anas = api.call("GET", "/v1/players/me/tokens", ana["token"]).get_json()["tokens"][0]
    refused = api.call("DELETE", f"/v1/players/me/tokens/{anas['id']}", bo["token"])
    assert refused.status_code == 404 and refused.get_json()["code"] == "token_not_found"
    assert api.call("GET", "/v1/players/me", ana["token"]).status_code == 200


def test_tokens_are_capped_per_player_and_labels_validated(api):
    token = api.player()["token"]
    for n in range(MAX_TOKENS - 1):
        assert api.call("POST", "/v1/players/me/tokens", token, json={"label": f"device {n}"}).status_code == 201
    capped = api.call("POST", "/v1/players/me/tokens", token, json={})
    assert capped.status_code == 409 and capped.get_json()["code"] == "token_limit_reached"
    assert len(api.call("GET", "/v1/players/me/tokens", token).get_json()["tokens"]) == MAX_TOKENS
    for body in ({"label": ""}, {"label": "x" * 41}, {"label": 3}, {"name": "phone"}):
        bad = api.call("POST", "/v1/players/me/tokens", token, json=body)
        assert bad.status_code == 422 and bad.get_json()["errors"][0]["field"] in {"label", "name"}


@pytest.mark.on_cluster
def test_another_process_stops_honouring_a_revoked_token_once_its_cache_entry_expires(redis_pair, key_prefix):
    text, _ = redis_pair
    here = PlayerStore(text, key_prefix)
    elsewhere = PlayerStore(text, key_prefix, cache_seconds=0.05)
    player, token = here.create("Ana", "2026-01-01T00:00:00.000Z")
    assert elsewhere.by_token(token) == player
    info = here.tokens(player.id)[0]
    assert here.revoke_token(player.id, info.id)
    time.sleep(0.06)
    assert elsewhere.by_token(token) is None and here.by_token(token) is None


@pytest.mark.on_cluster
def test_a_lookup_racing_a_revocation_does_not_bring_the_token_back(redis_pair, key_prefix, monkeypatch):
    players = PlayerStore(redis_pair[0], key_prefix)
    player, token = players.create("Ana", "2026-01-01T00:00:00.000Z")
    token_id = players.tokens(player.id)[0].id
    read = players.get

    def get_then_revoked(player_id):  # the revocation lands between a lookup's read and its cache write
        found = read(player_id)
        players.revoke_token(player_id, token_id)
        return found

    monkeypatch.setattr(players, "get", get_then_revoked)
    assert players.by_token(token) == player  # it read the token before the revocation
    monkeypatch.setattr(players, "get", read)
    assert players.by_token(token) is None


def test_a_player_made_before_tokens_were_listed_can_list_and_revoke_its_token(api, runtime):
    """Players stored by the first version kept their one token as token_hash on the player."""
    prefix = runtime.settings.key_prefix
    token = "r7_" + "a" * 43
    runtime.redis.hset(
        player_key(prefix, "p_old"),
        mapping={"name": "Old", "created_at": "2026-01-01T00:00:00.000Z", "token_hash": hash_token(token)},
    )
    runtime.redis.set(token_key(prefix, hash_token(token)), "p_old")
    listed = api.call("GET", "/v1/players/me/tokens", token).get_json()["tokens"]
    assert [(t["label"], t["current"]) for t in listed] == [("first token", True)]
    for n in range(MAX_TOKENS - 1):
        api.call("POST", "/v1/players/me/tokens", token, json={"label": f"d{n}"})
    assert api.call("POST", "/v1/players/me/tokens", token, json={}).get_json()["code"] == "token_limit_reached"
    assert api.call("DELETE", f"/v1/players/me/tokens/{listed[0]['id']}", token).status_code == 204
    assert api.call("GET", "/v1/players/me", token).get_json()["code"] == "invalid_token"


# --- the games list, a page at a time ----------------------------------------------------------


def finished_game(api, token: str) -> str:
    """A two-player basic game against a random AI, played to its end (one round)."""
    game_id = api.game(token, [HUMAN, ai("random")], variant="basic")["id"]
    api.run_jobs()
    if api.view(game_id, token)["status"] != "finished":
        assert api.act(game_id, token, [{"type": "fold"}]).status_code == 200
    api.run_jobs()
    assert api.view(game_id, token)["status"] == "finished"
    return game_id


def all_pages(api, token: str, query: str, cursor: str | None = None) -> list[list[dict]]:
    pages = []
    while True:
        suffix = f"&cursor={cursor}" if cursor else ""
        response = api.call("GET", f"/v1/players/me/games?{query}{suffix}", token)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        pages.append(body["games"])
        cursor = body["next_cursor"]
        if cursor is None:
            return pages


def test_my_games_come_a_page_at_a_time_each_game_once_in_list_order(api):
    ana = api.player()
    finished = [finished_game(api, ana["token"]) for _ in range(5)]
    waiting = []
    for _ in range(2):
        time.sleep(0.002)  # the list orders by the millisecond of the last move; games of one millisecond by id
        waiting.append(api.game(ana["token"], [HUMAN, HUMAN])["id"])
    pages = all_pages(api, ana["token"], "limit=3")
    assert [len(p) for p in pages] == [3, 3, 1]
    listed = [g for page in pages for g in page]
    assert [g["id"] for g in listed[:2]] == waiting[::-1]  # newest first
    assert [g["id"] for g in listed[2:]] == finished[::-1]
    assert [g["status"] for g in listed] == ["waiting"] * 2 + ["finished"] * 5
    whole = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()
    assert [g["id"] for g in whole["games"]] == [g["id"] for g in listed] and whole["next_cursor"] is None


def test_my_games_filter_by_status(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    done = finished_game(api, ana["token"])
    waiting = api.game(ana["token"], [HUMAN, HUMAN])["id"]
    active = api.game(ana["token"], [HUMAN, HUMAN])
    api.call("POST", f"/v1/games/{active['id']}/join", bo["token"], json={"code": active["join_code"]})

    def ids(status: str) -> list[str]:
        return [g["id"] for page in all_pages(api, ana["token"], f"status={status}&limit=1") for g in page]

    assert ids("finished") == [done] and ids("waiting") == [waiting] and ids("active") == [active["id"]]
    assert [g["id"] for g in api.call("GET", "/v1/players/me/games", bo["token"]).get_json()["games"]] == [active["id"]]


def test_a_finished_page_neither_repeats_nor_skips_a_game_when_another_finishes_meanwhile(api):
    ana = api.player()
    older = [finished_game(api, ana["token"]) for _ in range(4)]
    first = api.call("GET", "/v1/players/me/games?status=finished&limit=2", ana["token"]).get_json()
    newer = finished_game(api, ana["token"])
    rest = api.call("GET", f"/v1/players/me/games?status=finished&limit=10&cursor={first['next_cursor']}", ana["token"])
    seen = [g["id"] for g in first["games"] + rest.get_json()["games"]]
    assert seen == older[::-1] and newer not in seen


def test_a_game_in_play_that_finishes_between_pages_shifts_no_other_game_off_the_list(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    games = []
    for seed in range(3):
        game = api.game(ana["token"], [HUMAN, HUMAN], variant="basic", seed=seed)
        api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
        games.append(game["id"])
    first = api.call("GET", "/v1/players/me/games?limit=2", ana["token"]).get_json()
    ended = first["games"][0]["id"]
    mover = [ana, bo][api.view(ended)["turn"]["seat"]]
    assert api.act(ended, mover["token"], [{"type": "fold"}]).status_code == 200  # basic: one round, so the game ends
    rest = [g for page in all_pages(api, ana["token"], "limit=1", first["next_cursor"]) for g in page]
    seen = [g["id"] for g in first["games"]] + [g["id"] for g in rest]
    assert set(seen) == set(games)
    assert [(g["id"], g["status"]) for g in rest][-1] == (ended, "finished")  # shown again, now among the finished


@pytest.mark.on_cluster
def test_games_finished_in_the_same_millisecond_are_paged_by_id(redis_pair, key_prefix):
    players = PlayerStore(redis_pair[0], key_prefix)
    for n in range(7):
        players.archive_game({"p_1"}, f"g_{n}", 1_700_000_000_000)
    seen, before = [], None
    while page := players.finished_ids("p_1", before, 2):
        seen += [game_id for game_id, _ in page]
        before = (page[-1][1], page[-1][0])
    assert seen == [f"g_{n}" for n in range(6, -1, -1)]


def test_a_finished_game_left_among_the_open_ones_is_listed_as_finished_and_moved(api, runtime):
    ana = api.player()
    game_id = finished_game(api, ana["token"])
    prefix = runtime.settings.key_prefix
    runtime.redis.zrem(finished_key(prefix, ana["id"]), game_id)  # as if the writer had died before indexing it
    runtime.redis.sadd(games_key(prefix, ana["id"]), game_id)
    listed = api.call("GET", "/v1/players/me/games", ana["token"]).get_json()["games"]
    assert [(g["id"], g["status"]) for g in listed] == [(game_id, "finished")]
    assert not runtime.redis.sismember(games_key(prefix, ana["id"]), game_id)
    assert runtime.redis.zscore(finished_key(prefix, ana["id"]), game_id) is not None


def test_bad_paging_parameters_are_refused_with_the_field(api):
    token = api.player()["token"]
    cases = (
        ("cursor=zz", "cursor"),
        ("cursor=f.12x.g", "cursor"),
        ("cursor=o.%C2%B2", "cursor"),  # "²": str.isdigit says yes, int() says no
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("status=lost", "status"),
    )
    for query, field in cases:
        response = api.call("GET", f"/v1/players/me/games?{query}", token)
        assert response.status_code == 422, query
        assert response.get_json()["errors"][0]["field"] == field


def test_names_and_labels_are_trimmed_and_blank_ones_refused_with_the_field(api):
    """A name of three spaces was stored as it came, and showed as nothing at the table."""
    created = api.call("POST", "/v1/players", json={"name": "  Ana Lía \t"})
    assert created.status_code == 201 and created.get_json()["name"] == "Ana Lía"
    token = created.get_json()["token"]
    assert api.call("GET", "/v1/players/me", token).get_json()["name"] == "Ana Lía"
    assert api.call("PATCH", "/v1/players/me", token, json={"name": " Bo "}).get_json()["name"] == "Bo"
    issued = api.call("POST", "/v1/players/me/tokens", token, json={"label": " phone  "})
    assert issued.status_code == 201 and issued.get_json()["label"] == "phone"
    assert api.call("POST", "/v1/players", json={"name": " " + "x" * 40 + " "}).status_code == 201  # 40 once trimmed
    for blank in ("   ", "\u3000", " \u00a0 "):
        for method, path, field in (
            ("POST", "/v1/players", "name"),
            ("PATCH", "/v1/players/me", "name"),
            ("POST", "/v1/players/me/tokens", "label"),
        ):
            refused = api.call(method, path, token, json={field: blank})
            problem = refused.get_json()
            assert refused.status_code == 422 and problem["code"] == "invalid_request", (path, repr(blank), problem)
            assert problem["errors"][0]["field"] == field and problem["errors"][0]["location"] == "json", problem
    assert api.call("GET", "/v1/players/me", token).get_json()["name"] == "Bo"


def stored_values(client, prefix: str) -> list[str]:
    """Every string and hash value under ``prefix``."""
    values = []
    for key in client.scan_iter(match=f"{prefix}*"):
        kind = client.type(key)
        if kind == "string":
            values.append(client.get(key))
        elif kind == "hash":
            values += [f"{field}={value}" for field, value in client.hgetall(key).items()]
    return values


def sign_up(api, name: str, key: str, address: str = "203.0.113.5"):
    return api.call(
        "POST", "/v1/players", json={"name": name}, headers={"Idempotency-Key": key}, environ_base={"REMOTE_ADDR": address}
    )


def test_a_sign_up_with_an_idempotency_key_makes_one_player_and_answers_a_retry_with_it(api, runtime):
    first = sign_up(api, "Ana", "signup-1")
    retry = sign_up(api, "Ana", "signup-1")
    assert first.status_code == retry.status_code == 201
    assert retry.get_json() == first.get_json() and retry.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers and retry.headers["Location"] == first.headers["Location"]
    token = first.get_json()["token"]
    assert api.call("GET", "/v1/players/me", token).get_json()["id"] == first.get_json()["id"]
    prefix = runtime.settings.key_prefix
    assert len([k for k in runtime.redis.scan_iter(match=f"{prefix}player:*") if k.endswith("}")]) == 1
    assert not [value for value in stored_values(runtime.redis, prefix) if token in value]  # kept sealed, never in clear
    reused = sign_up(api, "Bo", "signup-1")
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"
    elsewhere = sign_up(api, "Ana", "signup-1", address="198.51.100.7")  # keyed by address: another caller's key
    assert elsewhere.status_code == 201 and elsewhere.get_json()["id"] != first.get_json()["id"]


def test_a_token_issued_with_an_idempotency_key_is_issued_once_and_stays_revoked(api, runtime):
    token = api.player()["token"]
    key = {"Idempotency-Key": "phone-1"}
    first = api.call("POST", "/v1/players/me/tokens", token, json={"label": "phone"}, headers=key)
    retry = api.call("POST", "/v1/players/me/tokens", token, json={"label": "phone"}, headers=key)
    assert first.status_code == retry.status_code == 201 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json() and retry.headers["Location"] == first.headers["Location"]
    assert len(api.call("GET", "/v1/players/me/tokens", token).get_json()["tokens"]) == 2
    phone = first.get_json()["token"]
    assert api.call("GET", "/v1/players/me", phone).status_code == 200
    assert not [value for value in stored_values(runtime.redis, runtime.settings.key_prefix) if phone in value]
    reused = api.call("POST", "/v1/players/me/tokens", token, json={"label": "tablet"}, headers=key)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"
    assert api.call("DELETE", f"/v1/players/me/tokens/{first.get_json()['id']}", token).status_code == 204
    late = api.call("POST", "/v1/players/me/tokens", token, json={"label": "phone"}, headers=key)
    assert late.status_code == 201 and late.get_json()["token"] == phone  # the answer it had ...
    assert api.call("GET", "/v1/players/me", phone).get_json()["code"] == "invalid_token"  # ... and it stays revoked
    assert len(api.call("GET", "/v1/players/me/tokens", token).get_json()["tokens"]) == 1


def test_an_update_without_a_body_is_refused_as_the_document_says(api):
    """``PATCH /v1/players/me`` with no body answered 200 while the document requires one; ``{}`` changes nothing."""
    token = api.player("Ana")["token"]
    document = api.call("GET", "/v1/openapi.json").get_json()
    assert document["paths"]["/v1/players/me"]["patch"]["requestBody"]["required"] is True
    for headers in ({}, {"Content-Type": "application/json"}):
        refused = api.call("PATCH", "/v1/players/me", token, headers=headers)
        assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request", refused.get_json()
    unchanged = api.call("PATCH", "/v1/players/me", token, json={})
    assert unchanged.status_code == 200 and unchanged.get_json()["name"] == "Ana"
