"""The web client's own weight: the bytes of /play's and the replay viewer's HTML, JavaScript and CSS, raw and gzipped,
against the budget docs/benchmarks.md sets (and tests/bench/test_page_weight.py holds CI to).

    python -m bench.page_weight

/play is measured as a browser loads it the first time: the page as the server answers it (in English, its words
embedded) and every file it names under /play/static (its modules and style sheets).  The viewer is one page with its
script and style inside; its HTML is measured with an empty replay (a replay's own bytes grow with the game and are
not the page's), its script and style as the page carries them.  The service worker, the manifest and the icons are
counted apart: a browser fetches them once, after the page, and keeps them.  gzip at level 6 (what servers and proxies
use by default); each file apart, as HTTP compresses each answer apart.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from dataclasses import dataclass

from replays.viewer import render_viewer
from service.webclient import assets

#: The budget, in gzipped bytes (docs/benchmarks.md says why): what /play and the viewer may weigh, by kind.
BUDGET = {
    ("play", "html"): 22_000,
    ("play", "js"): 92_000,
    ("play", "css"): 8_000,
    ("viewer", "html"): 7_000,
    ("viewer", "js"): 15_000,
    ("viewer", "css"): 5_000,
}
#: And the whole of each page's first load (HTML + JS + CSS), gzipped.
TOTAL_BUDGET = {"play": 120_000, "viewer": 27_000}
#: An empty replay, for the viewer's own bytes.
EMPTY_REPLAY = {"format": "red7-replay/1", "game_id": "g_0000000000000000", "steps": [], "seats": [], "options": {}}
_ADDRESS = re.compile(r"""\b(?:src|href)=["']([^"']+)["']""")


@dataclass(frozen=True, slots=True)
class Weight:
    raw: int
    gzipped: int

    def __add__(self, other: Weight) -> Weight:
        return Weight(self.raw + other.raw, self.gzipped + other.gzipped)


def weigh(body: bytes) -> Weight:
    return Weight(len(body), len(gzip.compress(body, compresslevel=6, mtime=0)))


NONE = Weight(0, 0)


def play_weights() -> dict[str, Weight]:
    """/play's first load, by kind: the page as served (through the app), and each file it names."""
    from service.http.app import create_app
    from service.runtime import build_runtime
    from tests.harness.support import settings_for

    client = create_app(build_runtime(settings_for("red7-bench:page-weight:"))).test_client()
    page = client.get("/play?lang=en").get_data()
    kinds = {"html": weigh(page), "js": NONE, "css": NONE}
    for address in _ADDRESS.findall(page.decode()):
        if address.startswith("/play/static/"):
            body = client.get(address).get_data()
            kind = "js" if address.endswith(".js") else "css"
            kinds[kind] = kinds[kind] + weigh(body)
    return kinds


def viewer_weights() -> dict[str, Weight]:
    """The viewer's page with an empty replay, split into its inside script, its inside style and the rest."""
    page = render_viewer(EMPTY_REPLAY, "Red7 replay g_0000000000000000", "en")
    script = assets.inline_script(assets.VIEWER_ENTRY)
    style = "".join(assets.text(path) for path in assets.VIEWER_STYLES)
    assert page.count(script) == 1 and page.count(style) == 1
    rest = page.replace(script, "").replace(style, "")
    return {"html": weigh(rest.encode()), "js": weigh(script.encode()), "css": weigh(style.encode())}


def weights() -> dict[str, dict[str, Weight]]:
    return {"play": play_weights(), "viewer": viewer_weights()}


def installing() -> dict[str, Weight]:
    """What an installed /play fetches once beside the page: the service worker, the manifest, the icons."""
    from service.http.routes.play import ICONS, MANIFEST

    found = {"service worker": weigh(assets.data("worker/sw.js")), "manifest": weigh(json.dumps(MANIFEST).encode())}
    for name in ICONS:
        found[name] = weigh(assets.data(f"icons/{name}"))
    return found


def over_budget(found: dict[str, dict[str, Weight]]) -> list[str]:
    """Each figure over its budget, in words; none: all within."""
    over = [
        f"{page} {kind}: {found[page][kind].gzipped:,} B gzipped > {limit:,}"
        for (page, kind), limit in BUDGET.items()
        if found[page][kind].gzipped > limit
    ]
    for page, limit in TOTAL_BUDGET.items():
        total = sum(w.gzipped for w in found[page].values())
        if total > limit:
            over.append(f"{page} in all: {total:,} B gzipped > {limit:,}")
    return over


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    found = weights()
    print("page weight (bytes; gzip level 6, each file apart), against the budget in gzipped bytes:")
    for page, kinds in found.items():
        total = NONE
        for kind, weight in kinds.items():
            total = total + weight
            print(f"  {page:6} {kind:4} raw {weight.raw:8,}  gzip {weight.gzipped:7,}  budget {BUDGET[(page, kind)]:7,}")
        print(f"  {page:6} all  raw {total.raw:8,}  gzip {total.gzipped:7,}  budget {TOTAL_BUDGET[page]:7,}")
    print("fetched once by an installed /play, kept after:")
    for name, weight in installing().items():
        print(f"  {name:20} raw {weight.raw:8,}  gzip {weight.gzipped:7,}")
    over = over_budget(found)
    print("over budget: " + ("; ".join(over) if over else "nothing"))
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
