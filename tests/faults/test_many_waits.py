"""Long-lived connections cannot take the server: with 500 long-polls and 20 streams waiting, views stay fast.

gunicorn as the image runs it (gevent workers).  520 clients, each from an
address of its own (behind one trusted proxy), wait on a quiet game; another
player's views of another game are timed meanwhile.  With gthread's 8 threads
per worker, 16 such waits took every thread and a view waited seconds.
"""

from __future__ import annotations

import http.client
import statistics
import threading
import time

from tests.harness.deployment import Client

WAITERS = 500
STREAMS = 20
VIEWS = 200
P99_BOUND = 0.050  # seconds


def test_hundreds_of_idle_waits_do_not_slow_another_players_view(deployment):
    base = deployment.api(RED7_TRUSTED_PROXY_HOPS="1")
    port = int(base.rsplit(":", 1)[1])
    ana, bo = Client(base).sign_up("Ana"), Client(base).sign_up("Bo")
    quiet = ana.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "human"}]})
    bo.json("POST", f"/games/{quiet['id']}/join", json={"code": quiet["join_code"]})
    version = ana.json("GET", f"/games/{quiet['id']}")["version"]
    viewer = Client(base).sign_up("Cy")
    watched = viewer.json("POST", "/games", expect=201, json={"seats": [{"kind": "human"}, {"kind": "human"}]})

    answers: list[int] = []
    opened = threading.Semaphore(0)
    lock = threading.Lock()

    def wait(number: int, path: str, read_all: bool) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            address = f"10.{number // 250}.{number % 250}.1"
            connection.request("GET", path, headers={"X-Forwarded-For": address})
            opened.release()
            response = connection.getresponse()
            if read_all:
                response.read()
            else:
                response.readline()  # the stream's first line: it is open
                time.sleep(12)
            with lock:
                answers.append(response.status)
        finally:
            connection.close()

    poll = f"/v1/games/{quiet['id']}/events?after={version}&wait=20"
    stream = f"/v1/games/{quiet['id']}/stream"
    threads = [threading.Thread(target=wait, args=(n, poll, True), daemon=True) for n in range(WAITERS)]
    threads += [threading.Thread(target=wait, args=(WAITERS + n, stream, False), daemon=True) for n in range(STREAMS)]
    for thread in threads:
        thread.start()
    for _ in threads:
        assert opened.acquire(timeout=30)
    time.sleep(2)  # every request has reached the server and waits

    timings = []
    for _ in range(VIEWS):
        started = time.perf_counter()
        response = viewer.call("GET", f"/games/{watched['id']}")
        timings.append(time.perf_counter() - started)
        assert response is not None and response.status_code == 200
    still_waiting = WAITERS + STREAMS - len(answers)
    for thread in threads:
        thread.join(40)
    p50, p99 = statistics.median(timings), statistics.quantiles(timings, n=100)[98]
    print(
        f"\nwith {still_waiting} long-polls and streams waiting, another player's view: "
        f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"
    )
    assert still_waiting >= WAITERS, "the waits should still have been open while the views were timed"
    assert answers.count(200) == WAITERS + STREAMS, sorted(set(answers))
    assert p99 <= P99_BOUND
