"""The catalogs are kept whole: every language has every text the code marks, none fuzzy, none empty, each with the
English placeholders, and the template is what the code says today (docs/languages.md; `python3 dev.py catalogs`).

The catalogs are ``.po`` files compiled in memory when first used (service/common/texts.py): there is no ``.mo`` to go stale.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

import replays.build
import service.http.app
import workers.jobs
from service.common.texts import LANGUAGES, LOCALE_DIR, MESSAGES, Text, render, say, translations

ROOT = Path(__file__).resolve().parents[1]
#: The markers of service/common/texts.py, as dev.py's catalogs command gives them to pybabel extract.
KEYWORDS = {"N_": None, "message": (2,), "plural": (2, 3)}
PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")
assert service.http.app and replays.build and workers.jobs  # imported for the messages they register


def _key(msgid: str | tuple[str, ...]) -> str:
    return msgid if isinstance(msgid, str) else msgid[0]


def extracted() -> dict[str, str | tuple[str, str]]:
    """What the code marks today, as pybabel extract finds it (with dev.py's mapping: the Python sources and the web
    client's word tables)."""
    with (LOCALE_DIR / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, str | tuple[str, str]] = {}
    for package in ("service", "replays", "workers"):
        for _file, _line, msgid, _comments, _context in extract_from_dir(
            ROOT / package, method_map, options_map, keywords=KEYWORDS, comment_tags=(), strip_comment_tags=True
        ):
            found[_key(msgid)] = msgid
    return found


def catalog(language: str) -> Catalog:
    with (LOCALE_DIR / language / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=language)


def template() -> Catalog:
    with (LOCALE_DIR / "messages.pot").open("rb") as pot:
        return read_po(pot)


def test_the_template_is_what_the_code_marks_today():
    marked = extracted()
    kept = {_key(m.id): m.id for m in template() if m.id}
    assert sorted(set(marked) - set(kept)) == [], "marked in the code but not in messages.pot: run python3 dev.py catalogs"
    assert sorted(set(kept) - set(marked)) == [], "in messages.pot but no longer in the code: run python3 dev.py catalogs"
    assert kept == marked  # plural forms too


def test_every_registered_message_is_extracted():
    """A message registered by a call the extractor cannot read (a variable, not a literal) would never be translated."""
    marked = extracted()
    for code, entry in MESSAGES.items():
        assert entry.singular in marked, f"{code}: {entry.singular!r} is not a literal pybabel extract can see"


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_language_has_every_entry_translated_none_fuzzy(language):
    kept = catalog(language)
    assert kept.num_plurals >= 2 and kept.plural_expr
    wanted = {_key(m.id) for m in template() if m.id}
    have = {_key(m.id): m for m in kept if m.id}
    assert sorted(wanted - set(have)) == [], f"{language}: missing entries"
    assert sorted(set(have) - wanted) == [], f"{language}: entries the code no longer has"
    assert not kept.fuzzy, f"{language}: the catalog's header is fuzzy"
    for key, entry in have.items():
        assert "fuzzy" not in entry.flags, f"{language}: fuzzy: {key!r}"
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert all(form.strip() for form in forms), f"{language}: not translated: {key!r}"
        if isinstance(entry.id, tuple):
            assert len(forms) == kept.num_plurals, f"{language}: {key!r} needs {kept.num_plurals} plural forms"


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_translation_has_the_english_placeholders(language):
    for entry in catalog(language):
        if not entry.id:
            continue
        ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
        wanted = {frozenset(PLACEHOLDER.findall(text)) for text in ids}
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for form in forms:
            assert frozenset(PLACEHOLDER.findall(form)) in wanted, f"{language}: {form!r} has not the placeholders of {ids!r}"
            assert "%" not in PLACEHOLDER.sub("", form), f"{language}: a stray % in {form!r}"


def _sample(value_of: str) -> object:
    return 3 if value_of == "d" else "X"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_renders_in_every_language(language):
    assert translations(language) is translations(language)  # compiled once
    for code, entry in MESSAGES.items():
        params = {name: _sample(kind) for name, kind in PLACEHOLDER.findall(entry.plural or entry.singular)}
        said = render(Text(code, params), language)
        assert said and "%(" not in said, (language, code, said)


# Polish and Russian have three plural forms: one (1, 21 in Russian), few (2-4, 22-24), many (0, 5-20, 25 ...).
PLURALS = {
    "pl": {
        "count.cards": ["0 kart", "1 karta", "2 karty", "5 kart", "21 kart", "22 karty", "25 kart"],
        "count.points": ["0 punktów", "1 punkt", "2 punkty", "5 punktów", "21 punktów", "22 punkty", "25 punktów"],
        "count.days": ["0 dni", "1 dzień", "2 dni", "5 dni", "21 dni", "22 dni", "25 dni"],
        "play.new_cards": [
            "0 nowych kart",
            "1 nowa karta",
            "2 nowe karty",
            "5 nowych kart",
            "21 nowych kart",
            "22 nowe karty",
            "25 nowych kart",
        ],
    },
    "ru": {
        "count.cards": ["0 карт", "1 карта", "2 карты", "5 карт", "21 карта", "22 карты", "25 карт"],
        "count.points": ["0 очков", "1 очко", "2 очка", "5 очков", "21 очко", "22 очка", "25 очков"],
        "count.days": ["0 дней", "1 день", "2 дня", "5 дней", "21 день", "22 дня", "25 дней"],
        # issue 38: one new card was "новые" (plural)
        "play.new_cards": [
            "0 новых карт",
            "1 новая карта",
            "2 новые карты",
            "5 новых карт",
            "21 новая карта",
            "22 новые карты",
            "25 новых карт",
        ],
    },
    "en": {
        "count.cards": ["0 cards", "1 card", "2 cards", "5 cards", "21 cards", "22 cards", "25 cards"],
        "count.points": ["0 points", "1 point", "2 points", "5 points", "21 points", "22 points", "25 points"],
        "count.days": ["0 days", "1 day", "2 days", "5 days", "21 days", "22 days", "25 days"],
        "play.new_cards": [
            "0 new cards",
            "1 new card",
            "2 new cards",
            "5 new cards",
            "21 new cards",
            "22 new cards",
            "25 new cards",
        ],
    },
}


@pytest.mark.parametrize("language", sorted(PLURALS))
@pytest.mark.parametrize("code", ["count.cards", "count.points", "count.days", "play.new_cards"])
def test_counts_take_the_plural_form_of_their_number(language, code):
    said = [say(code, language, n=n) for n in (0, 1, 2, 5, 21, 22, 25)]
    assert said == PLURALS[language][code]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_count_of_11_to_14_is_never_the_few_form(language):
    """12 karty and 12 карты would be wrong: the teens take the many form in Polish and Russian."""
    for n in (11, 12, 13, 14, 111, 112):
        assert say("count.cards", language, n=n) == say("count.cards", language, n=15).replace("15", str(n))
