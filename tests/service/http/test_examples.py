"""``service/http/examples.json`` is what ``python3 dev.py examples`` records today: the game is played again here, in
memory (nothing is written), and compared with the committed file, what the clock decides stood in for on both sides
(``tests.harness.examples.normalised``).  A schema that changes shape, or a game that now plays out otherwise, fails
here until the command is run, so the document never shows a body the service no longer sends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.harness.examples import FILE, normalised, record, text_of


def differences(committed: Any, recorded: Any, path: str = "") -> list[str]:
    """Where two examples documents differ, by path: what a stale file's failure names."""
    if type(committed) is not type(recorded):
        return [f"{path or '/'}: {committed!r:.60} != {recorded!r:.60}"]
    if isinstance(committed, dict):
        keys = list(committed) + [k for k in recorded if k not in committed]
        return [d for k in keys for d in differences(committed.get(k), recorded.get(k), f"{path}/{k}")]
    if isinstance(committed, list):
        if len(committed) != len(recorded):
            return [f"{path}: {len(committed)} items != {len(recorded)}"]
        return [d for i, (a, b) in enumerate(zip(committed, recorded, strict=True)) for d in differences(a, b, f"{path}/{i}")]
    return [] if committed == recorded else [f"{path}: {committed!r:.60} != {recorded!r:.60}"]


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(FILE.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.slow  # a game, 34 rated games and two decision analyses: a minute of a core
def test_the_committed_examples_are_what_the_command_records_now(committed: dict[str, Any]) -> None:
    stale = differences(normalised(committed), normalised(record()))
    assert stale == [], "service/http/examples.json is stale: run python3 dev.py examples\n" + "\n".join(stale[:20])


def test_the_committed_file_is_written_as_the_command_writes_it(committed: dict[str, Any]) -> None:
    assert FILE.read_text(encoding="utf-8") == text_of(committed)


def test_only_the_clock_is_stood_in_for() -> None:
    """Times, a length of clock, a replay's hash and an import's id (made from it) are the clock's; ids, tokens,
    cards and counts are the game's, and a change to one of them is a stale file."""
    at = {"created_at": "2026-11-28T03:36:41.356Z", "time_left": 86399, "hash": "sha256:" + "ab" * 32}
    later = {"created_at": "2026-11-29T10:00:00.001Z", "time_left": 86398, "hash": "sha256:" + "cd" * 32}
    assert normalised(at) == normalised(later)
    assert normalised({"url": "/v1/replays/r_" + "ab" * 12}) == normalised({"url": "/v1/replays/r_" + "cd" * 12})
    assert normalised({"time_left": None}) != normalised({"time_left": 3})
    for game, other in (
        ({"id": "p_25e744bde20ebea6"}, {"id": "p_378b9b0e9a1e0b34"}),
        ({"token": "r7_TqpoXgQEeeMnkuzZyFCqT"}, {"token": "r7_kvS-x26p4rx-5hSBFNCD"}),
        ({"palette": ["R7", "O3"]}, {"palette": ["R7", "O4"]}),
        ({"won": 22}, {"won": 29}),
    ):
        assert normalised(game) != normalised(other), game
