"""Players that drive games over HTTP as a frontend does, through Redis outages, and keep what was acknowledged."""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tests.harness.deployment import Client, wait_until

UNANSWERED = (0, 502, 503, 504)  # no answer, or the store was away: ask again (the same Idempotency-Key)


@dataclass(frozen=True)
class Ack:
    """An acknowledged action: the player, the version acted on, the version it made, when."""

    player_id: str
    before: int
    version: int
    at: float


@dataclass
class Human:
    """One human seat, played through one or more API processes (taken in turn, request by request)."""

    clients: list[Client]
    game_id: str
    acks: list[Ack] = field(default_factory=list)
    failure: BaseException | None = None  # what stopped the player, if anything did
    _turn: Any = field(default_factory=lambda: itertools.cycle(range(8)))

    def client(self) -> Client:
        return self.clients[next(self._turn) % len(self.clients)]

    def ask(self, method: str, path: str, **kwargs: Any) -> Any:
        """An answer other than 'the store is away' (retried as a client would, the request unchanged)."""
        for _ in range(600):
            response = self.client().call(method, path, **kwargs)
            if response is not None and response.status_code == 429:  # as a client should: after Retry-After
                time.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            if response is not None and response.status_code not in UNANSWERED:
                assert response.status_code < 500, f"{method} {path} -> {response.status_code}: {response.text[:300]}"
                return response
            time.sleep(0.2)
        raise AssertionError(f"{method} {path}: no answer for two minutes")

    def play(self, stop: threading.Event, deadline: float) -> None:
        """Play every turn of this seat, looking in now and then once the game is over, until ``stop``.

        A failure is kept in ``failure``.
        """
        try:
            self._play(stop, deadline)
        except BaseException as error:
            self.failure = error
            raise

    def _play(self, stop: threading.Event, deadline: float) -> None:
        while not stop.is_set() and time.monotonic() < deadline:
            view = self.ask("GET", f"/games/{self.game_id}").json()
            if view["status"] in ("finished", "cancelled"):
                # Over, as far as the player has seen; a Redis that lost its last writes may bring it back.
                stop.wait(1.0)
                continue
            if not view["legal_steps"]:
                self.ask("GET", f"/games/{self.game_id}/events?after={view['version']}&wait=5", timeout=20)
                continue
            steps = [pick(view["legal_steps"])]
            headers = {"If-Match": f'"{view["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
            response = self.ask("POST", f"/games/{self.game_id}/actions", json={"steps": steps}, headers=headers)
            if response.status_code == 200:
                self.acks.append(Ack(self.clients[0].player_id or "", view["version"], response.json()["version"], time.time()))
            else:
                assert response.status_code in (409, 422), response.text  # another process's state was newer


def pick(options: list[dict[str, Any]]) -> dict[str, Any]:
    """A legal step that keeps the mover in the round if there is one."""
    keeping = [s for s in options if s["can_win"] and not s["eliminates"]]
    chosen = (keeping or options)[0]
    return {k: chosen[k] for k in ("type", "card", "draw", "seat", "to") if k in chosen}


def play_all(humans: list[Human], seconds: float) -> tuple[threading.Event, list[threading.Thread]]:
    stop = threading.Event()
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=h.play, args=(stop, deadline), daemon=True) for h in humans]
    for thread in threads:
        thread.start()
    return stop, threads


def play_out(humans: list[Human], over: Callable[[], bool], stop: threading.Event, threads: list[threading.Thread]) -> None:
    """Wait (up to 200 s) until ``over()``, failing at once if a player failed; then stop the players."""

    def done() -> bool:
        failures = [h.failure for h in humans if h.failure is not None]
        assert not failures, failures
        return over()

    try:
        wait_until(done, 200, "every game finishes", every=0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)


def assert_every_ack_kept(humans: list[Human], games: list[str], events_of: Callable[[str], list[dict[str, Any]]]) -> None:
    """Every acknowledged action is in its game's stream, by its player, and every stream is numbered without gaps."""
    for human in humans:
        stored = {e["n"]: e for e in events_of(human.game_id)}
        assert human.acks, "the human played"
        for ack in human.acks:
            assert all(stored[n]["by"] == f"player:{ack.player_id}" for n in range(ack.before + 1, ack.version + 1)), ack
    for game_id in games:
        numbers = [e["n"] for e in events_of(game_id)]
        assert numbers == list(range(1, len(numbers) + 1))


def event_time(event: dict[str, Any]) -> float:
    """When an event was appended (epoch seconds; the events of one append share it)."""
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()


#: A human's table in the fault tests: against a greedy and a random AI, with the action rules.
AGAINST_AIS = {
    "seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}],
    "action_rules": True,
}


def tables_against_ais(lobby: Client, count: int) -> tuple[list[Client], list[str]]:
    """``count`` people signed up, each at a table of their own against AIs (:data:`AGAINST_AIS`); they and the games."""
    people = [lobby.sign_up(f"P{i}") for i in range(count)]
    return people, [p.json("POST", "/games", expect=201, json=AGAINST_AIS)["id"] for p in people]


def idle_game(lobby: Client, turn_timeout: float) -> tuple[Client, str, float]:
    """A game whose human never moves, the human to move first (the AI moves first in some: another is made): the
    idle player, the game's id, and when the human's turn began."""
    idler = lobby.sign_up("Idler")
    for _ in range(20):
        made = idler.json(
            "POST",
            "/games",
            expect=201,
            json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}], "turn_timeout": turn_timeout},
        )
        turn = wait_until(lambda made=made: idler.json("GET", f"/games/{made['id']}")["turn"], 10, "a turn")
        if turn["seat"] == 0:
            return idler, made["id"], time.time()
    raise AssertionError("the AI moved first in 20 games")
