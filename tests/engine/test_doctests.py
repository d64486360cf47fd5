"""The examples in the docs run: every doctest of the engine, and the engine example of docs/how-it-works.md as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine
from tests.harness.documents import block

MODULES = sorted(info.name for info in pkgutil.walk_packages(engine.__path__, "engine."))


@pytest.mark.parametrize("name", MODULES)
def test_the_engine_modules_doctests_pass(name):
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0


def test_the_engine_has_doctests_to_run():
    attempted = sum(doctest.testmod(importlib.import_module(name)).attempted for name in MODULES)
    assert attempted >= 6  # cards and rules show their notation and the canvas rules


def test_the_documented_engine_example_runs_as_written():
    code = block("docs/how-it-works.md", "The engine in brief", "python")
    scope: dict[str, object] = {}
    exec(compile(code, "docs/how-it-works.md (The engine in brief)", "exec"), scope)
    state, mine = scope["state"], scope["mine"]
    assert len(scope["events"]) > len(engine.decide(engine.GameState(), engine.Start(players=3, seed=42)))
    assert mine.viewer == 0 and len(mine.hand) == 7 and state.players == 3
