"""Challenges as production runs them (gunicorn's two processes, a `red7 worker`, redis-server with AOF), broken for real.

Ana challenges Bo and Cy; their webhooks hear of it.  Then the API and the worker are killed (kill -9) and Redis
too, and everything is started again on what the AOF kept: the challenge is there, rebuilt from its stream, in both
inboxes.  Bo and Cy accept at the same moment, through two API processes: one game starts, with everyone seated,
which Ana hears of by webhook with its id, and which every player finds in their list of games.

And the attack of issue 34: twelve identical challenges sent at once through two API processes make one; fifty
accounts at once cannot put more than the cap in one inbox.
"""

from __future__ import annotations

import threading
from collections import Counter

from tests.harness.deployment import Client, wait_until
from tests.harness.receivers import WebhookReceiver

HOOKS = {"RED7_WEBHOOK_PRIVATE_HOSTS": "1"}  # the receiver listens on loopback


def test_a_challenge_survives_a_restart_of_everything_and_two_acceptances_at_once_start_one_game(deployment, server):
    receiver = WebhookReceiver()
    try:
        base = deployment.api(**HOOKS)
        worker = deployment.worker(**HOOKS)
        ana, bo, cy = (Client(base).sign_up(name) for name in ("Ana", "Bo", "Cy"))
        for player in (ana, bo, cy):
            player.json("PATCH", "/players/me", json={"webhook_url": receiver.url})
        seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "human"}, {"kind": "human"}]
        made = ana.json(
            "POST", "/challenges", expect=201, json={"players": [bo.player_id, cy.player_id], "seats": seats, "days_per_turn": 1}
        )

        def told(kind: str) -> list[dict]:
            return [body for _, body in receiver.calls if body["event"] == kind and body.get("challenge_id") == made["id"]]

        received = wait_until(
            lambda: len(told("challenge_received")) == 2 and told("challenge_received"), 30, "both players challenged hear of it"
        )
        assert sorted(body["player_id"] for body in received) == sorted([bo.player_id, cy.player_id])

        api_process = deployment.started[0]
        deployment.kill_tree(api_process)
        deployment.kill_tree(worker)
        server.kill()
        server.start()
        base = deployment.api(**HOOKS)
        deployment.worker(**HOOKS)
        ana, bo, cy = (Client(base, c.token, c.player_id) for c in (ana, bo, cy))
        for player in (bo, cy):
            inbox = player.json("GET", "/challenges?status=open")["challenges"]
            assert [c["id"] for c in inbox] == [made["id"]] and inbox[0]["role"] == "challenged"

        answers: dict[str, dict] = {}
        start = threading.Barrier(2)

        def accept(player: Client) -> None:
            start.wait()
            answers[player.player_id or ""] = player.json("POST", f"/challenges/{made['id']}/accept")

        threads = [threading.Thread(target=accept, args=(player,)) for player in (bo, cy)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        challenge = ana.json("GET", f"/challenges/{made['id']}")
        game_id = challenge["game_id"]
        assert challenge["status"] == "started" and game_id
        first = [who for who, answer in answers.items() if answer["game_id"] is None]  # its answer: still open
        assert len(answers) == 2 and len(first) == 1 and {a["game_id"] for a in answers.values()} == {None, game_id}
        stream = server.client().xrange(f"{deployment.prefix}challenge:{{{made['id']}}}:events")
        kinds = [fields["e"].split('"type":"', 1)[1].split('"', 1)[0] for _, fields in stream]
        assert sorted(kinds) == sorted(["challenge_created", "challenge_accepted", "challenge_accepted", "challenge_started"])

        view = ana.json("GET", f"/games/{game_id}")
        assert view["status"] == "active" and [s["player_id"] for s in view["seats"]] == [
            ana.player_id,
            None,
            bo.player_id,
            cy.player_id,
        ]
        for player in (ana, bo, cy):
            assert [g["id"] for g in player.json("GET", "/players/me/games")["games"]] == [game_id]
        started = wait_until(
            lambda: (
                len([b for b in told("challenge_accepted") if b.get("game_id")]) == 2
                and [b for b in told("challenge_accepted") if b.get("game_id")]
            ),
            30,
            "the others hear it started",
        )
        assert sorted(b["player_id"] for b in started) == sorted([ana.player_id, *first])  # all but the last to accept
        assert all(b["game_id"] == game_id and b["game_url"].endswith(f"/v1/games/{game_id}") for b in started)
        assert not [a for c in (ana, bo, cy) for a in c.server_errors()]
    finally:
        receiver.close()


def _at_once(calls: list) -> list:
    """Each call from a thread of its own, all released together; their answers (``None``: no answer)."""
    start = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(n: int) -> None:
        start.wait()
        answers[n] = calls[n]()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers


def test_identical_challenges_at_once_make_one_and_many_accounts_cannot_flood_an_inbox(deployment):
    # Two gunicorns of one process each: every other request goes to the other process.  Sign-ups unbudgeted (fifty
    # from one address), and the address's challenge budget above what the test sends: the caps are at stake here.
    env = {"RED7_RATE_LIMIT_SIGNUP": "", "RED7_RATE_LIMIT_CHALLENGE": "200 per hour"}
    bases = [deployment.api(workers=1, name=f"api{n}", **env) for n in range(2)]
    ana, bo, cy = (Client(bases[0]).sign_up(name) for name in ("Ana", "Bo", "Cy"))
    body = {"players": [bo.player_id], "days_per_turn": 1}
    twelve = _at_once(
        [lambda n=n: Client(bases[n % 2], ana.token, ana.player_id).call("POST", "/challenges", json=body) for n in range(12)]
    )
    statuses = Counter(answer.status_code if answer is not None else 0 for answer in twelve)
    assert statuses == {201: 1, 409: 11}, statuses
    assert {a.json()["code"] for a in twelve if a is not None and a.status_code == 409} == {"already_challenged"}
    inbox = bo.json("GET", "/challenges?status=open")["challenges"]
    assert [c["challenger"]["id"] for c in inbox] == [ana.player_id]

    senders = [Client(bases[n % 2]).sign_up(f"S{n}") for n in range(50)]
    flood = _at_once(
        [lambda s=s: s.call("POST", "/challenges", json={"players": [cy.player_id], "days_per_turn": 1}) for s in senders]
    )
    statuses = Counter(answer.status_code if answer is not None else 0 for answer in flood)
    assert statuses == {201: 20, 409: 30}, statuses  # RED7_MAX_CHALLENGES_RECEIVED: 20
    assert {a.json()["code"] for a in flood if a is not None and a.status_code == 409} == {"challenge_inbox_full"}
    assert len(cy.json("GET", "/challenges?status=open&limit=100")["challenges"]) == 20
    assert not [a for c in (ana, bo, cy, *senders) for a in c.server_errors()]
