"""The pages' markup as the server serves it: an element's id names one element, so that a script's
``getElementById`` and a stylesheet's ``#id`` reach the element meant and no other (the ladder's table and the game's
facts panel were both ``id="board"``, and the ladder's table styles dressed the panel)."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "service" / "webclient" / "play" / "play.html", ROOT / "replays" / "viewer.html"]


class Ids(HTMLParser):
    """Every ``id`` attribute of a document, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [value for name, value in attrs if name == "id" and value]


def ids_of(path: Path) -> list[str]:
    parser = Ids()
    parser.feed(path.read_text())
    return parser.ids


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_every_id_names_one_element(page: Path) -> None:
    ids = ids_of(page)
    assert ids, page
    assert [name for name, n in Counter(ids).items() if n > 1] == []


def test_the_ladders_table_styles_reach_no_panel_of_the_table() -> None:
    """The ladder's table keeps ``#board`` (its script and its styles name it); the game's facts have an id of their own."""
    ids = ids_of(PAGES[0])
    assert "board" in ids and "game-facts" in ids


def test_no_style_sheet_holds_a_word_to_fill_in() -> None:
    """The server fills ``__T:code__`` into a page, never into a style sheet, which it serves as it is: a word there
    showed as "__T:play.new__" on every card new since the player's last turn."""
    sheets = sorted((ROOT / "service" / "webclient").glob("*/*.css"))
    assert sheets
    assert [sheet.name for sheet in sheets if "__T:" in sheet.read_text()] == []
