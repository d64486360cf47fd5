"""``redocly lint`` (recommended rules) finds no error and no warning in the document, on a server with API keys
and on one without (their security requirements differ)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import fakeredis
import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.clients.support import TYPESCRIPT, node_tool
from tests.harness.support import settings_for

CONFIG = Path(__file__).resolve().parent / "redocly.yaml"


def document(**settings: object) -> dict[str, object]:
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    app = create_app(build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:", **settings), clients=clients))
    spec: dict[str, object] = app.test_client().get("/v1/openapi.json").get_json()
    return spec


@pytest.mark.parametrize("keys", [(), ("k1", "k2")], ids=["without-api-keys", "with-api-keys"])
def test_redocly_finds_no_error_and_no_warning(keys, tmp_path):
    redocly = node_tool("redocly")
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(document(api_keys=keys)))
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}
    result = subprocess.run(
        [str(redocly), "lint", "--config", str(CONFIG), "--format", "stylish", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=TYPESCRIPT,
        env=env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    problems = [line for line in output.splitlines() if " error " in line or " warning " in line]
    assert "valid" in output and not problems, output
