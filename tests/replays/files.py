"""Replay files for the import tests: a real finished game's export, and the issue 18 recipe for crafting one."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from replays.build import content_hash
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, play_out, settings_for


def played_game(api: Api) -> tuple[str, dict[str, Any]]:
    """Ana's token and the export of a real finished game she played against an AI (her name in every turn of hers)."""
    token = api.player("Ana")["token"]
    game = api.game(token, [HUMAN, ai("greedy")], action_rules=True, seed=11)
    play_out(api, game["id"], token)
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export", token)
    assert exported.status_code == 200, exported.get_json()
    return token, exported.get_json()


@functools.cache
def genuine() -> dict[str, Any]:
    """One real finished game's export, for the checks that need no store (an embedded in-memory one made it)."""
    runtime = build_runtime(settings_for("red7-test:imports:"))
    return played_game(Api(create_app(runtime), runtime))[1]


def crafted(document: dict[str, Any], name: str) -> dict[str, Any]:
    """The issue's recipe: Ana renamed ``name`` where her seat is taken (and in the header), every step's text blanked,
    the hash recomputed as the verifier computes it."""
    forged = copy.deepcopy(document)
    taken = next(event for event in forged["events"] if event["type"] == "seat_taken")
    taken["name"] = forged["seats"][taken["seat"]]["name"] = name
    for step in forged["steps"]:
        step["text"] = ""
    forged["hash"] = content_hash(forged)
    return forged


def upload(api: Api, token: str, document: dict[str, Any]) -> tuple[Any, bytes]:
    """POST the file as a client sends it (compact UTF-8 JSON); the answer and the file's bytes."""
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    return api.call("POST", "/v1/replays", token, data=body, headers={"Content-Type": "application/json"}), body


def replay_keys(api: Api) -> list[str]:
    return sorted(api.runtime.redis.scan_iter(match=f"{api.runtime.settings.key_prefix}replay:*"))
