"""The players' feeds bench runs end to end on a small scale (its own redis-server, gunicorn and worker), its feeds
read by processes of their own, and prints every figure it names, with no notice lost."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_feed_bench_carries_every_notice_and_prints_its_figures() -> None:
    if not shutil.which("redis-server"):
        pytest.fail("redis-server must be on the PATH (.ci/run installs it)")
    args = ["--players", "12", "--notices", "8", "--senders", "2", "--readers", "2", "--idle-seconds", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.player_feed_bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "players with an open feed: 12 of 12" in out and "2 reader processes" in out
    assert "notices: 8 sent" in out and ", 0 not carried" in out
    assert re.search(r"latency request-to-feed: p50 \d+ ms, p99 \d+ ms", out)
    assert re.search(r"Redis commands a second for the idle open feeds: -?\d+ \(-?[\d.]+ a feed", out)
    assert re.search(r"Redis used_memory per idle open feed: -?\d+ bytes", out) and "load average at the end:" in out
