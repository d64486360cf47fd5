"""The replay viewer: one self-contained HTML page (no build step, no network) with the replay inside."""

from __future__ import annotations

import html
import json
from typing import Any


def render_viewer(document: dict[str, Any], title: str = "Red7 replay") -> str:
    """The page for ``document``; the replay is embedded, so the page works saved to disk too."""
    data = json.dumps(document, separators=(",", ":")).replace("</", "<\\/")
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>"
        f'<script id=replay type=application/json>{data}</script>'
        "<body><p>Replay viewer</p></body></html>"
    )
