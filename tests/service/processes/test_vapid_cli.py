"""``red7 vapid`` makes a key pair for web push, and the embedded run, which makes a temporary one, logs only its public
half: no private key in a log line (issue 41)."""

from __future__ import annotations

import re
from pathlib import Path

import requests

from service.application.push import public_key_of
from service.processes.cli import main as red7
from tests.harness.deployment import red7_serve

KEY = re.compile(r"[A-Za-z0-9_-]{43}")  # a raw P-256 private key, base64url: 32 bytes


def test_red7_vapid_prints_a_private_key_and_its_public_key(capsys) -> None:
    assert red7(["vapid"]) == 0
    first = capsys.readouterr().out.splitlines()
    private = first[0].removeprefix("RED7_VAPID_PRIVATE_KEY=")
    assert first[0].startswith("RED7_VAPID_PRIVATE_KEY=") and KEY.fullmatch(private), first
    assert public_key_of(private) in first[1]
    assert red7(["vapid"]) == 0
    assert capsys.readouterr().out.splitlines()[0] != first[0], "a new key each time"


def test_the_embedded_run_logs_its_temporary_keys_public_half_only(tmp_path: Path) -> None:
    with red7_serve(tmp_path) as served:
        public = requests.get(f"http://127.0.0.1:{served.port}/v1/push/key", timeout=10).json()["public_key"]
        said = "\n".join(served.log_lines())
    assert public in said, "the log names the public key browsers will subscribe with"
    assert "red7 vapid" in said, "and how to make a lasting one"
    leftovers = [word for word in KEY.findall(said.replace(public, "")) if word not in public]
    assert not leftovers, leftovers
