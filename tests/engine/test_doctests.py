"""The examples in the docs run: every doctest of the engine, and the README's engine example as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(info.name for info in pkgutil.walk_packages(engine.__path__, "engine."))


@pytest.mark.parametrize("name", MODULES)
def test_the_engine_modules_doctests_pass(name):
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0


def test_the_engine_has_doctests_to_run():
    attempted = sum(doctest.testmod(importlib.import_module(name)).attempted for name in MODULES)
    assert attempted >= 6  # cards and rules show their notation and the canvas rules


def test_the_readme_engine_example_runs_as_written():
    section = (ROOT / "README.md").read_text().split("## The engine in brief", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert code is not None
    scope: dict[str, object] = {}
    exec(compile(code.group(1), "README.md (The engine in brief)", "exec"), scope)
    state, mine = scope["state"], scope["mine"]
    assert len(scope["events"]) > len(engine.decide(engine.GameState(), engine.Start(players=3, seed=42)))
    assert mine.viewer == 0 and len(mine.hand) == 7 and state.players == 3
