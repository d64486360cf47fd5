"""Replays: exact states in every variant, nothing hidden leaks mid-game, tampering is caught, old events still replay."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from engine import ALL_CARDS, Variant, cards_in, event_to_dict, fold
from engine.bots import GreedyBot, RandomBot
from engine.selfplay import play_game
from replays.build import FULL, build_replay, content_hash, state_at
from replays.render import lines
from replays.verify import verify_replay
from service.domain import game as service_game
from tests.harness.support import HUMAN, ai
from tests.service.http.test_leaks import CARD

FIXTURE = Path(__file__).parent / "fixtures" / "finished_game_v1.json"
AT, BY = "2026-01-01T00:00:00.000Z", "test"


def stored_from_selfplay(players: int, variant: Variant, action_rules: bool, seed: int):
    rng = random.Random(seed)
    record = play_game(
        [GreedyBot(rng) if s % 2 else RandomBot(rng) for s in range(players)],
        variant=variant,
        action_rules=action_rules,
        seed=seed,
    )
    created = {
        "type": "game_created",
        "created_by": "p_x",
        "variant": variant.value,
        "action_rules": action_rules,
        "seats": [{"kind": "ai", "level": "random"}] * players,
        "dealing": "seeded",
        "seed": seed,
        "deck": None,
        "turn_timeout": None,
        "timeout_action": "fold",
        "join_code": "code",
    }
    stored = [(1, {**created, "at": AT, "by": BY, "v": 1})]
    stored += [(n, {**event_to_dict(e), "at": AT, "by": BY, "v": 1}) for n, e in enumerate(record.events, start=2)]
    return stored, record


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("action_rules", [False, True])
def test_a_replay_rebuilds_exactly_the_states_the_game_went_through(players, variant, action_rules):
    stored, record = stored_from_selfplay(players, variant, action_rules, seed=players * 10 + action_rules)
    document = build_replay("g_x", stored, FULL)
    assert len(document["steps"]) == len(record.events)
    for index, step in enumerate(document["steps"]):
        truth = fold(record.events[: index + 1])
        state = step["state"]
        assert state["rule"] == str(truth.rule) and state["round"] == truth.round
        assert state["canvas"] == [str(c) for c in truth.canvas] and state["deck_size"] == len(truth.deck)
        for seat, shown in enumerate(state["seats"]):
            assert shown["palette"] == [str(c) for c in cards_in(truth.palettes[seat])]
            assert shown["hand"] == [str(c) for c in cards_in(truth.hands[seat])]
            assert shown["score"] == truth.score(seat) and shown["in_round"] == truth.in_round[seat]
    assert document["outcome"]["winner"] == record.final.winner
    assert verify_replay(document).ok


def test_every_step_says_who_acted_and_explains_itself():
    stored, _ = stored_from_selfplay(3, Variant.ADVANCED, True, seed=5)
    document = build_replay("g_x", stored, FULL)
    by_type = {}
    for step in document["steps"]:
        assert step["text"].endswith(".") and step["index"] >= 1
        by_type.setdefault(step["type"], step)
    assert "the rule is now" in by_type["card_discarded"]["text"] or "the rule stays" in by_type["card_discarded"]["text"]
    out = [s for s in document["steps"] if s["type"] == "player_eliminated" and "without winning" in s["text"]]
    if out:
        assert re.search(r"under \w+ .+ has .+, .+ has .+\.", out[0]["text"])  # both sides' qualifying cards
    assert re.search(r"scores .* for \d+ points?", by_type["round_scored"]["text"])
    assert by_type["card_played"]["seat"] is not None


def test_the_terminal_account_reads_turn_by_turn():
    stored, _ = stored_from_selfplay(2, Variant.BASIC, False, seed=1)
    text = "\n".join(lines(build_replay("g_x", stored, FULL)))
    assert "Round 1 is dealt" in text and "'s turn" in text and "Winner:" in text and "Content hash: sha256:" in text


def test_a_tampered_replay_fails_verification():
    stored, _ = stored_from_selfplay(2, Variant.ADVANCED, False, seed=3)
    document = build_replay("g_x", stored, FULL)
    assert verify_replay(document).ok
    edited = copy.deepcopy(document)
    edited["outcome"]["winner"] = 1 - edited["outcome"]["winner"]
    assert "content hash" in verify_replay(edited).problems[0]
    edited["hash"] = content_hash(edited)  # a careful forger recomputes the hash
    assert any("outcome" in p for p in verify_replay(edited).problems)
    moved = copy.deepcopy(document)
    played = next(e for e in moved["events"] if e["type"] == "card_played")
    played["card"] = next(str(c) for c in ALL_CARDS if str(c) != played["card"])
    moved["hash"] = content_hash(moved)
    assert not verify_replay(moved).ok
    reseeded = copy.deepcopy(document)
    reseeded["options"]["seed"] += 1  # claims a seed that did not deal these cards (a stacked deck)
    reseeded["hash"] = content_hash(reseeded)
    assert any("not dealt from the recorded seed" in p for p in verify_replay(reseeded).problems)


def test_the_stored_events_of_an_old_game_still_replay():
    fixture = json.loads(FIXTURE.read_text())
    stored = [(e["n"], {k: v for k, v in e.items() if k != "n"}) for e in fixture["events"]]
    document = build_replay(fixture["game_id"], stored, FULL)
    expected = fixture["expected"]
    assert document["outcome"] == expected["outcome"]
    assert len(document["steps"]) == expected["steps"]
    import hashlib

    states = hashlib.sha256(json.dumps([s["state"] for s in document["steps"]], sort_keys=True).encode()).hexdigest()
    assert states == expected["states_sha256"], "today's engine rebuilds different states from these stored events"
    assert {e["type"] for e in fixture["events"]} == set(expected["event_types"])
    assert verify_replay(document).ok


def test_old_event_versions_are_upcast_when_read(monkeypatch):
    fixture = json.loads(FIXTURE.read_text())
    # Pretend today's schema is v2, in which card_played renamed "card" to "played" ...
    monkeypatch.setattr(service_game, "EVENT_SCHEMA_VERSION", 2)

    def rename(envelope):
        if envelope["type"] == "card_played":
            envelope["played"] = envelope.pop("card")
        return envelope

    monkeypatch.setitem(service_game.UPCASTERS, 1, rename)
    upcast = service_game.upcast({"type": "card_played", "seat": 0, "card": "R7", "v": 1})
    assert upcast == {"type": "card_played", "seat": 0, "played": "R7", "v": 2}
    with pytest.raises(ValueError, match="newer"):
        service_game.upcast({"type": "card_played", "v": 3})
    assert fixture["events"][0]["v"] == 1


def test_replays_from_the_api(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")], variant="advanced", action_rules=True)
    api.run_jobs()
    response = api.call("GET", f"/v1/games/{game['id']}/replay", token)
    document = response.get_json()
    assert response.status_code == 200 and document["complete"] and document["hash"] == response.headers["ETag"].strip('"')
    assert document["options"]["seed"] is not None and all(s["hand"] is not None for s in document["steps"][5]["state"]["seats"])
    assert verify_replay(document).ok
    at = api.call("GET", f"/v1/games/{game['id']}/replay?at=7", token).get_json()
    assert at["step"] == state_at(document, 7) and at["steps"] == len(document["steps"])
    assert api.call("GET", f"/v1/games/{game['id']}/replay?at=0").get_json()["step"]["state"] is None
    too_far = api.call("GET", f"/v1/games/{game['id']}/replay?at={len(document['steps']) + 1}")
    assert too_far.status_code == 422 and too_far.get_json()["errors"][0]["field"] == "at"
    streamed = api.call("GET", f"/v1/games/{game['id']}/replay", headers={"Accept": "application/x-ndjson"})
    assert streamed.mimetype == "application/x-ndjson"
    rows = [json.loads(line) for line in streamed.get_data(as_text=True).splitlines()]
    assert [r["kind"] for r in rows] == ["header"] + ["step"] * len(document["steps"]) + ["end"]
    assert rows[-1]["hash"] == document["hash"] and rows[3]["text"] == document["steps"][2]["text"]


def test_at_is_a_step_from_0_to_the_last_and_the_schema_the_spec_and_the_refusal_say_so(api):
    """?at=0 is the table before the first step (state null), 1 the first step, N the last; N + 1 and -1 are refused,
    and every refusal says the same range as the OpenAPI document (from 0, not "steps 1 to N")."""
    token, document = exported_short_game(api)
    imported = api.call("POST", "/v1/replays", token, json=document).get_json()
    last = len(document["steps"])
    for url in (f"/v1/games/{document['game_id']}/replay", imported["url"]):
        assert api.call("GET", f"{url}?at=0").get_json()["step"] == {
            "index": 0,
            "text": "Before the first step.",
            "explanation": {"code": "replay.before_first_step", "params": {}},
            "state": None,
        }
        assert api.call("GET", f"{url}?at=1").get_json()["step"] == document["steps"][0]
        assert api.call("GET", f"{url}?at={last}").get_json()["step"] == document["steps"][-1]
        for wrong, said in ((last + 1, f"to {last}, this replay's last step; not {last + 1}"), (-1, "to the replay's last step")):
            refused = api.call("GET", f"{url}?at={wrong}")
            assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request"
            (error,) = refused.get_json()["errors"]
            assert error["field"] == "at" and error["location"] == "query"
            assert error["message"].startswith("at is a step number from 0 (the table before the first step) ")
            assert error["message"].endswith(said), error["message"]
    spec = api.call("GET", "/v1/openapi.json").get_json()
    at = next(p for p in spec["paths"]["/v1/replays/{replay_id}"]["get"]["parameters"] if p["name"] == "at")
    assert at["schema"]["minimum"] == 0 and "0: before the first step" in at["description"]


def exported_short_game(api):
    """A player's token and the exported replay of a short finished game (a fold ends it if the AI did not)."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("random")], variant="basic")
    api.run_jobs()
    if api.view(game["id"], token)["status"] != "finished":
        api.act(game["id"], token, [{"type": "fold"}])
    return token, api.call("GET", f"/v1/games/{game['id']}/replay/export", token).get_json()


