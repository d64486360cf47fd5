"""An embedded server on 127.0.0.1 for generated clients to play against, and where the client tools are.

The tools are pinned and installed by ``.ci/run``: openapi-python-client in a venv of its own
(``.venv-clients``, so its pins never meet the project's; ``RED7_CLIENTS_VENV`` names another), and the npm
packages under ``tests/clients/typescript`` with ``npm ci`` from its lock file.  A test whose tool is absent
skips and says how to get it.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from service.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime
from workers.runner import start_embedded

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = Path(__file__).resolve().parent / "typescript"
NODE_BIN = TYPESCRIPT / "node_modules" / ".bin"
CLIENTS_VENV = Path(os.environ.get("RED7_CLIENTS_VENV", ROOT / ".venv-clients"))
#: How long a whole game against the AIs may take before a client gives up.
GAME_SECONDS = 120


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``red7 serve --embedded`` in this process: the in-memory store, its workers in threads, werkzeug on a free port."""
    settings = Settings(
        rate_limit_token="", rate_limit_address="", rate_limit_signup="", rate_limit_import="", expert_seconds=0.05,
        max_games_in_play=0, max_ai_seats_in_play=0,
    )
    runtime = build_runtime(settings)
    stop = start_embedded(runtime)
    http = make_server("127.0.0.1", 0, create_app(runtime), threaded=True)
    thread = threading.Thread(target=http.serve_forever, name="client-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.server_port}"
    finally:
        http.shutdown()
        thread.join(10)
        stop.set()


@pytest.fixture(scope="module")
def spec_file(server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The served document, saved for the generators."""
    import urllib.request

    with urllib.request.urlopen(f"{server}/v1/openapi.json", timeout=10) as response:
        spec: dict[str, Any] = json.load(response)
    path = tmp_path_factory.mktemp("spec") / "openapi.json"
    path.write_text(json.dumps(spec))
    return path


def node_tool(name: str) -> Path:
    tool = NODE_BIN / name
    if shutil.which("node") is None:
        pytest.skip("needs node (20+): .ci/run installs the client tools")
    if not tool.exists():
        pytest.skip(f"needs {name}: run `npm ci` in {TYPESCRIPT.relative_to(ROOT)} (.ci/run does)")
    return tool
