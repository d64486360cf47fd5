"""Waits as long as a client waits, through gunicorn, on a real Redis and redis-py's default client.

Nobody moves in a game of two humans.  One client long-polls for 25 s,
another for the documented maximum of 60 s, a third long-polls the view
for 25 s (304 at its end), and a fourth holds the SSE
stream until its fourth keep-alive (60 s): each must be answered (200) at
the end of its wait, and the stream must carry a keep-alive every 15 s and
stay open throughout.
"""

from __future__ import annotations

import threading
import time

import requests

from tests.faults.players import Human, play_all
from tests.harness.deployment import Client


def test_long_polls_and_a_stream_outlast_the_socket_timeout(deployment):
    base = deployment.api()
    deployment.worker()  # scores the rounds once they play
    ana = Client(base).sign_up("Ana")
    bo = Client(base).sign_up("Bo")
    game = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "human"}]})
    bo.json("POST", f"/games/{game['id']}/join", json={"code": game["join_code"]})
    version = ana.json("GET", f"/games/{game['id']}")["version"]

    polls: dict[int, tuple[int, float, dict]] = {}
    stream: dict[str, object] = {}

    def poll(wait: int) -> None:
        started = time.monotonic()
        response = ana.call("GET", f"/games/{game['id']}/events?after={version}&wait={wait}", timeout=wait + 15)
        assert response is not None
        polls[wait] = (response.status_code, time.monotonic() - started, response.json())

    def listen(keep_alives_wanted: int) -> None:
        keep_alives: list[float] = []
        started = time.monotonic()
        with requests.get(
            f"{base}/v1/games/{game['id']}/stream",
            headers={"Authorization": f"Bearer {bo.token}", "Last-Event-ID": str(version)},
            stream=True,
            timeout=30,  # between two reads: longer than a keep-alive's 15 s
        ) as response:
            stream["status"] = response.status_code
            for line in response.iter_lines(decode_unicode=True):
                if line == ": keep-alive":
                    keep_alives.append(time.monotonic() - started)
                if len(keep_alives) >= keep_alives_wanted:
                    stream["open_after"] = time.monotonic() - started
                    break
        stream["keep_alives"] = keep_alives

    def poll_view(wait: int) -> None:
        started = time.monotonic()
        headers = {"If-None-Match": f'"{version}"'}
        response = bo.call("GET", f"/games/{game['id']}?wait={wait}", headers=headers, timeout=wait + 15)
        assert response is not None
        view_poll.update(status=response.status_code, took=time.monotonic() - started, etag=response.headers.get("ETag"))

    view_poll: dict[str, object] = {}
    threads = [
        threading.Thread(target=poll, args=(25,)),
        threading.Thread(target=poll_view, args=(25,)),
        threading.Thread(target=poll, args=(60,)),
        threading.Thread(target=listen, args=(4,)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)

    for wait in (25, 60):
        status, waited, page = polls[wait]
        assert status == 200 and page["events"] == [] and page["version"] == version, (wait, status, page)
        assert wait - 0.1 <= waited < wait + 2.5, f"the {wait} s long-poll answered after {waited:.1f} s"
    assert view_poll["status"] == 304 and view_poll["etag"] == f'"{version}"', view_poll
    assert 24.9 <= float(str(view_poll["took"])) < 27.5, f"the view's 25 s long-poll answered after {view_poll['took']} s"
    assert stream["status"] == 200
    assert stream["open_after"] >= 59.5
    keep_alives = stream["keep_alives"]
    assert len(keep_alives) >= 4, keep_alives
    assert all(abs(at - 15 * (i + 1)) < 2.5 for i, at in enumerate(keep_alives)), keep_alives
    players = [Human([ana], game["id"]), Human([bo], game["id"])]  # and then they play it out
    stop, playing = play_all(players, 120)
    deadline = time.monotonic() + 120
    while ana.json("GET", f"/games/{game['id']}")["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not finish"
        assert all(p.failure is None for p in players), [p.failure for p in players]
        time.sleep(0.5)
    stop.set()
    for thread in playing:
        thread.join(30)
    assert not ana.server_errors() and not bo.server_errors()
    print(
        f"\nlong-polls answered 200 after {polls[25][1]:.2f} s and {polls[60][1]:.2f} s; "
        f"the stream's keep-alives came at {', '.join(f'{t:.1f}' for t in keep_alives)} s"
    )
