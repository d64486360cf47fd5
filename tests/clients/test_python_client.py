"""A Python client generated from the document by openapi-python-client plays a whole game against the server.

The player (python/player.py) uses only the generated models' attributes; ``mypy --strict`` checks it against the
generated package first, so a member the document leaves untyped (an object, a string where an enum belongs, a
legal step that is not a step) fails here rather than in a frontend team's code.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.conftest import CLIENTS_VENV, GAME_SECONDS

PLAYER = Path(__file__).resolve().parent / "python" / "player.py"
GENERATOR = CLIENTS_VENV / "bin" / "openapi-python-client"
PYTHON = CLIENTS_VENV / "bin" / "python"
#: No post-generation hooks (they would run ruff, which that venv does not have): the code is as generated.
# The NDJSON replay upload is a file to the client: the generator's own setting maps the media type it does not know.
CONFIG = "post_hooks: []\ncontent_type_overrides:\n  application/x-ndjson: application/octet-stream\n"


@pytest.fixture(scope="module")
def generated(spec_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not GENERATOR.exists():
        pytest.skip(f"needs openapi-python-client in {CLIENTS_VENV} (.ci/run installs it; RED7_CLIENTS_VENV names another venv)")
    out = tmp_path_factory.mktemp("python-client")
    config = out / "config.yaml"
    config.write_text(CONFIG)
    result = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(spec_file), "--output-path", str(out / "red7_client"), "--meta", "none",
         "--config", str(config)],
        capture_output=True, text=True, timeout=120, cwd=out,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Anything it could not generate is a warning naming the part of the document it skipped.
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    return out


def test_the_player_uses_no_casts():
    source = PLAYER.read_text()
    assert not re.search(r"\bcast\(|type:\s*ignore|\bAny\b|\.additional_properties|\[\s*['\"]", source)


def test_the_generated_client_types_the_player(generated: Path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", str(generated / "config.yaml"),
         "--python-executable", str(PYTHON), str(PLAYER)],
        capture_output=True, text=True, timeout=300, cwd=generated, env={**os.environ, "MYPYPATH": str(generated)},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_generated_client_plays_a_whole_game(generated: Path, server: str):
    result = subprocess.run(
        [str(PYTHON), str(PLAYER), server], capture_output=True, text=True, timeout=GAME_SECONDS, cwd=generated,
        env={**os.environ, "PYTHONPATH": str(generated)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("finished: winner seat"), result.stdout
