"""Planted defects: the proof that the soak's checker can fail on a real service, not only on a tampered history.

A plant is a monkeypatch of one service function, installed in the soak's own gunicorn and ``red7 worker``
processes (never in the production code, which has no switch for it): the soak starts them with a folder of its own
first on ``PYTHONPATH``, holding a ``sitecustomize.py`` that Python imports as it starts
(:func:`site_folder`).  That file only names the plant and registers an import hook; the patch is made when the
service imports the module patched (before any request), so nothing of the service is imported earlier than it
would be (gunicorn's gevent worker monkey-patches the standard library first).

Each plant says which anomaly kinds it must cause (:attr:`Plant.expected`) and which others follow from it
(:attr:`Plant.plausible`): the test holds a short soak with the plant to both.

- ``drop_ack``: one player's action in :data:`DROP_EVERY` is answered as appended (200, the new version) while
  nothing is written: an acknowledgement sent for an append that never happened.  The checker must find it
  ``lost``; then the player, shown the game as it still is, plays that turn again, and the new action claims the
  version the lost one was told: the same step again is the same event acknowledged twice (``duplicated``; its
  version does not grow: ``reordered``), another step leaves the first ack's numbers to another action (``lost``,
  by the steps' fingerprint, and nothing more); a retry of the lost
  one with its key, which finds no record of it, is decided again and answered otherwise (``idempotency``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

#: The environment variable that names the plant to the soak's processes.
VARIABLE = "RED7_SOAK_PLANT"
#: ``drop_ack``: one player's append in this many (in each process) is answered but not written.
DROP_EVERY = 12


@dataclass(frozen=True)
class Plant:
    """A defect: the module it patches, the patch, and the anomalies a soak with it must and may report."""

    name: str
    module: str
    patch: Callable[[ModuleType], None]
    expected: frozenset[str]
    plausible: frozenset[str]
    summary: str


def _drop_ack(module: ModuleType) -> None:
    """``EventStore.append``: a player's append, one in :data:`DROP_EVERY`, answered ``Appended`` and not written."""
    from service.domain.game import decode

    store = module.EventStore
    original = store.append
    appended = module.Appended
    lock = threading.Lock()
    seen = [0]

    def by_player(payloads: Sequence[str]) -> bool:
        try:
            return bool(payloads) and all(str(decode(p).get("by", "")).startswith("player:") for p in payloads)
        except Exception:  # a stream of another kind's (the store knows nothing of games): never dropped
            return False

    def append(self: Any, stream: str, expected_version: int, payloads: Sequence[str], **options: Any) -> Any:
        if by_player(payloads) and self.version(stream) == expected_version:  # an append that would be made now
            with lock:
                seen[0] += 1
                drop = seen[0] % DROP_EVERY == 0
            if drop:
                print(f"plant drop_ack: {stream} v{expected_version} answered, not written", file=sys.stderr, flush=True)
                return appended(expected_version + len(payloads))
        return original(self, stream, expected_version, payloads, **options)

    store.append = append


PLANTS = {
    plant.name: plant
    for plant in (
        Plant(
            "drop_ack",
            "service.storage.events.store",
            _drop_ack,
            expected=frozenset({"lost"}),
            # ``stuck`` too: the service queues what follows the version it believes it wrote (a deadline, an AI's
            # turn), which never comes to be, so a game can wait on nothing until the ticker's next look (CI saw 2).
            plausible=frozenset({"lost", "duplicated", "reordered", "idempotency", "stuck"}),
            summary=f"one player's action in {DROP_EVERY} acknowledged (200) but never appended",
        ),
    )
}


class _Hook(importlib.abc.MetaPathFinder):
    """Patches the plant's module once it is executed (the first import of it, wherever it comes from)."""

    def __init__(self, plant: Plant) -> None:
        self.plant = plant

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != self.plant.module:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        loader, plant = spec.loader, self.plant

        class Patching(importlib.abc.Loader):
            def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
                return loader.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                loader.exec_module(module)
                plant.patch(module)
                print(f"plant {plant.name}: {plant.module} patched in process {os.getpid()}", file=sys.stderr, flush=True)

        spec.loader = Patching()
        return spec


def install(name: str) -> None:
    """Called by the soak's ``sitecustomize.py``: the plant ``name`` patched in as its module is imported."""
    sys.meta_path.insert(0, _Hook(PLANTS[name]))


def site_folder(directory: Path, name: str) -> dict[str, str]:
    """A folder in ``directory`` whose ``sitecustomize.py`` installs plant ``name``; the environment that puts it
    first on ``PYTHONPATH`` for the service's processes (the repository's root after it, for this module)."""
    if name not in PLANTS:
        raise ValueError(f"no plant {name!r}; known: {', '.join(PLANTS)}")
    folder = directory / "plant"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        '"""Written by bench.soak.plants for one soak: a planted defect (never in production)."""\n'
        "from bench.soak import plants\n\n"
        f"plants.install({name!r})\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (str(folder), root, os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, VARIABLE: name}


def judged(name: str, anomalies: dict[str, int]) -> str | None:
    """What is wrong with a soak's anomalies for plant ``name`` (an expected kind missing, an implausible one
    found), or ``None``: the checker reported the plant, and only what follows from it."""
    plant = PLANTS[name]
    missing = sorted(kind for kind in plant.expected if not anomalies.get(kind))
    strange = sorted(kind for kind, count in anomalies.items() if count and kind not in plant.plausible)
    said = ([f"not reported: {', '.join(missing)}"] if missing else []) + (
        [f"implausible: {', '.join(f'{k} {anomalies[k]}' for k in strange)}"] if strange else []
    )
    return "; ".join(said) or None
