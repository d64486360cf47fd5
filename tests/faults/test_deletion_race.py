"""Deleting an account while its tokens write everything they can, on the production shape (issue 34).

Two gunicorn processes (gevent, one worker each: two caches of token lookups), a ``red7 worker`` (AI turns, the
matchmaker) and a redis-server with AOF, of the test's own.  Each of :data:`RUNS` runs signs a player up, gives them
something of everything (a game in play against an AI, a finished one to ask a rematch of, a challenge received, a
table of another's to join), then fires writes of every kind with every token the account holds (new ones too, as
they are issued) through both processes at once, while another request deletes the account through one of them.

After each run's 204: no write sent after it succeeded (each is a 401 ``invalid_token``), and no answer at all was a
500.  After all the runs: nothing any deleted account started lives on (a game waiting or in play with its seat
still its own, a match ticket waiting, a challenge open, a token that resolves to it, a push subscription, a record
that is more than a tombstone), whatever raced the deletion, the matchmaker's games included.  Writes that passed
their token's check before the account went and wrote as it went are told apart by their answer's detail
(:data:`~service.application.players.ACCOUNT_GONE`): the test requires that race to have happened.

About 1.5 s a run on a 2-core machine (``RED7_DELETION_RUNS`` runs fewer, to try it quickly).
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.application.players import ACCOUNT_GONE, Player
from service.application.push import new_vapid_key
from service.common.config import Settings
from service.runtime import Runtime, build_runtime
from service.storage.players.keys import player_key, token_key
from service.storage.push import push_key
from tests.harness.deployment import Client

RUNS = int(os.environ.get("RED7_DELETION_RUNS", "50"))
#: The writers firing at once, and how long they go on after the deletion's 204 (s).
WRITERS = 4
AFTER = 0.2
#: Where the account's webhook and push subscription point: loopback (the private-host switch on), a closed port.
NOWHERE = "http://127.0.0.1:9"
ENV = {
    "RED7_WEBHOOK_PRIVATE_HOSTS": "1",
    "RED7_VAPID_PRIVATE_KEY": new_vapid_key(),
    "RED7_RATE_LIMIT_SIGNUP": "",  # two sign-ups a run, all from one address
    "RED7_RATE_LIMIT_CHALLENGE": "",  # challenges every run, all from one address: this tests deletion, not budgets
}
HUMAN, AI = {"kind": "human"}, {"kind": "ai", "level": "greedy"}
BASIC = {"variant": "basic"}  # one round: the AI games a departure leaves behind end soon
PUSH = {
    "endpoint": f"{NOWHERE}/push/x",
    "keys": {
        "p256dh": "BLc4xRzKlKORKWlbdgFaBrrPK3ydWAHo4M0gs0i1oEKgPpWC5cW8OCzVrOQRv-1npXRWk8udnW3oYhIO4475rds",
        "auth": "5I2Bu2oKdyy9CwL8QVF0NQ",
    },
}


@dataclass
class Sent:
    kind: str
    at: float  # when it was sent (monotonic)
    status: int
    code: str | None
    detail: str | None = None


@dataclass
class Run:
    """One account's deletion under fire: what it holds, the tokens it has, and every write's answer."""

    n: int
    apis: list[str]
    ana: Client
    bo: Client
    table: dict[str, Any]
    challenge: str
    in_play: str
    over: str
    tokens: list[str] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    writes: int = 0

    def token(self, rng: random.Random) -> str:
        with self.lock:
            return rng.choice(self.tokens)


def finished_game(player: Client) -> str:
    """A game of the player's against an AI, over: the player folds when it is their turn (one round, basic)."""
    game = player.json("POST", "/games", expect=201, json={"seats": [HUMAN, AI], **BASIC})
    for _ in range(200):
        view = player.json("GET", f"/games/{game['id']}")
        if view["status"] == "finished":
            return str(game["id"])
        fold = [step for step in view["legal_steps"] if step["type"] == "fold"]
        if fold:
            player.call(
                "POST",
                f"/games/{game['id']}/actions",
                json={"steps": [{"type": "fold"}]},
                headers={"If-Match": f'"{view["version"]}"'},
            )
        else:
            player.call("GET", f"/games/{game['id']}/events?after={view['version']}&wait=2", timeout=10)
    raise AssertionError(f"game {game['id']} did not finish")


