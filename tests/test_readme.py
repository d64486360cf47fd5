"""The README's blocks run as written: the quick start's ``python3 dev.py run`` serves what the README says it does
(``python3 dev.py test`` is CI's own command), and "Integrate in 5 minutes" runs against ``red7 serve --embedded``
(what ``python3 dev.py run`` starts), with nothing on the PATH but curl and python3; and that server, idle, neither
logs nor spins.  What docs/development.md says the tests need is what they skip without, and the client tools' versions
docs/integrating.md names are the ones pinned (its client-generation commands themselves run in tests/clients).

Each server is on a free loopback port (the one change made to a block: the port, in the 5-minute block's ``API=``
line, and as ``--host``/``--port`` after ``dev.py run``), in a process group of its own, stopped whatever the test did.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.clients.support import NO_NODE, TYPESCRIPT, guide_command, no_npm_tool, no_python_generator
from tests.harness.browser import NO_CHROMIUM
from tests.harness.deployment import PORT_TRIES, Served, answers_200, free_port, red7_serve, serving, stop_group
from tests.harness.documents import block, commands, section
from tests.harness.support import NO_REAL_REDIS_URL

ROOT = Path(__file__).resolve().parent.parent
API_LINE = "API=http://127.0.0.1:8000/v1"
CURL = shutil.which("curl")
PYTHON3 = Path(sys.executable).resolve()  # the interpreter itself (a "python3" on the PATH may be a shim script)


def readme_block() -> str:
    """The ``sh`` block under "## Integrate in 5 minutes", exactly as the README shows it."""
    return block("README.md", "Integrate in 5 minutes", "sh")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with red7_serve(tmp_path) as server:
        yield server


@pytest.mark.skipif(CURL is None, reason="needs curl (apt-get install curl; .ci/run installs it)")
def test_the_integrate_in_5_minutes_block_runs_as_written(served: Served, tmp_path: Path) -> None:
    session = readme_block()
    assert session.count(API_LINE) == 1, f"the block sets the API once, as {API_LINE}"
    script = tmp_path / "block.sh"
    script.write_text(session.replace(API_LINE, f"API=http://127.0.0.1:{served.port}/v1"))
    tools = tmp_path / "bin"  # the block may use curl and python3, and nothing else but bash's builtins
    tools.mkdir()
    assert CURL is not None
    (tools / "curl").symlink_to(CURL)
    (tools / "python3").symlink_to(PYTHON3)
    ran = subprocess.run(
        ["/bin/bash", "-euo", "pipefail", str(script)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
        env={"PATH": str(tools), "HOME": str(tmp_path)},
    )
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output[-4000:]
    said = re.findall(r"^(GET|POST|DELETE) http://127\.0\.0\.1:\d+/v1(\S+) -> (\d{3})$", ran.stdout, re.MULTILINE)
    answers = [(method, re.sub(r"[gt]_[0-9a-f]{16}", "<id>", path), int(status)) for method, path, status in said]
    assert [(method, path.split("?")[0], status) for method, path, status in answers] == [
        ("POST", "/games/<id>/actions", 200),  # 4. a legal step, on your turn, at the view's version
        ("GET", "/games/<id>/events", 200),  # 5. what happened since
        ("POST", "/games/<id>/join", 200),  # 6. the friend joins with the join code
        ("GET", "/players/me/games", 200),  # 7. the next page, with the cursor of the first
        ("GET", "/players/me/games", 200),
        ("POST", "/games/<id>/leave", 200),  # 8. resign from the game in play, call off the waiting one
        ("DELETE", "/games/<id>", 200),
        ("GET", "/players/me/tokens", 200),  # 9. tokens
        ("DELETE", "/players/me/tokens/<id>", 204),
    ], ran.stdout[-4000:]
    cursor = re.search(r"cursor=([^&\s]*)", answers[3][1])
    assert cursor and cursor.group(1) not in ("", "null"), answers[3]
    assert re.search(r"^id: \d+\nevent: \w+\ndata: \{", ran.stdout, re.MULTILINE), "the stream sent events before --max-time"


def test_step_4_says_a_card_action_can_leave_the_turn_pending() -> None:
    """Issue 38: the step the block plays may be a 1, 3, 5 or 7 with the card actions on, which leaves the turn
    ``pending`` (on "place" after a 7, say) until a step resolves it; the block says so where it acts."""
    session = readme_block()
    step_4 = session[session.index("# 4. Act.") : session.index("curl -s -X POST $API/games/$GAME/actions")]
    assert "pending" in step_4 and '"place"' in step_4 and "legal_steps" in step_4, step_4
    assert '"action_rules": true' in session, "the block's game has the card actions on"


def quick_start() -> list[str]:
    return commands(block("README.md", "Quick start", "sh"))


def test_the_quick_start_is_two_commands_and_ci_runs_the_test_command() -> None:
    assert quick_start() == ["python3 dev.py run", "python3 dev.py test"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "python3 dev.py test" in ci, "CI runs the README's test command, as printed"


def venv_is_current() -> bool:
    """Whether ``dev.py`` would use ``.venv`` as it is (else it installs the project first, which takes minutes)."""
    stamp = ROOT / ".venv" / ".red7-installed"
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return stamp.exists() and stamp.read_text() == wanted


@pytest.mark.skipif(shutil.which("python3") is None, reason="needs python3 on the PATH, as the quick start does")
def test_the_quick_starts_run_serves_the_play_page_the_api_docs_and_the_document(tmp_path: Path) -> None:
    """``python3 dev.py run``, as printed, on a free loopback port: the in-memory store (it says so), ``/play``,
    ``/v1/docs`` and ``/v1/openapi.json`` as the quick start promises."""
    if not venv_is_current():
        pytest.skip("dev.py would install the project into .venv first (minutes): run python3 dev.py env")
    run = shlex.split(quick_start()[0])
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RED7_", "REDIS_URL"))}
    environ["PYTHONUNBUFFERED"] = "1"  # its first lines reach the log as they reach a terminal
    for _ in range(PORT_TRIES):
        port = free_port()
        log = tmp_path / f"run-{port}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [*run, "--host", "127.0.0.1", "--port", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=environ,
                cwd=ROOT,
                start_new_session=True,
            )
        try:
            if serving(process, port, log, answers_200(f"http://127.0.0.1:{port}/healthz"), "python3 dev.py run", timeout=60):
                for path in ("/play", "/v1/docs", "/v1/openapi.json"):
                    answer = requests.get(f"http://127.0.0.1:{port}{path}", timeout=10)
                    assert answer.status_code == 200, (path, answer.status_code)
                said = log.read_text(errors="replace")
                assert "in-memory store" in said, "it says at start that nothing persists"
                assert f"http://127.0.0.1:{port}/play" in said, "it names /play at start (issue 38)"
                return
        finally:
            stop_group(process)
    raise AssertionError(f"python3 dev.py run found no free port in {PORT_TRIES} tries")


def past_the_start(served: Served, quiet: float = 2.0, bound: float = 30.0) -> list[str]:
    """The server's log once its start-up lines stopped coming (none for ``quiet`` seconds): on a loaded machine the
    ticker's first pass may log a few seconds after ``/healthz`` answers. A server that never goes quiet fails here."""
    lines, since, deadline = served.log_lines(), time.monotonic(), time.monotonic() + bound
    while time.monotonic() - since < quiet:
        assert time.monotonic() < deadline, f"the server kept logging for {bound:.0f} s: {served.log_lines()[-10:]}"
        time.sleep(0.2)
        if (now := served.log_lines()) != lines:
            lines, since = now, time.monotonic()
    return lines


