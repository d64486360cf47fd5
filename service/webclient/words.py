"""The web client's words: tables of codes and their English, kept as data beside the code that says them.

Each page of the web client has a table (``play/words.json``, ``viewer/words.json``) and both share the core's
(``core/words.json``).  A table's messages are registered with :mod:`service.common.texts` like any other text of the
service, so the gettext catalogs translate them (``python3 dev.py catalogs`` reads the tables through
:func:`extract`, named in ``service/common/locale/babel.cfg``), and a page is served with its words in the request's
language: its own text filled in (``__T:code__``) and the rest embedded as JSON for its script's ``t(code,
params)`` and ``counted(kind, n)`` (``core/words.js``), so that no text shows in English first.

A table::

    {"about": "...", "messages": {"code": "English, %(name)s filled in by the page"},
     "plurals": {"code": ["%(n)d one", "%(n)d other"]}, "counted": {"kind": "a plural's code"}}
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import IO, Any

from service.common.texts import (
    LANGUAGE_NAMES,
    MESSAGES,
    RULE_NAMES,
    Text,
    count,
    message,
    plural,
    render,
    supported,
    translations,
)

#: How many of each counted word a page gets (0 to COUNTED - 1, each in the language's plural form).
COUNTED = 100
PLACEHOLDER = re.compile(r"__RED7_([A-Z_]+)__|__T:([a-zA-Z0-9_.]+)__")
# Outside strings JSON has none of these characters, so escaping them everywhere keeps the JSON valid.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


@dataclass(frozen=True, slots=True)
class Table:
    """A page's words: its messages' codes, and its counted words (a kind, as the script names it, and a plural's
    code: said for 0 to COUNTED - 1)."""

    codes: tuple[str, ...]
    counted: tuple[tuple[str, str], ...] = ()


def _read(name: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def load(name: str) -> Table:
    """The table ``name`` (a path in this package), its messages registered (:func:`service.common.texts.message`)."""
    data = _read(name)
    codes = tuple(message(code, english) for code, english in data.get("messages", {}).items())
    for code, (one, other) in data.get("plurals", {}).items():
        plural(code, one, other)
    return Table(codes, tuple(data.get("counted", {}).items()))


#: The core's words (card names, the rules' helps, decision verdicts, the API client's refusals) and the rules' names.
CORE = load("core/words.json")
RULES = Table(tuple(RULE_NAMES.values()))


def said(language: str, *tables: Table, also: Iterable[str] = ()) -> dict[str, Any]:
    """What a page's script says, in ``language``: every word of ``tables`` (and ``also``: codes registered
    elsewhere), the counted words, and the languages to switch to.  A word with ``%(name)s`` is filled in by the
    script: it is only translated here."""
    words: dict[str, Any] = {}
    for code in (*(code for table in tables for code in table.codes), *also):
        english = MESSAGES[code].singular
        words[code] = translations(language).gettext(english) if "%(" in english else render(Text(code), language)
    kinds = {kind: code for table in tables for kind, code in table.counted}
    words["counted"] = {kind: [render(count(n, code), language) for n in range(COUNTED)] for kind, code in kinds.items()}
    return {"lang": language, "languages": LANGUAGE_NAMES, "words": words}


def embed_json(document: Any) -> str:
    """``document`` as JSON that can stand inside a ``<script>`` element (no ``</``, no ``<!--``)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


@cache
def said_json(language: str, tables: tuple[Table, ...], also: tuple[str, ...] = ()) -> tuple[str, dict[str, str]]:
    """:func:`said` as embedded JSON, and its words, once per language and page (the catalogs never change)."""
    document = said(language, *tables, also=also)
    return embed_json(document), document["words"]


def fill(page: str, language: str, tables: tuple[Table, ...], values: Mapping[str, str], also: tuple[str, ...] = ()) -> str:
    """``page`` with its words in ``language`` (``__T:code__``, HTML-escaped), the script's words
    (``__RED7_WORDS_JSON__``), its language (``__RED7_LANG__``) and ``values`` (``__RED7_<NAME>__``: put in as
    they are, so the caller escapes them).  One pass: a value that spells a placeholder is not filled in again."""
    language = supported(language)
    words_json, texts = said_json(language, tables, also)
    filled = {"WORDS_JSON": words_json, "LANG": language, **values}

    def put(match: re.Match[str]) -> str:
        name, code = match.group(1), match.group(2)
        return filled[name] if name else html.escape(texts[code], quote=True)

    return PLACEHOLDER.sub(put, page)


def extract(
    fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Iterable[str], options: Mapping[str, Any]
) -> Iterator[tuple[int, str, tuple[str, ...], list[str]]]:
    """pybabel's extractor for a table (``service/common/locale/babel.cfg``): each message as ``message(code, english)``
    and each plural as ``plural(code, one, other)`` would be in Python, so the same keywords pick the English."""
    data = json.loads(fileobj.read().decode("utf-8"))
    for code, english in data.get("messages", {}).items():
        yield 0, "message", (code, english), []
    for code, (one, other) in data.get("plurals", {}).items():
        yield 0, "plural", (code, one, other), []