CRAFTED = {
    "an event without n": lambda d: d["events"][0].pop("n"),
    "an event numbered 'x'": lambda d: d["events"][0].__setitem__("n", "x"),
    "no options": lambda d: d.pop("options"),
    "options null": lambda d: d.__setitem__("options", None),
    "players as text": lambda d: d["options"].__setitem__("players", "2"),
    "a seed as text": lambda d: d["options"].__setitem__("seed", "abc"),
    "a round numbered as text": lambda d: [e.__setitem__("round", "1") for e in d["events"] if e["type"] == "round_dealt"],
    "a seat that does not exist": lambda d: next(e for e in d["events"] if e["type"] == "seat_taken").__setitem__("seat", 9),
    "seats null": lambda d: d["events"][0].__setitem__("seats", None),
    "a schema version as text": lambda d: d["events"][0].__setitem__("v", "x"),
    "an unknown variant": lambda d: d["events"][0].__setitem__("variant", "zzz"),
    "no first event": lambda d: d["events"].pop(0),
    "events not a list": lambda d: d.__setitem__("events", {"1": {}}),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_file_with_a_recomputed_hash_is_refused_not_crashed_on(api, name):
    token, document = exported_short_game(api)
    CRAFTED[name](document)
    document["hash"] = content_hash(document)
    assert not verify_replay(document).ok
    refused = api.call("POST", "/v1/replays", token, json=document)
    assert refused.status_code == 422 and refused.get_json()["code"] in ("invalid_replay", "invalid_request")


def _with_event(document, index, event):
    """The document with a lobby event forged in at ``index`` (0-based), renumbered and re-hashed."""
    forged = copy.deepcopy(document)
    forged["events"].insert(index, {**event, "at": AT, "by": BY, "v": 1})
    for number, entry in enumerate(forged["events"], start=1):
        entry["n"] = number
    forged["hash"] = content_hash(forged)
    return forged


FORGED_LOBBY = {  # (where: "start" before the deal, "play" before the end; the event)
    "a cancellation of a game in play": ("play", {"type": "game_cancelled"}),
    "a seat left in play": ("play", {"type": "seat_left", "seat": 0}),
    "an AI seat resigning": ("play", {"type": "seat_resigned", "seat": 1, "level": "greedy"}),
    "a resignation before the start": ("start", {"type": "seat_resigned", "seat": 0, "level": "greedy"}),
    "a resignation to no AI level": ("play", {"type": "seat_resigned", "seat": 0, "level": "<b>god</b>"}),
    "a seat -1 leaving": ("start", {"type": "seat_left", "seat": -1}),
    "a seat true leaving": ("start", {"type": "seat_left", "seat": True}),
}


@pytest.mark.parametrize("name", sorted(FORGED_LOBBY))
def test_a_lobby_event_that_could_not_have_happened_does_not_verify(api, name):
    token, document = exported_short_game(api)
    where, event = FORGED_LOBBY[name]
    types = [e["type"] for e in document["events"]]
    index = types.index("game_started") if where == "start" else len(types) - 1
    verdict = verify_replay(_with_event(document, index, event))
    assert not verdict.ok and all(error["field"].startswith("events") for error in verdict.errors), verdict.problems
    refused = api.call("POST", "/v1/replays", token, json=_with_event(document, index, event))
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_replay"


def test_random_damage_to_a_replay_never_crashes_the_verifier():
    stored, _ = stored_from_selfplay(2, Variant.BASIC, True, seed=5)
    document = build_replay("g_x", stored, FULL)
    rng = random.Random(7)
    junk = [None, "x", -1, 10**30, [], {}, 1.5, True]
    for _ in range(150):
        damaged = copy.deepcopy(document)
        event = rng.choice(damaged["events"])
        key = rng.choice(sorted(event))
        event[key] = rng.choice(junk)
        damaged["hash"] = content_hash(damaged)
        verify_replay(damaged)  # any verdict, but no exception


def same_import(again: dict, first: dict) -> bool:
    """Whether an upload of a file imported before was answered with that import: the same answer, but for its
    expiry, counted again from this upload (the route's docstring: kept that long from then), so never earlier."""
    return {**again, "expires_at": None} == {**first, "expires_at": None} and again["expires_at"] >= first["expires_at"]


def test_export_and_import(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")], variant="basic")
    api.run_jobs()
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export", token)
    assert "attachment" in exported.headers["Content-Disposition"] and exported.headers["Content-Disposition"].endswith('.json"')
    document = exported.get_json()
    imported = api.call("POST", "/v1/replays", token, json=document)
    body = imported.get_json()
    assert imported.status_code == 201 and body["id"].startswith("r_") and body["steps"] == len(document["steps"])
    assert api.call("GET", body["url"]).get_json() == document
    assert api.call("GET", f"{body['url']}?at=2").get_json()["step"] == document["steps"][1]
    assert api.call("GET", body["view_url"]).mimetype == "text/html"
    again = api.call("POST", "/v1/replays", token, json=document)
    assert again.status_code == 200 and same_import(again.get_json(), body)  # the same file is the same import, not a copy
    assert again.headers["Location"] == imported.headers["Location"] == body["url"]
    tampered = copy.deepcopy(document)
    tampered["outcome"]["winner"] = 1 - tampered["outcome"]["winner"]
    refused = api.call("POST", "/v1/replays", token, json=tampered)
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_replay"
    assert api.call("GET", "/v1/replays/r_nothing").status_code == 404


def test_a_long_replay_file_can_be_imported(api):
    fixture = json.loads(FIXTURE.read_text())
    stored = [(e["n"], {k: v for k, v in e.items() if k != "n"}) for e in fixture["events"]]
    document = build_replay(fixture["game_id"], stored, FULL)
    token = api.player()["token"]
    assert len(json.dumps(document)) > api.runtime.settings.max_body_bytes
    assert api.call("POST", "/v1/replays", token, json=document).status_code == 201


def test_an_import_is_bounded_in_bytes_and_in_events(api):
    """A file larger, or with more events or steps, than any game makes is refused before the verifier runs."""
    token, document = exported_short_game(api)
    settings = api.runtime.settings
    most = settings.max_replay_events
    many = [{**event, "n": n} for n, event in enumerate((document["events"] * most)[: most + 1], start=1)]
    steps = [{k: v for k, v in step.items() if k != "explanation"} for step in document["steps"]]  # a file may omit it
    for part, value in (("events", many), ("steps", (steps * most)[: most + 1])):
        refused = api.call("POST", "/v1/replays", token, json={**document, part: value})
        assert refused.status_code == 413 and refused.get_json()["code"] == "payload_too_large"
        assert f"at most {most} {part}" in refused.get_json()["detail"] and refused.get_json()[f"max_{part}"] == most
    huge = json.dumps({**document, "padding": "x" * settings.max_replay_bytes})
    too_big = api.call("POST", "/v1/replays", token, data=huge, headers={"Content-Type": "application/json"})
    assert too_big.status_code == 413 and too_big.get_json()["code"] == "payload_too_large"


def test_an_unfinished_game_cannot_be_exported(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    response = api.call("GET", f"/v1/games/{game['id']}/replay/export", token)
    assert response.status_code == 409 and response.get_json()["code"] == "game_not_finished"


def test_a_replay_of_a_game_in_progress_shows_only_what_the_caller_has_seen(api):
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN, ai("greedy")], action_rules=True, seed=31)
    api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    tokens = [ana["token"], bo["token"]]
    rng = random.Random(3)
    for _ in range(40):
        api.run_jobs()
        truth = api.runtime.games.load(game["id"])
        if truth.state.round >= 2:
            break  # far enough: a round was won, scored and a new one dealt; the game cannot be over yet
        mover = truth.seat_to_move()
        if mover is None or mover > 1:
            continue
        view = api.view(game["id"], tokens[mover])
        choice = rng.choice([s for s in view["legal_steps"] if s["type"] != "fold"] or view["legal_steps"])
        api.act(game["id"], tokens[mover], [{k: choice[k] for k in ("type", "card", "seat", "to") if k in choice}])
    assert api.runtime.games.load(game["id"]).status == "active"
    from tests.service.http.test_leaks import Secrets

    secrets = Secrets(api, game["id"], 3).update()
    for seat, token in ((0, ana["token"]), (1, bo["token"]), (None, None)):
        document = api.call("GET", f"/v1/games/{game['id']}/replay", token).get_json()
        assert not document["complete"] and document["options"]["seed"] is None
        by_number = {e["n"]: e for e in document["events"]}
        for step in document["steps"]:
            secret = secrets[step["n"]][seat]
            shown = set(CARD.findall(json.dumps(step["state"]))) | set(CARD.findall(json.dumps(step["text"])))
            event = by_number[step["n"]]
            shown |= set(CARD.findall(json.dumps(event)))
            if event["type"] in ("card_taken", "card_placed"):
                shown.discard(event["card"])
            assert not shown & secret, f"step {step['index']} shows {shown & secret} to seat {seat}"
            hands = [s["hand"] is not None for s in step["state"]["seats"]]
            assert hands == [s == seat for s in range(3)]
        assert api.call("GET", f"/v1/games/{game['id']}/replay/view").status_code == 200


def test_a_replay_that_does_not_verify_is_told_in_words_with_each_error_where_it_is(api):
    token, document = exported_short_game(api)
    tampered = copy.deepcopy(document)
    tampered["outcome"]["winner"] = 1 - tampered["outcome"]["winner"]
    tampered["hash"] = content_hash(tampered)
    body = api.call("POST", "/v1/replays", token, json=tampered).get_json()
    assert body["code"] == "invalid_replay"
    winner = tampered["outcome"]["winner"]
    assert body["detail"] == f"The replay does not verify: the outcome's winner is {winner} in the file but {1 - winner} replayed"
    assert not re.search(r"[{}]|': ", body["detail"]), "a Python dict's repr is no sentence"
    assert body["errors"] == [{"field": "outcome.winner", "message": body["problems"][0], "location": "json"}]
    edited = copy.deepcopy(document)
    edited["steps"][1]["state"]["deck_size"] = -1  # an edit after the file was made: the hash and a state disagree
    body = api.call("POST", "/v1/replays", token, json=edited).get_json()
    assert [e["field"] for e in body["errors"]] == ["hash", "steps.1.state"]
    assert all(e["location"] == "json" and e["message"] in body["problems"] for e in body["errors"])


def test_importing_the_same_replay_again_answers_the_first_import(api):
    token, document = exported_short_game(api)
    first = api.call("POST", "/v1/replays", token, json=document)
    other = api.call("POST", "/v1/replays", api.player("Bo")["token"], json=copy.deepcopy(document))
    assert (first.status_code, other.status_code) == (201, 200)
    assert same_import(other.get_json(), first.get_json()) and other.headers["Location"] == first.headers["Location"]
    keys = api.runtime.redis.keys(f"{api.runtime.settings.key_prefix}replay:*")
    assert len(keys) == 1, keys


def test_a_file_worded_otherwise_imports_retold_in_todays_words(api):
    """Sentences are prose made from the facts: an older wording verifies, and the import keeps today's words (so a
    file can bring no words of its own into an imported replay); the facts and their hash are checked as ever."""
    token, document = exported_short_game(api)
    older = copy.deepcopy(document)
    for step in older["steps"]:
        step["text"] = step["text"].replace(" card.", " cards.").replace("1 card", "1 cards")
    older["steps"][0]["text"] = "Words of the file's own: <b>click here</b>."
    older["hash"] = content_hash(older)
    verdict = verify_replay(older)
    assert verdict.ok and verdict.retold >= 1 and verdict.document is not None
    assert verdict.document == document, "rebuilt: today's words, the same facts and hash as today's export"

    imported = api.call("POST", "/v1/replays", token, json=older)
    assert imported.status_code == 201, imported.get_json()
    kept = api.call("GET", imported.get_json()["url"]).get_json()
    assert kept == document, "kept in today's words, the same document as today's export"
    again = api.call("POST", "/v1/replays", token, json=document)
    assert again.status_code == 200 and again.get_json()["id"] == imported.get_json()["id"]

    padded = {**copy.deepcopy(document), "padding": "x" * 100_000}
    padded["hash"] = content_hash(padded)
    kept_padded = api.call("POST", "/v1/replays", token, json=padded)
    assert kept_padded.status_code == 200 and kept_padded.get_json()["id"] == imported.get_json()["id"], "no padding kept"

    unsigned = copy.deepcopy(older)
    unsigned["steps"][1]["text"] = "changed after the hash was taken"
    assert not verify_replay(unsigned).ok, "a file changed after it was made still fails on its hash"


def test_an_ndjson_export_imports_as_the_same_replay(api):
    token, document = exported_short_game(api)
    game_id = document["game_id"]
    lines = api.call("GET", f"/v1/games/{game_id}/replay/export", headers={"Accept": "application/x-ndjson"})
    assert lines.status_code == 200 and lines.mimetype == "application/x-ndjson"
    assert lines.headers["Content-Disposition"] == f'attachment; filename="red7-{game_id}.ndjson"'
    body = lines.get_data()
    imported = api.call("POST", "/v1/replays", token, data=body, headers={"Content-Type": "application/x-ndjson"})
    assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["steps"] == len(document["steps"]) and imported.get_json()["hash"] == document["hash"]
    assert api.call("GET", imported.headers["Location"]).get_json() == document  # the same replay as the JSON export
    as_json = api.call("POST", "/v1/replays", token, json=document)
    assert as_json.status_code == 200 and as_json.get_json()["id"] == imported.get_json()["id"]  # one replay, two formats
    streamed = api.call("GET", f"/v1/games/{game_id}/replay", headers={"Accept": "application/x-ndjson"}).get_data()
    assert streamed == body  # GET .../replay's lines are the same file


@pytest.mark.parametrize(
    "lines",
    [b'{"kind": "header"\n', b'{"kind": "step"}\n{"kind": "end"}\n', b"[1]\n", b"\xff\xfe\n", b'{"kind": "header"}\n'],
)
def test_lines_that_are_not_a_replays_are_refused(api, lines):
    token = api.player()["token"]
    refused = api.call("POST", "/v1/replays", token, data=lines, headers={"Content-Type": "application/x-ndjson"})
    assert refused.status_code == 400 and refused.get_json()["code"] == "malformed_json"
    assert refused.get_json()["detail"].startswith("The body is not a replay's NDJSON lines: ")


def test_ndjson_lines_of_a_changed_replay_do_not_verify_and_ndjson_is_for_replays_only(api):
    token, document = exported_short_game(api)
    lines = api.call("GET", f"/v1/games/{document['game_id']}/replay", headers={"Accept": "application/x-ndjson"})
    rows = lines.get_data(as_text=True).splitlines()
    rows[1] = rows[1].replace('"index":1', '"index":7')
    refused = api.call("POST", "/v1/replays", token, data="\n".join(rows), headers={"Content-Type": "application/x-ndjson"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_replay"
    assert refused.get_json()["errors"][0]["field"] == "hash"
    elsewhere = api.call("POST", "/v1/games", token, data=lines.get_data(), headers={"Content-Type": "application/x-ndjson"})
    assert elsewhere.status_code == 415 and elsewhere.get_json()["code"] == "unsupported_media_type"


def test_an_import_retried_with_its_idempotency_key_is_answered_as_the_first_was(api):
    token, document = exported_short_game(api)
    key = {"Idempotency-Key": "import-1"}
    first = api.call("POST", "/v1/replays", token, json=document, headers=key)
    retry = api.call("POST", "/v1/replays", token, json=copy.deepcopy(document), headers=key)
    assert (first.status_code, retry.status_code) == (201, 201)  # a second upload without the key: 200
    assert retry.get_json() == first.get_json() and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.headers["Location"] == first.headers["Location"]
    other = {**copy.deepcopy(document), "padding": "x"}
    reused = api.call("POST", "/v1/replays", token, json=other, headers=key)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"


def test_a_retry_with_the_key_is_told_the_expiry_its_first_attempt_was_told(api):
    """Counted again from the import's time left, a retry's expiry could be a second off the first answer's (seen in
    CI on a re-upload); the key's record keeps the first answer's, and the retry is told it."""
    token, document = exported_short_game(api)
    key = {"Idempotency-Key": "import-expiry"}
    first = api.call("POST", "/v1/replays", token, json=document, headers=key)
    imports, now = api.runtime.imports, api.runtime.imports.clock
    imports.clock = lambda: now() + 1.5  # the retry comes a second and a half later, across a second's boundary
    try:
        retry = api.call("POST", "/v1/replays", token, json=copy.deepcopy(document), headers=key)
    finally:
        imports.clock = now
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json()
