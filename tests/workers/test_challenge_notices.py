"""A challenge's notices by webhook: queued by the dispatcher for whoever has a webhook, delivered signed by the
``notify`` job, which takes a notice about a challenge (no game) beside the games' own kinds."""

from __future__ import annotations

import json

import pytest

from service.application.followups import Due, challenge_notice
from tests.workers.test_jobs import Receiver, receiver, verify  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def hooked(api, name: str, url: str) -> dict:
    player = api.player(name)
    me = api.call("PATCH", "/v1/players/me", player["token"], json={"webhook_url": url}).get_json()
    return {**player, "secret": me["webhook_secret"]}


def received() -> list[tuple[dict, dict]]:
    return [(headers, json.loads(body)) for headers, body in Receiver.received]


def test_the_players_concerned_are_told_of_a_challenge_at_each_step_and_of_the_game_it_starts(api, receiver):  # noqa: F811 (the fixture)
    ana, bo, cy = hooked(api, "Ana", receiver), hooked(api, "Bo", receiver), api.player("Cy")  # Cy has no webhook
    api.call("PATCH", "/v1/players/me", bo["token"], json={"language": "pl"})  # Bo is told in Polish, whoever challenges
    made = api.call("POST", "/v1/challenges", ana["token"], json={"players": [bo["id"], cy["id"]]}).get_json()
    api.run_jobs()
    ((headers, body),) = Receiver.received  # Bo only: Cy has no webhook, and the challenger is not told of her own one
    assert verify(bo["secret"], headers, body)
    told = json.loads(body)
    assert told == {
        "event": "challenge_received",
        "challenge_id": made["id"],
        "version": 1,
        "player_id": bo["id"],
        "sent_at": told["sent_at"],
        "challenge_url": f"/v1/challenges/{made['id']}",
        "lang": "pl",
        "title": "Masz wyzwanie",
        "body": "Gracz wyzywa cię na pojedynek.",
        "title_code": "push.challenge_received.title",
        "body_code": "push.challenge_received.body",
        "notification_id": told["notification_id"],
    }
    # The notice's id in Bo's own feed, so an app told by webhook and by its feed keeps one.
    inbox = api.call("GET", "/v1/players/me/notifications", bo["token"]).get_json()["notifications"]
    assert [(n["notification_id"], n["event"], n["challenge_id"]) for n in inbox] == [
        (told["notification_id"], "challenge_received", made["id"])
    ]
    Receiver.received.clear()
    api.call("POST", f"/v1/challenges/{made['id']}/accept", cy["token"])
    api.call("POST", f"/v1/challenges/{made['id']}/accept", bo["token"])
    api.run_jobs()
    game_id = api.call("GET", f"/v1/challenges/{made['id']}", ana["token"]).get_json()["game_id"]
    notices = sorted((t["player_id"], t["event"], t.get("game_id", ""), t.get("challenge_id", "")) for _, t in received())
    first_turn = ("your_turn", game_id, "")  # the game's start, told as any game's: to the seat to move
    expected = [
        (ana["id"], "challenge_accepted", "", made["id"]),  # Cy's acceptance, to Ana and Bo
        (bo["id"], "challenge_accepted", "", made["id"]),
        (ana["id"], "challenge_accepted", game_id, made["id"]),
    ]  # Bo's, the last, to Ana: the game started
    if api.view(game_id)["turn"]["seat"] in (0, 1):
        expected.append(({0: ana, 1: bo}[api.view(game_id)["turn"]["seat"]]["id"], *first_turn))
    assert notices == sorted(expected)
    started = next(t for _, t in received() if t.get("game_id") and t["event"] == "challenge_accepted")
    assert started["game_url"] == f"/v1/games/{game_id}" and started["version"] == 4


def test_a_decline_and_a_cancel_are_told_to_the_others_concerned(api, receiver):  # noqa: F811 (the fixture)
    ana, bo = hooked(api, "Ana", receiver), hooked(api, "Bo", receiver)
    declined = api.call("POST", "/v1/challenges", ana["token"], json={"players": [bo["id"]]}).get_json()
    api.call("POST", f"/v1/challenges/{declined['id']}/decline", bo["token"], json={"reason": "later"})
    cancelled = api.call("POST", "/v1/challenges", bo["token"], json={"players": [ana["id"]]}).get_json()
    api.call("DELETE", f"/v1/challenges/{cancelled['id']}", bo["token"])
    api.run_jobs()
    told = sorted((t["player_id"], t["event"], t["challenge_id"]) for _, t in received())
    assert told == sorted(
        [
            (bo["id"], "challenge_received", declined["id"]),
            (ana["id"], "challenge_declined", declined["id"]),
            (ana["id"], "challenge_received", cancelled["id"]),
            (ana["id"], "challenge_cancelled", cancelled["id"]),
        ]
    )


def test_a_notice_is_queued_once_for_a_player_with_a_webhook_and_never_for_one_without(api, receiver):  # noqa: F811 (the fixture)
    bo, cy = hooked(api, "Bo", receiver), api.player("Cy")
    dispatcher = api.runtime.dispatcher
    notices = [
        challenge_notice("challenge_received", "c_1", 1, bo["id"]),
        challenge_notice("challenge_received", "c_1", 1, cy["id"]),
    ]
    dispatcher.notify(notices)
    dispatcher.notify(notices)  # again (a retried request): the same job is on its way
    assert api.runtime.webhook_queue.count == 1
    assert notices[0] == Due("notify", "c_1", 1, (bo["id"], "challenge_received"))
    with pytest.raises(ValueError):
        challenge_notice("your_turn", "c_1", 1, bo["id"])
