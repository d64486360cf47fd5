"""A TypeScript client (openapi-typescript's types + openapi-fetch) compiles under ``tsc --strict`` with no casts
and plays a whole game against the server under node."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.conftest import GAME_SECONDS, TYPESCRIPT, node_tool

PLAYER = TYPESCRIPT / "player.ts"
#: `x as T` and the non-null assertion `x!` are casts; the player narrows with checks instead.
CASTS = re.compile(r"\bas\s+(?!const\b)[A-Za-z{(\[]|[\w)\]]!(?!=)|<\w+>\s*\w|@ts-(ignore|expect-error|nocheck)|\bany\b")


STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`|\'(?:[^\'\\\n]|\\.)*\'')


@pytest.fixture(scope="module")
def compiled(spec_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    generator = node_tool("openapi-typescript")
    tsc = node_tool("tsc")
    out = tmp_path_factory.mktemp("typescript-client")
    for name in ("player.ts", "tsconfig.json", "package.json"):
        shutil.copy(TYPESCRIPT / name, out / name)
    (out / "node_modules").symlink_to(TYPESCRIPT / "node_modules")
    # Defaults make request members optional, as the API treats them (the default would make them required).
    generated = subprocess.run(
        [str(generator), str(spec_file), "-o", str(out / "red7.d.ts"), "--default-non-nullable", "false"],
        capture_output=True, text=True, timeout=120, cwd=out,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    result = subprocess.run([str(tsc), "-p", "tsconfig.json"], capture_output=True, text=True, timeout=180, cwd=out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_the_player_uses_no_casts():
    code = "\n".join(line.split("//", 1)[0] for line in PLAYER.read_text().splitlines())
    code = STRINGS.sub('""', code)  # what strings say is no code
    found = [match.group(0) for match in CASTS.finditer(code)]
    assert not found, found


def test_the_typescript_client_plays_a_whole_game(compiled: Path, server: str):
    if shutil.which("node") is None:
        pytest.skip("needs node (20+)")
    result = subprocess.run(
        ["node", str(compiled / "build" / "player.js"), server], capture_output=True, text=True, timeout=GAME_SECONDS,
        cwd=compiled,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("finished: winner seat"), result.stdout
