"""The soak's load: players over HTTP, as frontends drive them, recording what they are told (:mod:`bench.soak.history`).

Kinds of actor, each a thread looping until the soak's end, each with a random generator of its own from the seed:

- :class:`AiTables`: one person at a table with AIs, live (a minute a turn) or correspondence (a day a turn), rated
  or not, webhooks to the local receiver for some; a rematch now and then; an analysis of some finished games;
- :class:`Duels`: two people, one challenges the other, who accepts; they play it out (both seats driven here), and
  a rematch;
- :class:`QuickMatch`: people who open tickets together (AI fill after two seconds) and play the games they are given;
- :class:`Probes`: games of AIs alone, a few always in play: whether AI turns resume after each fault;
- :class:`Streams`: a reader of recent games' Server-Sent Events feeds, a few seconds each (their ids must grow).

Every action is sent with ``If-Match`` and an ``Idempotency-Key``, asked again with the same key while unanswered;
now and then an answered one is sent again, to hold the second answer to the first.  Every other write that creates
(a player, a game, a challenge and its acceptance, a ticket, a rematch offer) carries a key of its own too, kept for
its retries, as docs/api.md asks of clients: a cluster hour without them seated two players twice, each of whom had
asked again for a ticket after a 503 that came when the first was already written.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from typing import Any

import requests

from bench.soak.history import History, Recorded
from tests.faults.players import pick

UNANSWERED = (0, 502, 503, 504)
#: How often an acknowledged action is sent again with its key (the retry must get the first answer).
RETRY_SHARE = 0.1
#: A person's thinking time before each action (s): the load stays modest on a busy machine.
THINK = (0.05, 0.4)
OVER = ("finished", "cancelled", "aborted")


class Stopped(Exception):
    """The soak's load phase is over: the actor stops where it is."""