def prepare(apis: list[str], n: int) -> Run:
    a, b = apis
    ana, bo = Client(a).sign_up(f"Ana {n}"), Client(b).sign_up(f"Bo {n}")
    bo.json("PATCH", "/players/me", json={"handle": f"bo_{n}_{random.randrange(10**6)}"})
    table = bo.json("POST", "/games", expect=201, json={"seats": [HUMAN, HUMAN], **BASIC})
    challenge = bo.json("POST", "/challenges", expect=201, json={"players": [ana.player_id], "seats": [HUMAN, HUMAN]})
    in_play = ana.json("POST", "/games", expect=201, json={"seats": [HUMAN, AI], **BASIC, "turn_timeout": 600})
    run = Run(n, apis, ana, bo, table, challenge["id"], in_play["id"], finished_game(ana))
    run.tokens.append(ana.token or "")
    return run


def act(run: Run, client: Client) -> tuple[str, str, dict[str, Any], dict[str, str]] | None:
    """A move in the game in play, on the version the player sees (``None``: not theirs to move now)."""
    response = client.call("GET", f"/games/{run.in_play}")
    if response is None or response.status_code != 200 or not response.json()["legal_steps"]:
        return None
    view = response.json()
    step = {k: v for k, v in view["legal_steps"][0].items() if k in ("type", "card", "seat", "to")}
    return "POST", f"/games/{run.in_play}/actions", {"steps": [step]}, {"If-Match": f'"{view["version"]}"'}


#: Every kind of write: (method, path, body, headers) for the run, or ``None`` when there is nothing to send now.
WRITES: dict[str, Callable[[Run, Client, int], tuple[str, str, dict[str, Any], dict[str, str]] | None]] = {
    "create a game vs an AI": lambda r, c, i: ("POST", "/games", {"seats": [HUMAN, AI], **BASIC}, {}),
    "create a game for people": lambda r, c, i: ("POST", "/games", {"seats": [HUMAN, HUMAN], "listed": True}, {}),
    "join": lambda r, c, i: ("POST", f"/games/{r.table['id']}/join", {"code": r.table["join_code"]}, {}),
    "act": lambda r, c, i: act(r, c),
    "challenge": lambda r, c, i: ("POST", "/challenges", {"players": [r.bo.player_id], "seats": [HUMAN, AI, HUMAN]}, {}),
    "accept": lambda r, c, i: ("POST", f"/challenges/{r.challenge}/accept", {}, {}),
    "match ticket": lambda r, c, i: ("POST", "/match-tickets", {"player_counts": [2], "ai_fill_after": 0, **BASIC}, {}),
    "token": lambda r, c, i: ("POST", "/players/me/tokens", {"label": f"t{i}"}, {}),
    "profile": lambda r, c, i: (
        "PATCH",
        "/players/me",
        {"name": f"Ana {i}", "handle": f"a{r.n}_{i}_{random.randrange(999)}"},
        {},
    ),
    "webhook": lambda r, c, i: ("PATCH", "/players/me", {"webhook_url": f"{NOWHERE}/hook"}, {}),
    "push": lambda r, c, i: ("POST", "/players/me/push-subscription", PUSH, {}),
    "rematch": lambda r, c, i: ("POST", f"/games/{r.over}/rematch", {}, {}),
    "stream ticket": lambda r, c, i: ("POST", f"/games/{r.in_play}/stream-tickets", {}, {}),
    "vacation": lambda r, c, i: ("PATCH", "/players/me", {"time_zone": "Europe/Berlin", "weekends_off": True}, {}),
}


def write(run: Run, stop: threading.Event, seed: int) -> None:
    """Fire writes of every kind, with any token of the account, through either process, until ``stop``."""
    rng = random.Random(seed)
    kinds = list(WRITES)
    while not stop.is_set():
        rng.shuffle(kinds)
        for kind in kinds:
            if stop.is_set():
                return
            with run.lock:
                run.writes += 1
                i = run.writes
            client = Client(run.apis[i % 2], run.token(rng))
            request = WRITES[kind](run, client, i)
            if request is None:
                continue
            method, path, body, headers = request
            at = time.monotonic()
            response = client.call(method, path, json=body, headers=headers, timeout=20)
            status = response.status_code if response is not None else 0
            code = detail = None
            if response is not None and response.headers.get("Content-Type", "").endswith("json"):
                answer = response.json()
                code, detail = answer.get("code"), answer.get("detail")
                if kind == "token" and status == 201:
                    with run.lock:
                        run.tokens.append(answer["token"])  # a token minted in the window writes too
            with run.lock:
                run.sent.append(Sent(kind, at, status, code, detail))


