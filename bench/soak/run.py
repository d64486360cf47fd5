"""One soak: the shape started, the load and the nemesis run for the minutes asked, a settle period, the stores'
snapshot, the checker; every process stopped whatever happened.  :func:`soak` is what the CLI and the tests call."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from bench.soak import checker, plants, snapshot
from bench.soak.history import History
from bench.soak.load import MIX, Actor, Probes
from bench.soak.nemesis import Nemesis, schedule
from bench.soak.shape import Shape, wait_ready

#: Longest settle period (s): after the load and the nemesis stop, until no game waits on an AI or a deadline.
SETTLE = 150.0


@dataclass
class Soaked:
    history: dict[str, Any]
    report: checker.Report
    failures: list[str]


def soak(
    minutes: float,
    seed: int,
    directory: Path,
    *,
    appendfsync: str = "always",
    mix: tuple[tuple[type[Actor], int], ...] = MIX,
    cluster: bool = False,
    plant: str | None = None,
    log: Any = print,
) -> Soaked:
    """Run a soak in ``directory`` (logs, Redis files, and ``history.json`` at the end); the stores' AOF fsynced
    ``appendfsync`` (``always`` or ``everysec``); ``cluster``: the stores on a Redis Cluster (3 primaries, a
    replica each) and the nemesis failing its primaries over; ``plant``: a defect planted in the service's processes
    (:mod:`bench.soak.plants`), which the checker must report."""
    seconds = minutes * 60
    history = History(seed, minutes)
    plan = schedule(seed, seconds, cluster=cluster)
    history.data["schedule"] = [p.as_dict() for p in plan]
    env = plants.site_folder(directory, plant) if plant else {}
    shape = Shape(directory, appendfsync, cluster=cluster, env=env)
    history.data["appendfsync"] = appendfsync
    history.data["cluster"] = cluster
    history.data["plant"] = plant
    failures: list[str] = []
    try:
        shape.start()
        log(f"soak: seed {seed}, {minutes} min, {len(plan)} faults planned; API {shape.base}, stores {shape.stores_url}")
        stop = threading.Event()
        actors: list[Actor] = []
        for kind, count in mix:
            actors += [kind(shape.base, history, stop, seed * 1000 + len(actors), shape.receiver.url) for _ in range(count)]
        prober = next((a for a in actors if isinstance(a, Probes)), None)
        burster = Probes(shape.base, history, stop, seed * 1000 + 999, shape.receiver.url)
        threads = [threading.Thread(target=a.run, daemon=True, name=type(a).__name__) for a in actors]
        began = time.time()
        for thread in threads:
            thread.start()
        nemesis = Nemesis(shape, history, plan, burster.burst)
        nemesis.start(began)
        time.sleep(max(0.0, began + seconds - time.time()))
        stop.set()  # the load first: a burst under way stops asking, and the nemesis ends its fault early
        nemesis.join()
        for thread in threads:
            thread.join(60)
        failures += [f"{type(a).__name__}: {a.failure!r}" for a in actors if a.failure is not None]
        if nemesis.failure is not None:
            failures.append(f"nemesis: {nemesis.failure!r}")
        if not shape.healthy():
            failures.append(f"down at the end of the nemesis: {shape.down()}")
        wait_ready(shape.base)
        token = _any_token(shape.base, shape)
        settled = _settle(shape.base, token, history.data["games"])
        log(f"soak: load stopped; settled in {settled:.0f} s; taking the stores' snapshot")
        assert shape.processes is not None
        history.data["stores"] = snapshot.take(shape.processes.env, shape.base, token, history.data["games"])
        history.data["ended"] = time.time()
        history.data["prober"] = prober is not None
    finally:
        history.data["pids"] = shape.pids()
        history.save(directory / "history.json")
        shape.stop()
    report = checker.check(history.data)
    history.data["report"] = {"anomalies": dict(report.anomalies), "figures": report.figures}
    history.save(directory / "history.json")
    return Soaked(history.data, report, failures)


def _any_token(base: str, shape: Shape) -> str:
    said = "nothing"
    for _ in range(90):
        try:
            answer = requests.post(f"{base}/v1/players", json={"name": "Checker"}, timeout=10)
            if answer.status_code == 201:
                return answer.json()["token"]
            said = f"{answer.status_code} {answer.text[:200]}"
        except requests.RequestException as error:
            said = repr(error)
        time.sleep(1.0)
    logs = shape.processes.logs()[-6000:] if shape.processes is not None else ""
    raise RuntimeError(f"no sign-up answered for the snapshot (last: {said}; down: {shape.down()})\n{logs}")


def _settle(base: str, token: str, games: list[dict[str, Any]]) -> float:
    """Wait (up to :data:`SETTLE`) until every game in play waits on a human; the seconds it took."""
    began = time.monotonic()
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    pending = [g["id"] for g in games]
    while pending and time.monotonic() - began < SETTLE:
        still = []
        for game_id in pending:
            try:
                view = session.get(f"{base}/v1/games/{game_id}", timeout=10).json()
            except (requests.RequestException, ValueError):
                still.append(game_id)
                continue
            turn = view.get("turn") or {}
            seats = view.get("seats") or []
            seat = turn.get("seat")
            on_ai = seat is not None and seat < len(seats) and seats[seat].get("kind") == "ai"
            if view.get("status") == "active" and (on_ai or seat is None):  # an AI's turn, or a round being dealt
                still.append(game_id)
        pending = still
        if pending:
            time.sleep(2.0)
    return time.monotonic() - began


def summary(soaked: Soaked) -> list[str]:
    """The report's lines: the nemesis's counts, the load's counts, the anomalies, the failures."""
    counts = soaked.history["counts"]
    nemesis = {k.removeprefix("nemesis "): v for k, v in sorted(counts.items()) if k.startswith("nemesis ")}
    load = {k: v for k, v in sorted(counts.items()) if not k.startswith("nemesis ")}
    stores = soaked.history.get("stores", {})
    statuses: dict[str, int] = {}
    for game in stores.get("games", {}).values():
        statuses[str(game.get("status"))] = statuses.get(str(game.get("status")), 0) + 1
    requests_made = soaked.history["requests"]
    unanswered = sum(1 for r in requests_made if r["status"] in checker.UNANSWERED)
    lines = [
        f"faults: {sum(nemesis.values())} ({', '.join(f'{k} {v}' for k, v in nemesis.items())})",
        f"load: {len(requests_made)} requests ({unanswered} unanswered or 502/503/504, asked again); "
        + ", ".join(f"{k} {v}" for k, v in load.items()),
        f"games at the end: {', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}; "
        f"matches {len(stores.get('matches', []))}; rated games in the ladders {stores.get('ratings', {}).get('games')}; "
        f"replays verified {sum(1 for r in stores.get('replays', {}).values() if r['ok'])}",
        f"AI turns resumed within {soaked.report.figures.get('ai_resume_worst_s')} s of a fault's end at worst "
        f"(bound {checker.AI_RESUME_BOUND:.0f} s)",
        *soaked.report.lines(),
    ]
    return lines + [f"failure: {f}" for f in soaked.failures]
