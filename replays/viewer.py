"""The replay viewer: one self-contained HTML page (no build step, no network) with the replay inside.

The page is the template ``replays/viewer.html`` with the viewer's style and script put inside it
(``service/webclient/viewer/``: the script is ES modules, one classic script in the page, see
``service/webclient/assets.py``), then, for each answer, its placeholders filled in: the title, HTML-escaped, its
words in the language asked (``service/webclient/viewer/words.json`` and the core's), and the replay document as
JSON in a ``<script type="application/json">`` element.  It names no external URL of any kind, works under
``default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'`` and when saved to disk.

The JSON is made safe for the inside of a ``<script>`` element by writing every
``<``, ``>`` and ``&`` as a JSON ``\\u`` escape: ``</script>`` and ``<!--`` can
then never appear in it, and ``JSON.parse`` gives back exactly the document.
"""

from __future__ import annotations

import html
from functools import lru_cache
from importlib import resources
from typing import Any

from replays.build import BEFORE_FIRST
from replays.explain import _FINISH
from service.common.texts import DEFAULT
from service.webclient import assets, words
from service.webclient.words import embed_json

TEMPLATE = "viewer.html"
#: The viewer's words (``service/webclient/viewer/words.json``), with the core's and the rules' names.
TABLES = (words.load("viewer/words.json"), words.CORE, words.RULES)
#: The replay's own words the page says too: how a game ends, and the step before the first.
ALSO = (*_FINISH.values(), BEFORE_FIRST)
#: The oEmbed discovery link (https://oembed.com, 4), with its path.
OEMBED_LINK = '<link rel="alternate" type="application/json+oembed" href="{}">'
#: The page's title: the replay of a game (or of an imported file), by its id.
TITLE = "viewer.title"

__all__ = ["TITLE", "embed_json", "render_viewer", "template"]


@lru_cache(maxsize=1)
def template() -> str:
    """The page template shipped in this package, its style and script put in (its placeholders still there)."""
    page = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    style = "".join(assets.text(path) for path in assets.VIEWER_STYLES)
    inside = {"__RED7_STYLE__": style, "__RED7_SCRIPT__": assets.inline_script(assets.VIEWER_ENTRY)}
    for placeholder, text in inside.items():
        if page.count(placeholder) != 1:
            raise ValueError(f"{TEMPLATE} must hold {placeholder} once")
        page = page.replace(placeholder, text)
    return page


def render_viewer(
    document: dict[str, Any],
    title: str = "Red7 replay",
    language: str = DEFAULT,
    analyse: str | None = None,
    *,
    embed: bool = False,
    theme: str | None = None,
    oembed: str | None = None,
) -> str:
    """The page for ``document``, its words in ``language`` (the steps' texts come in the document); the replay is
    embedded, so the page works saved to disk too.  ``analyse``: where a player may ask for the replay's decision
    analysis (a same-origin path), for a replay that has none yet; the page then offers a button for it, which needs
    the network (and ``connect-src 'self'``): saved to disk, it does not show.  ``embed``: the embed mode, for an
    iframe on another site (the table, the buttons and what happened, no header, links or step list); ``theme``:
    ``light`` or ``dark`` whatever the reader prefers (``None``: as they prefer).  ``oembed``: where the page's oEmbed
    answer is (a same-origin path), named in a discovery ``<link>`` so a blog given the page's link finds its embed
    code (a link that loads nothing)."""
    values = {
        "TITLE": html.escape(title),
        "REPLAY_JSON": embed_json(document),
        "ANALYSE_URL": html.escape(analyse or ""),
        "MODE": "embed" if embed else "page",
        "THEME": theme if theme in ("light", "dark") else "auto",
        "OEMBED": "" if not oembed else OEMBED_LINK.format(html.escape(oembed)),
    }
    # One pass, so a title or a name that spells a placeholder is not filled in again.
    return words.fill(template(), language, TABLES, values, ALSO)
