"""axe-core (Deque's maintained engine for WCAG checks) run in a page the browser tests show.

The engine is the npm package ``axe-core``, pinned in ``tests/clients/typescript/package.json`` and installed by
``npm ci`` there (``.ci/run`` does it); a test injects its one script into the page through WebDriver (which the
page's CSP does not stop: it is the browser's own evaluation, as DevTools' is) and runs it.  Without the package the
calling test skips, saying how to install it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[1] / "clients" / "typescript" / "node_modules" / "axe-core" / "axe.min.js"
NO_AXE = f"needs axe-core: run npm ci in {AXE.parents[2].relative_to(AXE.parents[4])} (.ci/run does)"
#: What the checks hold the pages to: WCAG 2.x A and AA, and axe's best practices (landmarks, headings...).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
IMPACTS = ("critical", "serious", "moderate", "minor")
RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, { runOnly: { type: "tag", values: arguments[0] }, resultTypes: ["violations"] })
  .then((result) => done(result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
  }))))
  .catch((error) => done({ error: String(error) }));
"""


def axe_source() -> str:
    if not AXE.exists():
        pytest.skip(NO_AXE)
    return AXE.read_text()


def violations(driver: Any, source: str) -> list[dict[str, Any]]:
    """axe's violations in the page ``driver`` shows now (the engine injected first if the page has none)."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(source)
    found: list[dict[str, Any]] | dict[str, str] = driver.execute_async_script(RUN, TAGS)
    assert isinstance(found, list), found
    return found


def by_impact(found: list[dict[str, Any]]) -> dict[str, int]:
    """How many elements violate a rule, by the rule's impact."""
    counts = Counter({impact: 0 for impact in IMPACTS})
    for violation in found:
        counts[violation["impact"] or "minor"] += len(violation["nodes"])
    return dict(counts)
