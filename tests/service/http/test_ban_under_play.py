"""A ban under play (issue 36): the banned player's actions in flight either land before the ban or are refused after
it, never half; their game goes on with an AI and finishes; the ladders equal their rebuild."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.harness.support import HUMAN, Api, ai
from tests.service.http.test_api_reports import signed_up

ACTIONS = ("card_played", "card_to_canvas", "rule_chosen", "folded")


def keep_acting(api: Api, game_id: str, token: str, stop: threading.Event, answers: list[tuple[int, Any]]) -> None:
    """Act whenever it is our turn, as fast as we can, until the ban refuses us or ``stop``."""
    client = api.client.application.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.is_set():
        view = client.get(f"/v1/games/{game_id}", headers=headers)
        if view.status_code != 200:
            answers.append((view.status_code, view.get_json()))
            return
        body = view.get_json()
        if body["status"] != "active":
            return
        if not body["legal_steps"]:
            continue
        step = next((s for s in body["legal_steps"] if s["type"] != "fold"), body["legal_steps"][0])
        choice = {k: step[k] for k in ("type", "card", "seat", "to") if k in step}
        acted = client.post(
            f"/v1/games/{game_id}/actions", json={"steps": [choice]}, headers={**headers, "If-Match": f'"{body["version"]}"'}
        )
        answers.append((acted.status_code, acted.get_json()))
        if acted.status_code == 403:
            return


@pytest.mark.every_store
@pytest.mark.parametrize("moves_before_ban", [0, 2, 5])
def test_a_ban_under_play_lets_each_action_land_whole_or_not_at_all(api, moves_before_ban):
    bo, mo = signed_up(api, "Bo", "bo_b"), api.player("Mo")
    assert api.runtime.safety is not None
    game = api.game(bo["token"], [HUMAN, ai("random")], variant="basic", rated=True)
    stop, answers = threading.Event(), []
    player = threading.Thread(target=keep_acting, args=(api, game["id"], bo["token"], stop, answers))
    player.start()
    played = 0
    while played < moves_before_ban and player.is_alive():  # the AI's turns, while Bo plays his
        api.run_jobs()
        played = sum(1 for status, _ in answers if status == 200)
    api.runtime.safety.moderation.act(mo["id"], "bo_b", "ban", "abuse under play")
    player.join(timeout=30)
    stop.set()
    assert not player.is_alive()
    for _ in range(400):
        api.run_jobs()
        if api.view(game["id"])["status"] == "finished":
            break
    assert api.view(game["id"])["status"] == "finished", "the game goes on with an AI and finishes"

    events: list[dict[str, Any]] = []
    while True:
        page = api.call("GET", f"/v1/games/{game['id']}/events?limit=500&after={len(events)}").get_json()["events"]
        events += page
        if not page:
            break
    over = next(e["n"] for e in events if e["type"] == "game_finished")
    left = next((e["n"] for e in events if e["type"] == "seat_resigned"), over + 1)  # none: it ended before the ban
    assert moves_before_ban > 0 or left <= over, "banned at the start: the AI plays his seat"
    mine = [e for e in events if e["type"] in ACTIONS and e.get("by") == f"player:{bo['id']}"]
    assert all(e["n"] < left for e in mine), "nothing of Bo's lands after the AI took his seat"
    landed = {answer["version"] for status, answer in answers if status == 200}
    by_version = {e["n"]: e for e in events}
    for version in landed:  # every acknowledged action is in the stream, whole
        assert version < left and version in by_version
    refused = [answer["code"] for status, answer in answers if status != 200]
    assert set(refused) <= {"player_banned", "seat_resigned", "version_conflict", "game_not_active", "not_your_turn"}
    assert api.call("GET", "/v1/players/me", bo["token"]).get_json()["code"] == "player_banned"
    assert api.runtime.ratings.hidden_because(bo["id"]) == ("banned",)
    assert api.runtime.ratings.rebuild().identical, "ladders equal their rebuild"
