"""The replay viewer: one self-contained HTML page (no build step, no network) with the replay inside.

The page is the template ``replays/viewer.html`` (inline CSS and JavaScript, no
external URL of any kind) with two placeholders filled in: the title, HTML-escaped,
and the replay document as JSON in a ``<script type="application/json">``
element.  It works under ``default-src 'none'; script-src 'unsafe-inline';
style-src 'unsafe-inline'`` and when saved to disk.

The JSON is made safe for the inside of a ``<script>`` element by writing every
``<``, ``>`` and ``&`` as a JSON ``\\u`` escape: ``</script>`` and ``<!--`` can
then never appear in it, and ``JSON.parse`` gives back exactly the document.
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

TEMPLATE = "viewer.html"
_PLACEHOLDER = re.compile(r"__RED7_(TITLE|REPLAY_JSON)__")
# Outside strings JSON has none of these characters, so escaping them everywhere keeps the JSON valid.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


@lru_cache(maxsize=1)
def template() -> str:
    """The page template shipped in this package."""
    return resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")


def embed_json(document: Any) -> str:
    """``document`` as JSON that can stand inside a ``<script>`` element (no ``</``, no ``<!--``)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


def render_viewer(document: dict[str, Any], title: str = "Red7 replay") -> str:
    """The page for ``document``; the replay is embedded, so the page works saved to disk too."""
    values = {"TITLE": html.escape(title), "REPLAY_JSON": embed_json(document)}
    # One pass, so a title that spells a placeholder is not filled in again.
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template())
