"""The soak's planted defects (:mod:`bench.soak.plants`): installed only through the ``sitecustomize.py`` of a soak's
own folder (a process started without it runs the service unchanged), each doing what it says, and judged against the
anomalies it must and may cause.  Fast: a Python process or two on fakeredis; the soak with a plant is
tests/faults/test_soak_plants.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.soak import plants

ROOT = Path(__file__).resolve().parents[2]

#: Appends, on fakeredis, 3 × DROP_EVERY actions by a player and as many by an AI, one after another; prints, for the
#: player's, the versions the store answered and the version it holds after them.
APPENDS = """
import json, sys
import fakeredis
from bench.soak.plants import DROP_EVERY
from service.domain.game import envelope
from service.storage.events.store import EventStore

store = EventStore(fakeredis.FakeRedis(), "plant-test:")
answered = {}
for by in ("player:p1", "ai:1"):
    stream, seen = f"g-{by}", []
    for n in range(3 * DROP_EVERY):
        version = store.version(stream)
        seen.append(store.append(stream, version, [envelope({"type": "turn_ended"}, at="2026-01-01T00:00:00Z", by=by)]).version)
    answered[by] = {"answered": seen, "stored": store.version(stream)}
print(json.dumps({"patched": EventStore.append.__qualname__, **answered}))
"""


def run(env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", APPENDS], env={**os.environ, **env}, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "stderr": done.stderr}


def test_drop_ack_answers_one_players_append_in_n_without_writing_it_and_only_through_its_site_folder(tmp_path) -> None:
    planted = run(plants.site_folder(tmp_path, "drop_ack"))
    every = plants.DROP_EVERY
    assert "_drop_ack" in str(planted["patched"]) and "plant drop_ack" in str(planted["stderr"])
    player = planted["player:p1"]
    assert isinstance(player, dict)
    # Each dropped append is answered with the version it would have made, and the next append makes it again.
    assert player["stored"] == 3 * every - 3
    assert player["answered"][every - 1] == player["answered"][every] == every
    assert planted["ai:1"] == {"answered": list(range(1, 3 * every + 1)), "stored": 3 * every}, "only players' appends"

    unplanted = run({})
    assert unplanted["patched"] == "EventStore.append" and "plant" not in str(unplanted["stderr"])
    assert unplanted["player:p1"] == {"answered": list(range(1, 3 * every + 1)), "stored": 3 * every}


def test_a_plant_is_judged_on_the_kinds_it_must_and_may_cause() -> None:
    assert plants.judged("drop_ack", {"lost": 3, "duplicated": 2, "reordered": 1, "gap": 0}) is None
    assert plants.judged("drop_ack", {"lost": 0, "duplicated": 2}) == "not reported: lost"
    assert plants.judged("drop_ack", {"lost": 1, "stuck": 2}) is None  # what follows a version never written
    assert plants.judged("drop_ack", {"lost": 1, "seated_twice": 1}) == "implausible: seated_twice 1"


def test_an_unknown_plant_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="no plant"):
        plants.site_folder(tmp_path, "nothing")