class Actor:
    """One load thread's players and their shared way of asking and acting."""

    def __init__(self, base: str, history: History, stop: threading.Event, seed: int, receiver_url: str) -> None:
        self.base, self.history, self.stop = base, history, stop
        self.rng = random.Random(seed)
        self.receiver_url = receiver_url
        self.session = requests.Session()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.round()
        except Stopped:
            pass
        except BaseException as error:  # kept for the report: a load actor that dies is a finding
            self.failure = error

    def round(self) -> None:
        raise NotImplementedError

    # --- asking ---------------------------------------------------------------------------------------------------

    def client(self, token: str | None = None, player_id: str | None = None) -> Recorded:
        made = Recorded(self.base, token, player_id, session=self.session, record=False)
        made.history = self.history
        return made

    def ask(self, client: Recorded, method: str, path: str, **kwargs: Any) -> requests.Response:
        """An answer other than 'not answered' (asked again, unchanged, as a client does), or :class:`Stopped`."""
        while True:
            response = client.call(method, path, **kwargs)
            if response is not None and response.status_code == 429:
                self.stop.wait(min(5.0, float(response.headers.get("Retry-After", "1"))))
            elif response is not None and response.status_code not in UNANSWERED:
                return response
            else:
                self.stop.wait(0.3)
            if self.stop.is_set():
                raise Stopped

    def make(self, client: Recorded, path: str, **kwargs: Any) -> requests.Response:
        """A ``POST`` that creates or changes something, with an ``Idempotency-Key`` kept for all its retries, as
        docs/api.md asks of a client: an unanswered or 503'd write may have been done (a Redis failing over after the
        write), and only the key lets the retry be told the first attempt's outcome instead of doing it twice."""
        headers = {**kwargs.pop("headers", {}), "Idempotency-Key": uuid.uuid4().hex}
        return self.ask(client, "POST", path, headers=headers, **kwargs)

    def sign_up(self, name: str) -> Recorded:
        body = self.make(self.client(), "/players", json={"name": name}).json()
        player = self.client(body["token"], body["id"])
        if self.rng.random() < 0.3:
            self.ask(player, "PATCH", "/players/me", json={"webhook_url": self.receiver_url})
            self.history.count("webhook players")
        return player

    def register(self, game_id: str, all_ai: bool = False) -> None:
        self.history.add("games", {"id": game_id, "all_ai": all_ai})
        self.history.count("games made")

    # --- playing --------------------------------------------------------------------------------------------------

    def view(self, player: Recorded, game_id: str) -> dict[str, Any]:
        """The game's view; a 404 is asked again for a while: a rematch's id is named by the finished game's view as
        soon as it is agreed on, and when its making fails (a queue shard away) its job or a later read makes it
        (counted: "rematches named before made")."""
        for attempt in range(60):
            answer = self.ask(player, "GET", f"/games/{game_id}")
            if answer.status_code == 200:
                return answer.json()
            if attempt == 0:
                self.history.count(f"views answered {answer.status_code} at first")
            if self.stop.wait(1.0):
                raise Stopped
        return {"status": f"http {answer.status_code}", "legal_steps": [], "version": 0}

    def step(self, player: Recorded, game_id: str, view: dict[str, Any]) -> None:
        """One action of ``player``'s, acknowledged or refused; an acknowledged one recorded, and sometimes sent again."""
        steps = [pick(view["legal_steps"])]
        headers = {"If-Match": f'"{view["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
        path = f"/games/{game_id}/actions"
        response = self.ask(player, "POST", path, json={"steps": steps}, headers=headers)
        if response.status_code != 200:
            assert response.status_code in (409, 422), (response.status_code, response.text[:300])
            return
        version = response.json()["version"]
        ack = {
            "game": game_id,
            "player": player.player_id,
            "before": view["version"],
            "version": version,
            "steps": [{"type": step["type"], "card": step.get("card")} for step in steps],
        }
        self.history.add("acks", {**ack, "t": time.time(), "key": headers["Idempotency-Key"]})
        self.history.count("actions acknowledged")
        if self.rng.random() < RETRY_SHARE:
            again = player.call("POST", path, json={"steps": steps}, headers=headers)
            answered = {"status": again.status_code if again is not None else 0}
            if again is not None and again.status_code == 200:
                answered["version"] = again.json()["version"]
            self.history.add("retries", {"path": path, "first": {"status": 200, "version": version}, "again": answered})
            self.history.count("idempotent retries")

    def play_out(self, seats: dict[str, Recorded], game_id: str, *, patience: float = 240) -> dict[str, Any]:
        """Every human seat of ``seats`` (player id → client) played until the game is over; its last view.

        A player with no move waits for the next event (a long poll: the waits under test).  Gives up after
        ``patience`` seconds of play (a checked stuck game, not a stuck load).
        """
        players = list(seats.values())
        until = time.monotonic() + patience
        while time.monotonic() < until:
            if self.stop.is_set():
                raise Stopped
            moved = False
            for player in players:
                view = self.view(player, game_id)
                if view["status"] in OVER or view["status"].startswith("http"):
                    self.history.count(f"games {view['status']}")
                    return view
                if view["legal_steps"]:
                    self.stop.wait(self.rng.uniform(*THINK))
                    self.step(player, game_id, view)
                    moved = True
            if not moved:
                after = view["version"]
                self.ask(players[0], "GET", f"/games/{game_id}/events?after={after}&wait=3", timeout=20)
                self.history.count("long polls")
        return self.view(players[0], game_id)

    def analyse(self, player: Recorded, game_id: str) -> None:
        response = self.ask(player, "POST", f"/games/{game_id}/analysis")
        if response.status_code == 202:
            self.history.count("analyses asked")

    def rematch(self, seats: list[Recorded], game_id: str) -> str | None:
        """Every human seat offers a rematch; its game id once it started."""
        view: dict[str, Any] = {}
        for player in seats:
            view = self.make(player, f"/games/{game_id}/rematch").json()
        if view.get("rematch"):
            self.history.count("rematches")
            self.register(view["rematch"])
        return view.get("rematch")


class AiTables(Actor):
    def round(self) -> None:
        person = self.sign_up(f"Ai{self.rng.randrange(10**6)}")
        live = self.rng.random() < 0.6
        rated = self.rng.random() < 0.4
        seats = [{"kind": "human"}] + [{"kind": "ai", "level": self.rng.choice(["greedy", "random"])}] * self.rng.randint(1, 3)
        body: dict[str, Any] = {"seats": seats, "action_rules": self.rng.random() < 0.5, "rated": rated}
        body.update({"turn_timeout": 60} if live else {"days_per_turn": 1})
        game_id = self.make(person, "/games", json=body).json()["id"]
        self.register(game_id)
        self.history.count("live games vs AI" if live else "correspondence games vs AI")
        if rated:
            self.history.count("rated games")
        view = self.play_out({person.player_id or "": person}, game_id)
        if view["status"] == "finished" and self.rng.random() < 0.3:
            self.analyse(person, game_id)
        if view["status"] == "finished" and self.rng.random() < 0.3:
            again = self.rematch([person], game_id)
            if again:
                self.play_out({person.player_id or "": person}, again)


class Duels(Actor):
    def round(self) -> None:
        ana, bo = self.sign_up(f"Ana{self.rng.randrange(10**6)}"), self.sign_up(f"Bo{self.rng.randrange(10**6)}")
        body: dict[str, Any] = {"players": [bo.player_id]}
        body.update({"days_per_turn": 1} if self.rng.random() < 0.5 else {"turn_timeout": 60})
        made = self.make(ana, "/challenges", json=body)
        if made.status_code != 201:
            self.stop.wait(1.0)
            return
        self.history.count("challenges")
        challenge = made.json()["id"]
        accepted = self.make(bo, f"/challenges/{challenge}/accept").json()
        game_id = accepted.get("game_id") or self.ask(ana, "GET", f"/challenges/{challenge}").json()["game_id"]
        if not game_id:
            return
        self.register(game_id)
        self.history.count("games between people")
        seats = {ana.player_id or "": ana, bo.player_id or "": bo}
        view = self.play_out(seats, game_id)
        if view["status"] == "finished" and self.rng.random() < 0.5:
            again = self.rematch([ana, bo], game_id)
            if again:
                self.play_out(seats, again)


class QuickMatch(Actor):
    def round(self) -> None:
        people = [self.sign_up(f"Q{self.rng.randrange(10**6)}") for _ in range(self.rng.randint(2, 4))]
        rated = self.rng.random() < 0.5
        body = {"player_counts": [2, 3], "turn_seconds": 60, "ai_fill_after": 2, "rated": rated}
        tickets = {}
        for person in people:
            answer = self.make(person, "/match-tickets", json=body)
            if answer.status_code == 201:
                tickets[person.player_id or ""] = answer.json()["id"]
                self.history.add("tickets", {"id": tickets[person.player_id or ""], "player": person.player_id})
                self.history.count("tickets")
        games: dict[str, dict[str, Recorded]] = {}
        waiting = dict(tickets)
        until = time.monotonic() + 120
        while waiting and time.monotonic() < until:
            for player_id, ticket_id in list(waiting.items()):
                person = next(p for p in people if p.player_id == player_id)
                seen = self.ask(person, "GET", f"/match-tickets/{ticket_id}").json()
                if seen["status"] == "matched":
                    del waiting[player_id]
                    games.setdefault(seen["game_id"], {})[player_id] = person
            self.stop.wait(0.5)
            if self.stop.is_set():
                raise Stopped
        for game_id in games:
            self.register(game_id)
            self.history.count("quick-match games")
        for game_id, seats in games.items():
            self.play_out(seats, game_id)


class Probes(Actor):
    """Games of AIs alone, ``tables`` in play at once (more during a burst)."""

    tables = 2

    def round(self) -> None:
        watcher = self.sign_up(f"W{self.rng.randrange(10**6)}")
        in_play: list[str] = []
        while not self.stop.is_set():
            in_play = [g for g in in_play if self.view(watcher, g)["status"] not in OVER]
            while len(in_play) < self.tables:
                seats = [{"kind": "ai", "level": self.rng.choice(["greedy", "random"])} for _ in range(self.rng.randint(2, 4))]
                answer = self.make(watcher, "/games", json={"seats": seats, "rated": self.rng.random() < 0.3})
                if answer.status_code != 201:
                    break
                in_play.append(answer.json()["id"])
                self.register(in_play[-1], all_ai=True)
                self.history.count("games of AIs alone")
            self.stop.wait(2.0)

    def burst(self, games: int) -> None:
        """A burst of load: ``games`` more games of AIs alone at once, made from another thread."""
        watcher = self.sign_up(f"Burst{self.rng.randrange(10**6)}")
        for _ in range(games):
            seats = [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}, {"kind": "ai", "level": "greedy"}]
            answer = self.make(watcher, "/games", json={"seats": seats})
            if answer.status_code == 201:
                self.register(answer.json()["id"], all_ai=True)
                self.history.count("burst games")


