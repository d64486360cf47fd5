"""A client that goes away gives its long-polls and streams back at once, and a token at its cap is never locked out.

On both servers users run (gunicorn as the Dockerfile runs it, and ``red7 serve``), with real sockets that the
client opens and closes:

- an address holds its cap of waits (two streams, two 25 s long-polls), closes every socket, and opens a new
  wait: it must be let in within 2 s (a closed stream kept its slot until its second keep-alive failed, 15-30 s;
  a long-poll until the end of its wait, 25 s);
- a token holds its cap of waits, all open, and opens one more: it is let in at once, and its oldest wait ends
  within 2 s (a stream says ``event: replaced`` and closes, a long-poll answers with what it has), where it used
  to be refused (429) for as long as its waits lasted.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

from tests.harness.deployment import Client, red7_serve, wait_until

PER_TOKEN = 3
PER_ADDRESS = 4
RECOVERY = 2.0  # seconds: a closed client's slot, or a replaced wait, within this


@pytest.fixture(params=["gunicorn", "red7 serve"])
def base(request, tmp_path) -> Iterator[str]:
    caps = {"RED7_MAX_WAITS_PER_TOKEN": str(PER_TOKEN), "RED7_MAX_WAITS_PER_ADDRESS": str(PER_ADDRESS)}
    print(f"\n{request.param}:", end=" ")
    if request.param == "gunicorn":
        yield request.getfixturevalue("deployment").api(workers=1, **caps)  # one process: one count of waits
    else:
        with red7_serve(tmp_path, **caps) as served:
            yield served.base


class RawWait:
    """A long-poll or stream on a socket of its own, read as it comes and closed when the test says."""

    def __init__(self, base: str, path: str, token: str | None = None) -> None:
        host, port = base.removeprefix("http://").rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n".encode())
        self.received = b""

    def read_until(self, marker: bytes, timeout: float) -> float:
        """Seconds until ``marker`` arrived (AssertionError if not within ``timeout``)."""
        started = time.monotonic()
        while marker not in self.received:
            left = timeout - (time.monotonic() - started)
            assert left > 0, f"{marker!r} did not come within {timeout} s; got {self.received[-300:]!r}"
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            assert chunk or marker in self.received, f"closed before {marker!r}: {self.received[-300:]!r}"
            self.received += chunk
        return time.monotonic() - started

    def status(self) -> int:
        self.read_until(b"\r\n", 10)
        return int(self.received.split(b" ", 2)[1])

    def close(self) -> None:
        self.sock.close()


def quiet_game(base: str) -> tuple[Client, str, int]:
    """A player, and a game of two humans that nobody joins: nothing happens in it, so every wait on it waits."""
    ana = Client(base).sign_up("Ana")
    game = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "human"}]})
    return ana, game["id"], game["version"]


def test_a_closed_client_gives_its_waits_back_at_once(base):
    _, game_id, version = quiet_game(base)
    streams = [RawWait(base, f"/v1/games/{game_id}/stream") for _ in range(2)]
    polls = [RawWait(base, f"/v1/games/{game_id}/events?after={version}&wait=25") for _ in range(PER_ADDRESS - 2)]
    for stream in streams:
        assert stream.status() == 200
        stream.read_until(b"retry: 2000", 10)

    answered: list[int] = []

    def refused() -> bool:  # every wait of this address is counted: one more is refused
        extra = RawWait(base, f"/v1/games/{game_id}/stream")
        try:
            answered.append(extra.status())
            return answered[-1] == 429
        finally:
            extra.close()

    try:
        wait_until(refused, 10, "the address is at its cap of waits")
    except AssertionError as missed:
        raise AssertionError(f"{missed}: {len(answered)} more were answered {sorted(set(answered))}") from None
    for held in streams + polls:
        held.close()  # the client goes away
    closed = time.monotonic()

    def let_in() -> bool:
        again = RawWait(base, f"/v1/games/{game_id}/stream")
        try:
            return again.status() == 200
        finally:
            again.close()

    wait_until(let_in, RECOVERY + 3, "a new wait is let in")
    recovered = time.monotonic() - closed
    print(f"the closed waits' slots were free again after {recovered:.2f} s")
    assert recovered < RECOVERY, f"the closed waits held their slots {recovered:.2f} s"


def test_a_token_at_its_cap_is_let_in_and_its_oldest_wait_ends(base):
    ana, game_id, version = quiet_game(base)
    oldest = RawWait(base, f"/v1/games/{game_id}/stream", ana.token)
    assert oldest.status() == 200
    oldest.read_until(b"retry: 2000", 10)
    poll = RawWait(base, f"/v1/games/{game_id}/events?after={version}&wait=25", ana.token)
    time.sleep(1.0)  # the long-poll is second oldest: it has reached the server before the next one (a starved one too)
    held = [RawWait(base, f"/v1/games/{game_id}/stream", ana.token) for _ in range(PER_TOKEN - 2)]
    for stream in held:
        assert stream.status() == 200

    started = time.monotonic()
    newest = RawWait(base, f"/v1/games/{game_id}/stream", ana.token)  # one more than the cap
    assert newest.status() == 200, newest.received[:300]
    let_in = time.monotonic() - started
    oldest.read_until(b"event: replaced", RECOVERY + 3)
    ended = time.monotonic() - started
    assert oldest.read_until(b"0\r\n\r\n", 5) < 1  # and the stream is over (its last chunk)

    started = time.monotonic()
    another = RawWait(base, f"/v1/games/{game_id}/stream", ana.token)  # and one more: the long-poll is oldest now
    assert another.status() == 200
    poll.read_until(b'"finished":false}', RECOVERY + 3)
    answered = time.monotonic() - started
    page = json.loads(poll.received.partition(b"\r\n\r\n")[2].strip().splitlines()[-1])
    assert page["events"] == [] and page["version"] == version
    assert poll.status() == 200
    print(
        f"one wait over the cap was let in after {let_in:.2f} s and the oldest stream ended {ended:.2f} s after it "
        f"came; one more, and the long-poll after it answered {answered:.2f} s after that one came"
    )
    assert ended < RECOVERY and answered < RECOVERY
    for wait in (oldest, poll, *held, newest, another):
        wait.close()
