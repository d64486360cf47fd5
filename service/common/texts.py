"""Texts for people, in eight languages: a stable code and its parameters in, a sentence in the reader's language out.

Everything the service says to people is a :class:`Text`: a ``code`` an integrator switches on and ``params`` that
hold no words of any language (numbers, card notation such as ``R5``, a rule's colour letter, players' names, or
other texts).  :func:`render` looks the code's English message up in the language's gettext catalog
(``service/common/locale/<lang>/LC_MESSAGES/messages.po``, kept with Babel: ``pybabel extract / update``, see the README's
"Languages") and fills it in; plural messages go through ``ngettext``, so Polish and Russian get their CLDR plural
forms (one, few, many).  Events never hold a text: a replay or a view renders its texts when it is read, in the
language of whoever reads it.

The catalogs are read from their ``.po`` files and compiled in memory the first time a language is used: no
compiled ``.mo`` is committed or built at install time, so none can be out of date with its ``.po``
(``tests/test_catalogs.py`` keeps the ``.po`` files whole and up to date with the code).

Pure: no clock, no I/O but reading the package's own catalogs once; the lowest layer may import it.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

#: The languages the service speaks, English first (the fallback): the rulebooks' four, then four more.
LANGUAGES: tuple[str, ...] = ("en", "pl", "ru", "pt", "de", "fr", "es", "it")
DEFAULT = "en"
#: Each language's name in itself, for a language switch.
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "pl": "Polski",
    "ru": "Русский",
    "pt": "Português",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
}
LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "messages"


@dataclass(frozen=True, slots=True)
class Message:
    """A code's English message (``%(name)s`` placeholders); with ``plural``, chosen by the number in ``count``."""

    code: str
    singular: str
    plural: str | None = None
    count: str = "n"


#: Every message, by code (filled as the modules that define them are imported).
MESSAGES: dict[str, Message] = {}
_lock = threading.Lock()


def N_(msgid: str) -> str:
    """Marks a literal for ``pybabel extract``; translated later, where it is rendered (:func:`translate`)."""
    return msgid


def message(code: str, singular: str) -> str:
    """Registers ``code``'s English message (``pybabel extract`` finds it: keyword ``message:2``); returns ``code``."""
    return _register(Message(code, singular))


def plural(code: str, singular: str, plural_: str, count: str = "n") -> str:
    """Registers a message with plural forms (``pybabel extract``: keyword ``plural:2,3``), chosen by ``params[count]``."""
    return _register(Message(code, singular, plural_, count))


def _register(entry: Message) -> str:
    with _lock:
        known = MESSAGES.get(entry.code)
        if known is not None and known != entry:
            raise ValueError(f"two messages for the code {entry.code!r}")
        MESSAGES[entry.code] = entry
    return entry.code


@dataclass(frozen=True, slots=True)
class Text:
    """Something said to people, as a code and its parameters; a parameter may be another :class:`Text`."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def json(self) -> dict[str, Any]:
        """``{"code": ..., "params": {...}}``, nested texts as the same."""
        return {"code": self.code, "params": {k: v.json() if isinstance(v, Text) else v for k, v in self.params.items()}}


def supported(language: str | None) -> str:
    """``language`` if the service speaks it (its primary subtag: ``pl-PL`` is ``pl``), else English."""
    if not language:
        return DEFAULT
    primary = language.replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else DEFAULT


@cache
def translations(language: str) -> NullTranslations:
    """The language's catalog, compiled in memory from its ``.po`` the first time (English: the messages as written)."""
    if language == DEFAULT or language not in LANGUAGES:
        return NullTranslations()
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as po:
        catalog = read_po(po, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)  # a fuzzy entry is no translation (and tests/test_catalogs.py refuses one)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def translate(msgid: str, language: str) -> str:
    """A marked literal (:func:`N_`) in ``language``."""
    return translations(supported(language)).gettext(msgid)


def render(text: Text, language: str) -> str:
    """``text`` in ``language``: its code's message from the catalog, its parameters filled in (nested texts first)."""
    entry = MESSAGES[text.code]
    catalog = translations(supported(language))
    params = {k: render(v, language) if isinstance(v, Text) else v for k, v in text.params.items()}
    if entry.plural is None:
        template = catalog.gettext(entry.singular)
    else:
        template = catalog.ngettext(entry.singular, entry.plural, int(text.params[entry.count]))
    return template % params if params or "%(" in template else template


def say(code: str, language: str, **params: Any) -> str:
    """``render(Text(code, params), language)``."""
    return render(Text(code, params), language)


# --- words every part uses ----------------------------------------------------------------

#: A rule by its colour letter (docs/rules.md 3-9), as a rule is named (Polish "reguła", feminine; Russian "правило").
RULE_NAMES: dict[str, str] = {
    "R": message("rule.R", "Red"),
    "O": message("rule.O", "Orange"),
    "Y": message("rule.Y", "Yellow"),
    "G": message("rule.G", "Green"),
    "B": message("rule.B", "Blue"),
    "I": message("rule.I", "Indigo"),
    "V": message("rule.V", "Violet"),
}
#: What counts under each rule, one line each (docs/rules.md 3-9).
RULE_DESCRIPTIONS: dict[str, str] = {
    "R": message("rule.R.description", "Red: only the highest card counts."),
    "O": message("rule.O.description", "Orange: the most cards of one number count."),
    "Y": message("rule.Y.description", "Yellow: the most cards of one colour count."),
    "G": message("rule.G.description", "Green: the even cards (2, 4, 6) count."),
    "B": message("rule.B.description", "Blue: one card of each colour counts, the highest of it."),
    "I": message("rule.I.description", "Indigo: the longest run of consecutive numbers counts."),
    "V": message("rule.V.description", "Violet: the cards numbered 1, 2 and 3 count."),
}
#: An AI's seat and a resigned player's, said in the reader's language ("SI 1 (chciwa)"): the seat's number and the
#: AI's level in the words the new-game form uses, one message a level (its word agrees with "AI"). The same words as
#: the web client's (service/webclient/core/words.json: ``core.ai_seat.*``, ``core.resigned_seat.*``).
AI_SEATS: dict[str, str] = {
    "random": message("seat.ai.random", "AI %(number)s (random)"),
    "greedy": message("seat.ai.greedy", "AI %(number)s (greedy)"),
    "expert": message("seat.ai.expert", "AI %(number)s (expert)"),
}
RESIGNED_SEATS: dict[str, str] = {
    "random": message("seat.resigned.random", "%(name)s (resigned; AI random)"),
    "greedy": message("seat.resigned.greedy", "%(name)s (resigned; AI greedy)"),
    "expert": message("seat.resigned.expert", "%(name)s (resigned; AI expert)"),
}
CARDS = plural("count.cards", "%(n)d card", "%(n)d cards")
POINTS = plural("count.points", "%(n)d point", "%(n)d points")
DAYS = plural("count.days", "%(n)d day", "%(n)d days")


def _letter(color: str) -> str:
    """``R`` from ``R``, ``red`` or ``Red``: the seven colours' initials differ."""
    return color[:1].upper()


def rule(color: str) -> Text:
    """A rule's name as a text, from its colour (its letter or its name)."""
    return Text(RULE_NAMES[_letter(color)])


def rule_description(color: str) -> Text:
    """What counts under the rule of ``color`` (its letter or its name)."""
    return Text(RULE_DESCRIPTIONS[_letter(color)])


def count(n: int, code: str = CARDS) -> Text:
    """``"2 cards"`` in any language (``count.cards``, ``count.points``, ``count.days``)."""
    return Text(code, {"n": n})