def test_an_idle_embedded_server_neither_logs_nor_spins(served: Served) -> None:
    """``python3 dev.py run`` printed RQ's scheduler lock lines over and over, and idled at 7-14% of a core."""
    stat = Path(f"/proc/{served.process.pid}/stat")
    if not stat.exists():
        pytest.skip("needs /proc (Linux) to read the server's CPU time")
    lines = past_the_start(served)

    def cpu_ticks() -> int:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime (fields 14 and 15 of proc(5))

    ticks, began = cpu_ticks(), time.monotonic()
    time.sleep(6)
    share = (cpu_ticks() - ticks) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - began)
    assert served.log_lines() == lines, "an idle server logs nothing"
    assert not [line for line in lines if "scheduler" in line.lower()], lines
    assert share < 0.04, f"idle, the server used {share:.1%} of a core"


def test_the_docs_say_what_the_browser_and_client_tests_need() -> None:
    """Each skip reason as the tests give it, and the client tools' install lines as .ci/run runs them."""
    needs = section("docs/development.md", "What the tests need")
    reasons = [NO_REAL_REDIS_URL, NO_CHROMIUM, NO_NODE, no_npm_tool("<tool>"), no_python_generator(ROOT / ".venv-clients")]
    missing = [reason for reason in reasons if f"`{reason}`" not in needs]
    assert not missing, missing
    ci = (ROOT / ".ci" / "run").read_text()
    assert "apt-get install" in needs and re.search(r"apt-get install\b.*\bchromium chromium-driver\b", ci)
    installs = block("docs/development.md", "What the tests need", "sh")
    lines = installs.strip().splitlines()
    assert len(lines) == 3 and all(line in ci.splitlines() for line in lines), lines


def test_the_docs_name_the_client_tool_versions_that_are_pinned() -> None:
    """The versions in "Generating the clients" (its table and its install commands) are package.json's, its lock
    file's and .ci/run's; typescript is a 5.x (openapi-typescript 7 cannot use the 7.x a plain install pulls)."""
    generating = section("docs/integrating.md", "Generating the clients")
    table = dict(re.findall(r"^\| ([a-z-]+) \| (\d+\.\d+\.\d+) \|", generating, re.MULTILINE))
    npm = json.loads((TYPESCRIPT / "package.json").read_text())["devDependencies"]
    lock = json.loads((TYPESCRIPT / "package-lock.json").read_text())["packages"]
    for tool in ("openapi-typescript", "openapi-fetch", "typescript"):
        assert table[tool] == npm[tool] == lock[f"node_modules/{tool}"]["version"], tool
    assert npm["typescript"].startswith("5.") and "typescript@^5.x" in generating
    ci = (ROOT / ".ci" / "run").read_text()
    assert f'"openapi-python-client=={table["openapi-python-client"]}"' in ci
    assert f"pip install openapi-python-client=={table['openapi-python-client']}" in generating
    installs = [
        word
        for line in ("npm install --save-exact openapi-fetch", "npm install --save-exact --save-dev")
        for word in guide_command(line)
        if "@" in word
    ]
    assert sorted(installs) == sorted(f"{tool}@{table[tool]}" for tool in ("openapi-fetch", "openapi-typescript", "typescript"))
    generate = guide_command("npx openapi-typescript ")
    assert not [word for word in generate if word.startswith("--default-non-nullable")], "the default options do"