class Streams(Actor):
    """Follows a recent game's event feed (SSE) for a few seconds at a time, as a browser does; records the ids read."""

    def round(self) -> None:
        reader = self.sign_up(f"S{self.rng.randrange(10**6)}")
        while not self.stop.is_set():
            with self.history.lock:
                recent = [g["id"] for g in self.history.data["games"][-10:]]
            if recent:
                self.follow(reader, self.rng.choice(recent))
            self.stop.wait(1.0)

    def follow(self, reader: Recorded, game_id: str) -> None:
        url = f"{self.base}/v1/games/{game_id}/stream"
        ids: list[int] = []
        resets = status = 0
        try:
            with self.session.get(
                url, headers={"Authorization": f"Bearer {reader.token}"}, stream=True, timeout=(5, 5)
            ) as answer:
                status = answer.status_code
                until = time.monotonic() + 4.0
                for raw in answer.iter_lines():
                    line = raw.decode(errors="replace")
                    if line and line.startswith("id:"):
                        ids.append(int(line[3:].strip()))
                    resets += line == "event: reset"
                    if time.monotonic() > until or self.stop.is_set():
                        break
        except (requests.RequestException, ValueError):
            pass
        self.history.request(reader.player_id or "-", "GET", f"/games/{game_id}/stream", status)
        if ids:
            self.history.add("streams", {"game": game_id, "ids": ids, "resets": resets})
            self.history.count("stream events read", len(ids))


#: The load's mix: how many threads of each kind.
MIX: tuple[tuple[type[Actor], int], ...] = ((AiTables, 3), (Duels, 2), (QuickMatch, 1), (Probes, 1), (Streams, 1))