def race(run: Run, rng: random.Random) -> tuple[float, int]:
    """The writers, and the deletion among them: when its 204 came (monotonic) and its status."""
    stop = threading.Event()
    writers = [threading.Thread(target=write, args=(run, stop, rng.randrange(2**32))) for _ in range(WRITERS)]
    for writer in writers:
        writer.start()
    time.sleep(rng.uniform(0.03, 0.15))
    deleted = Client(run.apis[run.n % 2], run.ana.token).call("DELETE", "/players/me", timeout=30)
    answered = time.monotonic()
    time.sleep(AFTER)
    stop.set()
    for writer in writers:
        writer.join(60)
    assert not any(writer.is_alive() for writer in writers)
    return answered, deleted.status_code if deleted is not None else 0


def alive(runtime: Runtime, prefix: str, deleted: set[str]) -> dict[str, list[str]]:
    """What any deleted account still holds live, read from the store as the service reads it."""
    text = runtime.redis
    found: dict[str, list[str]] = {}

    def ids(kind: str) -> list[str]:
        return [key.split("{", 1)[1].split("}", 1)[0] for key in text.scan_iter(match=f"{prefix}{kind}:{{*}}:events")]

    for game_id in ids("game"):
        game = runtime.games.load(game_id)
        for seat in game.seats:
            if seat.player_id in deleted and game.status in ("waiting", "active") and not seat.resigned:
                found.setdefault("games", []).append(f"{game_id} ({game.status}, {seat.player_id})")
    now = runtime.challenges.now()
    for challenge_id in ids("challenge"):
        challenge = runtime.challenges.load(challenge_id)
        if challenge.status(now) == "open" and deleted & set(challenge.players):
            found.setdefault("challenges", []).append(challenge_id)
    for player_id in deleted:
        tickets = runtime.matches.open_tickets(Player(player_id, "deleted player", ""))
        found.setdefault("tickets", []).extend(view.ticket.id for view in tickets)
        if text.exists(push_key(prefix, player_id)):
            found.setdefault("push subscriptions", []).append(player_id)
        if set(text.hgetall(player_key(prefix, player_id))) != {"deleted_at"}:
            found.setdefault("records", []).append(player_id)
    for key in text.scan_iter(match=token_key(prefix, "*")):
        if text.get(key) in deleted:
            found.setdefault("tokens", []).append(key)
    return {kind: items for kind, items in found.items() if items}


def test_no_write_of_a_deleted_account_succeeds_after_its_204_and_nothing_it_started_lives_on(deployment, server):
    apis = [deployment.api(workers=1, name="api-a", **ENV), deployment.api(workers=1, name="api-b", **ENV)]
    worker = deployment.worker(**ENV)
    deployment.wait_listening(worker)
    rng = random.Random(34)
    runs: list[Run] = []
    late: list[str] = []
    for n in range(RUNS):
        run = prepare(apis, n)
        answered, status = race(run, rng)
        assert status == 204, f"run {n}: the deletion answered {status}"
        runs.append(run)
        late += [
            f"run {n}: {s.kind} sent {s.at - answered:+.3f} s after the 204 -> {s.status} {s.code}"
            for s in run.sent
            if s.at > answered and (s.status, s.code) != (401, "invalid_token")
        ]
    failures = [f"run {r.n}: {s.kind} -> {s.status} {s.code}" for r in runs for s in r.sent if s.status >= 500 or s.status == 0]
    assert not failures, "\n".join(failures[:20])
    assert not late, "\n".join(late[:20])
    statuses = Counter((s.kind, s.status) for r in runs for s in r.sent)
    print(f"{sum(len(r.sent) for r in runs)} writes in {RUNS} runs:", dict(sorted(statuses.items())))
    succeeded = {s.kind for r in runs for s in r.sent if 200 <= s.status < 300}
    assert succeeded == set(WRITES), succeeded  # every kind got through before its account went
    # Writes that passed their token's check before the account went and wrote as it went (told apart by their
    # detail): the race that had to be closed happened, and they too were answered invalid_token.
    raced = Counter(s.kind for r in runs for s in r.sent if s.detail == ACCOUNT_GONE)
    print("raced the deletion:", dict(raced))
    assert sum(raced.values()) > 0

    settings = Settings.from_env(deployment.env)
    runtime = build_runtime(settings)
    deleted = {run.ana.player_id or "" for run in runs}
    time.sleep(1.0)  # the matchmaker's passes (every 250 ms): a match recorded before a deletion is made into its game
    assert alive(runtime, settings.key_prefix, deleted) == {}
    assert not [a for run in runs for c in (run.ana, run.bo) for a in c.server_errors()]
