"""Whether a page's labelled controls show their whole text: the browser tests' check that nothing is clipped or
overflows (issue 38), the same for /play and the replay viewer, in any language and at any size."""

from __future__ import annotations

from typing import Any

#: The page's labelled controls and the boxes that hold a word in a fixed shape (a badge, a card), each checked:
#: its content no wider than its box (``scrollWidth <= clientWidth``); a <select> (whose scroll width is its box's
#: whatever its text) no narrower than it would be left to its own width, i.e. than its longest choice.
OVERFLOWING = """
const controls = Array.from(document.querySelectorAll(arguments[0]));
// Shown to the eye: laid out, visible, and not the 1-pixel box of a text for screen readers only (.sr-only).
const shown = (node) => node.getClientRects().length > 0 && getComputedStyle(node).visibility !== "hidden"
  && !node.closest(".sr-only") && node.getBoundingClientRect().width > 1;
const out = [];
let checked = 0;
for (const node of controls) {
  if (!shown(node)) continue;
  checked += 1;
  const label = (node.getAttribute("aria-label") || node.textContent || node.id || node.tagName).trim().slice(0, 60);
  if (node.tagName === "SELECT") {
    const free = node.cloneNode(true);
    free.style.cssText = "position:absolute;visibility:hidden;width:auto;max-width:none;min-width:0";
    document.body.append(free);
    const wanted = free.getBoundingClientRect().width;
    free.remove();
    const has = node.getBoundingClientRect().width;
    if (wanted > has + 1) out.push({ label, id: node.id, wanted, has });
  } else if (node.scrollWidth > node.clientWidth + 1) {
    out.push({ label, id: node.id, wanted: node.scrollWidth, has: node.clientWidth });
  }
}
const page = document.scrollingElement;
return { checked, out, sideways: page.scrollWidth > page.clientWidth + 1 };
"""


def overflowing(driver: Any, selector: str) -> dict[str, Any]:
    """The controls ``selector`` finds whose text does not fit (none: ``out`` empty), how many were checked, and
    whether the page itself scrolls sideways."""
    found: dict[str, Any] = driver.execute_script(OVERFLOWING, selector)
    return found
