"""What the import contracts (pyproject.toml, run by import-linter) cannot say: checked on the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "service", "workers", "replays")


def imported_by(path: Path) -> set[str]:
    """The top-level modules a source file imports (every import statement, wherever it stands)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def test_no_job_passes_state_through_a_context_variable():
    """What a job tells the application is an argument (e.g. ``playing_on``), never a ContextVar read frames deeper."""
    users = [str(p.relative_to(ROOT)) for p in sources("workers", "service") if "contextvars" in imported_by(p)]
    assert users == []


def test_nothing_compares_a_refusals_code_to_decide_what_to_do():
    """Callers catch a refusal's type (service/errors.py); only the HTTP layer looks up codes, to map them."""
    offenders = []
    for path in sources(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "code"):
                continue
            compared = [c for right in node.comparators for c in ast.walk(right) if isinstance(c, ast.Constant)]
            if any(isinstance(c.value, str) for c in compared):  # a refusal's code (an HTTP status is a number)
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def _store_attributes() -> set[str]:
    """The names under which the runtime and its application services hold a store or a Redis client."""
    import redis

    from service.config import Settings
    from service.runtime import build_runtime

    runtime = build_runtime(Settings(key_prefix="red7-test:layers:"))  # embedded: an in-memory Redis, no I/O
    services = [value for value in vars(runtime).values() if type(value).__module__.startswith("service.application")]
    holders = [runtime, *services]
    return {
        name
        for holder in holders
        for name, value in vars(holder).items()
        if isinstance(value, redis.Redis) or type(value).__module__.startswith("service.storage")
    }


def test_the_http_layer_reaches_no_store_through_an_attribute():
    """Routes call the application, not storage (issue 19): import-linter keeps ``service.http`` from importing
    ``service.storage``; this keeps it from reaching a store the other way, as an attribute of the runtime or of a
    service (``red7_runtime().players``, ``game_service().store``).  The rate limits are the HTTP layer's own
    machinery, on a client of their own: ``app.py`` hands it to them, ``budgets.py`` uses it."""
    stores = _store_attributes()
    assert {"players", "store", "redis"} <= stores  # what the check is about is still there to be reached
    offenders = []
    for path in sources("service/http"):
        if path.name in ("app.py", "budgets.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in stores:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert offenders == []
