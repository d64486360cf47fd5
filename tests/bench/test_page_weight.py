"""The web client's own weight stays under the budget docs/benchmarks.md sets and justifies (bench/page_weight.py):
a change that makes /play or the viewer heavier than that fails here, and either earns a new budget there or sheds
bytes.  Bytes, not time: nothing here is timed."""

from __future__ import annotations

from bench import page_weight
from tests.bench.test_benches import run_bench


def test_play_and_the_viewer_weigh_no_more_than_their_budget() -> None:
    found = page_weight.weights()
    assert set(found) == {"play", "viewer"} and all(set(kinds) == {"html", "js", "css"} for kinds in found.values())
    assert all(weight.gzipped > 0 and weight.raw > weight.gzipped for kinds in found.values() for weight in kinds.values())
    assert page_weight.over_budget(found) == []
    assert found["play"]["js"].raw > 100_000, "every module /play loads is counted"


def test_an_overweight_page_is_said_over_its_budget() -> None:
    found = page_weight.weights()
    heavy = {**found, "viewer": {**found["viewer"], "js": page_weight.Weight(10**6, 10**6)}}
    over = page_weight.over_budget(heavy)
    assert any(line.startswith("viewer js: 1,000,000 B gzipped > ") for line in over)
    assert any(line.startswith("viewer in all: ") for line in over)


def test_the_bench_is_one_command_that_prints_every_figure() -> None:
    out = run_bench("page_weight")
    for page in ("play", "viewer"):
        for kind in ("html", "js", "css", "all"):
            assert f"  {page:6} {kind:4} raw " in out, (page, kind)
    assert "service worker" in out and "icon-512.png" in out and "over budget: nothing" in out
