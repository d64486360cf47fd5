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
    """Callers catch a refusal's type (service/common/errors.py); only the HTTP layer looks up codes, to map them."""
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

    from service.common.config import Settings
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


def _layer_folders() -> list[str]:
    """The folders (packages) the layers contract names, from pyproject.toml's first import-linter contract."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(contract["layers"] for contract in contracts if contract["type"] == "layers")
    return [name.strip() for layer in layers for name in layer.split("|")]


def test_every_module_of_ours_lies_in_a_folder_the_layers_name():
    """A module's folder says what it may import (ARCHITECTURE.md): a module outside every folder the layers contract
    names would be held to nothing, so a new file dropped beside the folders fails here."""
    folders = _layer_folders()
    assert all("." in name or name in PACKAGES for name in folders)
    outside = []
    for path in sources(*PACKAGES):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        if module in PACKAGES:  # a top-level package's own __init__: a docstring, nothing to import
            continue
        if not any(module == folder or module.startswith(folder + ".") for folder in folders):
            outside.append(module)
    assert outside == []


def test_the_layers_contract_names_folders_and_the_composition_root_only():
    """Every name in the layers is a package (a folder), but the composition root, one module by design."""
    modules = [name for name in _layer_folders() if not (ROOT / name.replace(".", "/")).is_dir()]
    assert modules == ["service.runtime"]


#: The runtime's clients of the queue's Redis (RQ, job markers, the agenda, pulses): the job system's, not a store.
QUEUE_CLIENTS = frozenset({"raw_redis", "worker_redis"})


def test_the_workers_reach_no_store_through_an_attribute():
    """Workers are an entry point like the routes (issue 35): handed their runtime, they reach the stores only through
    the application.  import-linter keeps ``workers`` from importing ``service.storage`` and ``service.domain`` (the
    contract below); this keeps a job from reaching a store as an attribute of the runtime or of a service
    (``runtime().store.read_all``, ``rt.push.store.of``).  The queue's Redis is the job system's own."""
    stores = _store_attributes() - QUEUE_CLIENTS
    assert {"players", "store", "redis"} <= stores
    offenders = []
    for path in sources("workers"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in stores:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert offenders == []


def test_a_contract_keeps_the_workers_from_the_domain_and_the_stores():
    """The AI's turn, a round's end and a deadline are decided in the application (``service/application/turns.py``),
    not in a job: a contract forbids ``workers`` the domain and the stores, by folder."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    forbidden = [
        set(contract["forbidden_modules"])
        for contract in contracts
        if contract["type"] == "forbidden" and "workers" in contract["source_modules"]
    ]
    assert any({"service.domain", "service.storage"} <= names for names in forbidden)


def test_the_application_asks_the_stores_for_their_keys_never_builds_them():
    """A key layout is the store's to change (``red7 migrate``): the floors above import no ``keys`` module of it."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in sources("service/application", "service/http", "workers")
        if any(name.startswith("service.storage") and name.endswith(".keys") for name in imported_by(path))
    ]
    assert offenders == []


#: Past these, a file does several jobs (ARCHITECTURE.md): split it by responsibility, not by line count.
MAX_LINES = {".py": 500, ".js": 600, ".html": 800}


def test_no_module_page_or_script_of_ours_is_past_its_size():
    """Every module does one job; a catalog of words is data (``words.json``, the gettext catalogs), not code."""
    too_long = sorted(
        f"{path.relative_to(ROOT)} ({lines})"
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.suffix in MAX_LINES and (lines := len(path.read_text().splitlines())) > MAX_LINES[path.suffix]
    )
    assert too_long == []
