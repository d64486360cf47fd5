"""``python3 dev.py test`` stopped as a CI runner or a terminal stops it leaves no process of the project behind.

The fault tests start gunicorns, workers and redis-servers in sessions of their own (so a test can kill a
whole tree), which a signal to dev.py's process group does not reach.  Here dev.py runs a fault test, and
once that test's processes run (and a minute has passed, as a developer who gives up would wait), its
whole process group gets SIGTERM: every process that inherited the run's mark must be gone soon after.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.harness.deployment import REDIS_SERVER

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.fault,
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="dev.py adopts orphans with Linux's PR_SET_CHILD_SUBREAPER"),
    pytest.mark.skipif(REDIS_SERVER is None, reason="the fault test it runs needs redis-server on the PATH"),
]

#: Fault tests that run for well over a minute together, starting gunicorns, workers and redis-servers.
LONG_FAULT_TESTS = [f"tests/faults/test_{name}.py" for name in ("redis_restart", "killed_worker", "lost_writes")]

#: How long the run goes on before it is stopped (seconds), as the issue that asked for this says.
RUN_FOR = 60.0


def marked(mark: str) -> dict[int, str]:
    """Every process whose environment holds ``RED7_RUN_MARK=<mark>``, with its command line."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"RED7_RUN_MARK={mark}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                found[int(proc.name)] = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone, or not ours to read
    return found


def test_dev_py_test_stopped_with_sigterm_to_its_group_leaves_no_process(tmp_path):
    mark = uuid.uuid4().hex
    env = {**os.environ, "RED7_RUN_MARK": mark}
    with open(tmp_path / "dev.log", "wb") as log:
        run = subprocess.Popen(
            [sys.executable, "dev.py", "test", *LONG_FAULT_TESTS, "-p", "no:cacheprovider"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        started, serving = time.monotonic(), {}
        while time.monotonic() - started < RUN_FOR + 120 and run.poll() is None:
            serving = {pid: line for pid, line in marked(mark).items() if "gunicorn" in line or "redis-server" in line}
            if serving and time.monotonic() - started >= RUN_FOR:
                break
            time.sleep(0.5)
        assert run.poll() is None, (tmp_path / "dev.log").read_text()[-2000:]
        assert serving, "the fault test's gunicorn and redis-server should run by now"

        os.killpg(run.pid, signal.SIGTERM)  # what a CI runner, or `kill -TERM -<pgid>`, sends
        run.wait(timeout=30)
        deadline, left = time.monotonic() + 15, marked(mark)
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = marked(mark)
        assert not left, left
    finally:
        for pid in marked(mark):  # never leave what this test started, whatever failed above
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
            run.wait(10)
