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
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.harness.documents import block, blocks, commands
from tests.harness.oauth_app import app_listener

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
#: What both players print of the archive: its games a page each by the cursor, the bulk export's lines (gzip on the
#: wire) each parsed as a replay, in the same order, and one verified by the server on import under its own hash.
ARCHIVED = r"archive: (\d+) games in \1 pages by the cursor; \1 export lines \(gzip\) parsed, one verified"
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


#: What the sign-in programs ask for (python/signin.py, typescript/signin.ts): fewer scopes than the app may ask for.
SIGNIN_SCOPES = "profile:read notifications"
#: The inbox programs' line (python/inbox.py, typescript/inbox.ts): the feed followed, then the inbox marked read.
INBOX = (
    "feed: opened with 1 challenge, 1 unread; long-poll answered challenge_received as it came; resumed: nothing "
    "repeated; inbox: 2 notices newest first, getMe unread 2 -> 0 once marked read"
)
#: How long a sign-in program may take, the browser's part included.
SIGNIN_SECONDS = 90


def sign_in_through_the_browser(server: str, runtime: Any, program: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    """Sign in with Red7 as an app does, the app being ``program`` (a client's sign-in program, given the server, the
    app's client id and its redirect URI): the operator registers the app (``red7 apps add``'s service), the program
    prints the authorization URL, a player signed in at /play in headless Chromium approves it on the consent page,
    and the URL the browser came back to is the program's input.  The program's output after the URL, and the id of
    the player who approved, first."""
    from tests.harness.browser import CHROMEDRIVER, CHROMIUM, NO_CHROMIUM

    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        pytest.skip(NO_CHROMIUM)
    pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    with app_listener() as callback:  # the app's own loopback listener (RFC 8252 7.3), not our server: it keeps no log
        return _signed_in(server, runtime, program, cwd, env, callback)


def _signed_in(server: str, runtime: Any, program: list[str], cwd: Path, env: dict[str, str], callback: str) -> list[str]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.harness.browser import desktop_chromium

    app = runtime.oauth.register("Inbox Reader", [callback], ["play", "profile:read", "notifications"])
    with subprocess.Popen(
        [*program, server, app.client_id, callback],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
    ) as app_process:
        timer = threading.Timer(SIGNIN_SECONDS, app_process.kill)  # bounded: a program that hangs is ended
        timer.start()
        try:
            assert app_process.stdout is not None and app_process.stdin is not None
            first = app_process.stdout.readline().strip()
            assert first.startswith("authorize: "), f"the app's first line: {first!r}"
            url = first.removeprefix("authorize: ")
            with desktop_chromium() as driver:
                driver.get(f"{server}/play?lang=en")
                WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
                driver.find_element(By.ID, "signup-name").send_keys("Ana")
                driver.find_element(By.ID, "signup-submit").click()
                WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "who-name").text == "Ana")
                player = driver.execute_script("return JSON.parse(localStorage.getItem('red7.player')).id")
                driver.get(url)
                WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "allow").is_enabled())
                shown = [item.get_attribute("data-scope") for item in driver.find_elements(By.CSS_SELECTOR, "#scopes li")]
                assert shown == SIGNIN_SCOPES.split(), shown
                driver.find_element(By.ID, "allow").click()
                WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback + "?"))
                back = driver.current_url
            out, err = app_process.communicate(back + "\n", timeout=SIGNIN_SECONDS)
        finally:
            timer.cancel()
            if app_process.poll() is None:
                app_process.kill()
    assert app_process.returncode == 0, out + err
    return [player, *out.strip().splitlines()]


def recipe_lines_missing(codes: list[str], programs: list[Path]) -> list[str]:
    """The lines of the guide's recipes (``codes``: the blocks of docs/integrating.md's "Your feed, your inbox, and
    signing in other apps" in one language) that are in none of ``programs`` (each line compared without its
    indentation): the recipes are what the tested programs do, as they write it."""
    written = {line.strip() for program in programs for line in program.read_text().splitlines()}
    shown = [line.strip() for code in codes for line in code.splitlines()]
    return [line for line in shown if line and line not in written]
