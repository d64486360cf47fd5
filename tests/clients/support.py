"""Where the client tools are, and the commands of docs/integrating.md that generate the clients (the server they play
against is the ``server`` fixture in this folder's conftest).

The tools are pinned and installed by ``.ci/run``: openapi-python-client in a venv of its own
(``.venv-clients``, so its pins never meet the project's; ``RED7_CLIENTS_VENV`` names another), and the npm
packages under ``tests/clients/typescript`` with ``npm ci`` from its lock file.  A test whose tool is absent
skips and says how to get it (docs/development.md, "What the tests need", quotes these reasons).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from tests.harness.documents import block, blocks, commands

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = Path(__file__).resolve().parent / "typescript"
NODE_BIN = TYPESCRIPT / "node_modules" / ".bin"
CLIENTS_VENV = Path(os.environ.get("RED7_CLIENTS_VENV", ROOT / ".venv-clients"))
#: How long a player may take: a whole game against the AIs, the replay's export and imports after it, then a quick
#: match (an AI seated after a second) played to its end and its rating read (the player gives up at 160 s itself).
GAME_SECONDS = 180
#: A player's last line: the quick match played to its end and its rating (before, the change), provisional after one game.
QUICK_MATCH = (
    r"quick match: matched after [\d.]+s, \d+ steps of ours, winner seat [01]; "
    r"rated \d+[+-]\d+ = \d+, provisional: not ranked on the basic ladder yet"
)
#: What a client's player script prints of the finished game's analysis and the mistakes it lists of its own.
ANALYSED = r"analysed: \d+ decisions, \d+ labelled, our accuracy (none|\d+\.\d), \d+ of ours listed"
#: What the guide's program (docs/integrating.md's snippets, in either language) prints: every event of its game as it
#: follows the feed (number and type, from the first), the winner, then the finished game's view waited on.
GUIDE_GAME = (
    r"1 game_created\n(\d+ [a-z_]+\n)+\d+ game_finished\n"
    r"finished: winner seat [01], \d+ events\n"
    r"the finished game's view, waited on: unchanged"
)
#: Where the guide's commands fetch the document from (``python3 dev.py run``); the tests use their own server.
GUIDE_DOCUMENT = "http://127.0.0.1:8000/v1/openapi.json"

NO_NODE = "needs node (20+): .ci/run installs the client tools"


def no_python_generator(venv: Path) -> str:
    where = venv.relative_to(ROOT) if venv.is_relative_to(ROOT) else venv
    return f"needs openapi-python-client in {where} (.ci/run installs it; RED7_CLIENTS_VENV names another venv)"


def no_npm_tool(name: str) -> str:
    return f"needs {name}: run npm ci in {TYPESCRIPT.relative_to(ROOT)} (.ci/run does)"


def node_tool(name: str) -> Path:
    tool = NODE_BIN / name
    if shutil.which("node") is None:
        pytest.skip(NO_NODE)
    if not tool.exists():
        pytest.skip(no_npm_tool(name))
    return tool


def guide_command(start: str) -> list[str]:
    """The one command of docs/integrating.md's "Generating the clients" that begins with ``start``, split as a shell
    splits it (a line continued with a backslash is one command)."""
    lines = [line for code in blocks("docs/integrating.md", "Generating the clients", "sh") for line in commands(code)]
    found = [line for line in lines if line.startswith(start)]
    assert len(found) == 1, f"'Generating the clients' has {len(found)} commands that begin with {start!r}: {lines}"
    return shlex.split(found[0])


def guide_config() -> str:
    """The ``red7-client.yaml`` that docs/integrating.md gives openapi-python-client."""
    return block("docs/integrating.md", "Generating the clients", "yaml")


def against(server: str, command: list[str]) -> list[str]:
    """The guide's command with the document fetched from ``server`` instead of ``python3 dev.py run``'s."""
    assert command.count(GUIDE_DOCUMENT) == 1, f"the command fetches {GUIDE_DOCUMENT} once: {command}"
    return [f"{server}/v1/openapi.json" if word == GUIDE_DOCUMENT else word for word in command]
