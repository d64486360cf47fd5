#!/usr/bin/env python3
"""The project's two front doors: ``python3 dev.py run`` and ``python3 dev.py test``.

Both make (or refresh) a virtual environment in ``.venv`` with the project and
its test tools installed, so a fresh machine needs nothing but Python 3.11+.
The environment is rebuilt only when ``pyproject.toml`` changes.

``python3 dev.py catalogs`` extracts the texts marked in the code into ``service/common/locale/messages.pot`` and brings
every language's ``.po`` up to date with it (docs/languages.md); only the dates change when nothing else did.

``python3 dev.py examples`` plays a seeded game through the app (in memory) and writes what was sent and answered to
``service/http/examples.json``, the OpenAPI document's examples (docs/development.md); run it when a schema changes
shape (tests/service/http/test_examples.py fails until then).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".red7-installed"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def ensure_env() -> Path:
    """The venv's python, with the project installed for the current pyproject.toml."""
    if sys.version_info < (3, 11):  # noqa: UP036 (this file runs before the environment exists)
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    python = BIN / ("python.exe" if os.name == "nt" else "python")
    if not python.exists():
        print("dev.py: creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    if not STAMP.exists() or STAMP.read_text() != wanted:
        print("dev.py: installing the project and its test tools into .venv ...", flush=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "-e", f"{ROOT}[test,tracing]"], check=True)  # tracing: its tests run too
        STAMP.write_text(wanted)
    return python


def checks(python: Path) -> int:
    """Lint and formatting (ruff), the layering contracts (import-linter, see ARCHITECTURE.md) and the types (mypy)."""
    failed = 0
    for name, command in (
        ("ruff", [str(python), "-m", "ruff", "check", "."]),
        ("ruff format", [str(python), "-m", "ruff", "format", "--check", "."]),
        ("import-linter", [str(BIN / "lint-imports"), "--no-cache"]),
        ("mypy", [str(python), "-m", "mypy"]),
    ):
        print(f"dev.py: {name}", flush=True)
        if subprocess.call(command, cwd=ROOT) != 0:
            print(f"dev.py: {name} FAILED", flush=True)
            failed = 1
    return failed


def run_suites(python: Path) -> int:
    """The whole suite: the fault tests (slow, mostly waiting) in a process of their own beside the rest.

    They start their own redis-servers, gunicorns and workers on free ports,
    so the two runs share nothing but the cores.  The rest prints as it runs
    (each test's dot as it comes, not a line at a time); the fault tests'
    output follows, then one line that counts both runs.
    """
    log = ROOT / ".faults.log"
    with open(log, "w") as out:
        faults = subprocess.Popen(
            [str(python), "-m", "pytest", "tests/faults", "-p", "no:cacheprovider", "-s"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        # --durations: the slowest tests, at the end of every run, so that CI's time (kept under ~25 minutes) is read
        # from its log, not guessed.
        suite = subprocess.Popen(
            [str(python), "-m", "pytest", "--ignore=tests/faults", "--durations=25"], cwd=ROOT, stdout=subprocess.PIPE
        )
        assert suite.stdout is not None
        seen = b""
        while chunk := os.read(suite.stdout.fileno(), 4096):
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
            seen = (seen + chunk)[-4096:]
        suite_code, fault_code = suite.wait(), faults.wait()
    fault_text = log.read_text()
    print("\n===== the fault tests (tests/faults), run beside the rest =====", flush=True)
    print(fault_text, end="", flush=True)
    counts = dict.fromkeys(("passed", "failed", "skipped", "error"), 0)
    for summary in (seen.decode(errors="replace").splitlines()[-1:], fault_text.splitlines()[-1:]):
        for number, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)\b", "".join(summary)):
            counts[word.rstrip("s") if word.startswith("error") else word] += int(number)
    print(f"\ntotal: {counts['passed']} passed, {counts['failed'] + counts['error']} failed, {counts['skipped']} skipped")
    return suite_code or fault_code


#: Linux's prctl option that makes this process adopt the orphans of its descendants.
PR_SET_CHILD_SUBREAPER = 36


def stop_descendants_on_exit() -> None:
    """Leave no process behind: whatever the tests started is stopped with this one, however it is stopped.

    The tests start gunicorns, workers and redis-servers in sessions of their own (so that a test can kill a
    whole tree), which a signal to this process group does not reach, and which outlive a test process that
    is killed before its fixtures stop them.  As a subreaper (Linux), this process adopts them when their
    parent dies; on SIGTERM or SIGINT, and at exit, it stops every descendant it has.
    """
    if sys.platform != "linux":
        return
    import atexit
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    def on_signal(number: int, _frame: object) -> None:
        signal.signal(number, signal.SIG_IGN)  # the rest of the group got it too: stop them once
        stop_descendants()
        os._exit(128 + number)

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, on_signal)
    atexit.register(stop_descendants)


def descendants() -> list[int]:
    """The ids of every process below this one (from /proc: parent ids), children first."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [os.getpid()]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def stop_descendants(grace: float = 5.0) -> None:
    """SIGTERM every descendant, SIGKILL what is left after ``grace`` seconds; reap them, orphans adopted meanwhile too."""
    import signal
    import time

    deadline = time.monotonic() + grace
    while pids := descendants():
        kill = signal.SIGTERM if time.monotonic() < deadline else signal.SIGKILL
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, kill)
        time.sleep(0.1)
        while True:  # reap the children that ended (adopted orphans are our children too)
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break


#: pybabel extract's keywords for our markers (service/common/texts.py): N_(msgid), message(code, msgid), plural(code, one, many).
KEYWORDS = ["-k", "N_", "-k", "message:2", "-k", "plural:2,3"]


def catalogs() -> int:
    """Extract every marked text into service/common/locale/messages.pot and bring each language's .po up to date with it
    (new entries empty, gone ones dropped): then translate what is empty; tests/test_catalogs.py says what is missing."""
    locale = ROOT / "service" / "common" / "locale"
    extract = [str(BIN / "pybabel"), "extract", "-F", str(locale / "babel.cfg"), "--no-default-keywords", *KEYWORDS]
    extract += ["--no-location", "--sort-output", "--project", "red7", "-o", str(locale / "messages.pot")]
    update = [str(BIN / "pybabel"), "update", "-i", str(locale / "messages.pot"), "-d", str(locale), "--no-wrap"]
    update += ["--ignore-obsolete", "--no-fuzzy-matching"]
    return subprocess.call([*extract, "service", "replays", "workers"], cwd=ROOT) or subprocess.call(update, cwd=ROOT)


def examples(python: Path) -> int:
    """Record the OpenAPI document's examples from a real game (tests/harness/examples.py) into service/http/examples.json."""
    return subprocess.call([str(python), "-m", "tests.harness.examples"], cwd=ROOT)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "help"
    rest = argv[1:]
    if command == "run":
        python = ensure_env()
        return subprocess.call([str(BIN / "red7"), "serve", "--embedded", *rest])
    if command == "test":
        python = ensure_env()
        stop_descendants_on_exit()
        lint = checks(python)
        if rest:  # the caller chose what to run
            return subprocess.call([str(python), "-m", "pytest", *rest], cwd=ROOT) or lint
        return run_suites(python) or lint
    if command == "env":
        print(ensure_env())
        return 0
    if command == "catalogs":
        ensure_env()
        return catalogs()
    if command == "examples":
        return examples(ensure_env())
    print(__doc__)
    return 0 if command == "help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
