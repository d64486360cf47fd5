"""The word filter: whether a name, a handle (and, later, a message at a table) holds a word others should not see.

The word lists are glin-profanity's (MIT): maintained, one dictionary per language for all eight of ours (en, de,
fr, es, it, pl, ru with Cyrillic and transliterated entries, pt), and a matcher that already undoes the usual
disguises before it compares: case, accents (NFKD), look-alike letters (Cyrillic, Greek and full-width ones read
as Latin), leetspeak digits and symbols (``f4ck``, ``@ss``), letters set apart (``f.u.c.k``, ``k u r w a``) and
letters stretched (``fuuuck``).  Two things it leaves to us, done here:

- a handle's separators are word characters to a regular expression (``bob_fuck``): ``_`` and ``-`` are read as
  spaces first;
- words run together (``bobfuck``, ``superarschloch``): the text folded to its letters alone is searched for every
  listed word of :data:`RUN_TOGETHER_MIN` letters or more (shorter ones hide inside ordinary words: ass, con, cul).

The lists were made for English-speaking sites, and some entries are ordinary words in another of our languages
(``bitte`` is "please" in German, ``con`` "with" in Spanish and Italian, ``раунд`` a round).  :data:`ALLOWED` holds
those met in our own texts (the rulebooks, docs/rules.md, the catalogs): tests/service/domain/test_wordfilter.py
checks every word of them passes.  An operator adds words of their own (``extra``: the ``filter_words`` setting and
``red7 mod words add``); a table-talk message is checked by the same :meth:`WordFilter.offending`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from glin_profanity import Filter
from glin_profanity.utils.unicode import convert_full_width, convert_homoglyphs

#: The dictionaries of glin-profanity that are our eight languages.
LANGUAGES = ("english", "german", "french", "spanish", "italian", "polish", "russian", "portuguese")
#: Listed words this long or longer are also found run together with other letters.
RUN_TOGETHER_MIN = 6
#: Ordinary words of our languages that a list names (see the module's docstring), compared folded.
ALLOWED = frozenset(
    {
        "abortó",
        "b5",
        "bitte",
        "con",
        "cuánto",
        "fica",
        "końcu",
        "pede",
        "venire",
        "суток",
        "браузер",
        "браузере",
        "раунд",
        "раунда",
        "раундами",
        "раунде",
        "раундов",
        "раунды",
        "déconnect",
        "déconnex",  # deconne (fr, vulgar) inside "disconnect"
        # who someone is, never an insult in a name: the lists' entries for it are let through
        "bissexual",
        "heterosexual",
        "homosexual",
        "lésbica",
        "homem gay",
        "ariano",
        # pt: beer, to eat, mum, hell, donkey, bag, tap, abortion; ru: "what is the difference", naked, mess, mound
        "cerveja",
        "comer",
        "mama",
        "inferno",
        "burro",
        "saco",
        "torneira",
        "aborto",
        "какая разница",
        "голый",
        "обнаженный",
        "бардак",
        "бугор",
        "хапать",
        "офигеть",
        "на фиг",
        "фига",
        "xx",
        "xxx",  # letters a name is padded or crossed out with ("xxxxxxxx", "xXx"), not a word
        "amador",
        "aranha",
        "bosser",
        "balle",
        "gol",
        "byk",  # amateur, spider, to work, ball, goal, bull
        "mosse",  # it: moves (a tournament's "mosse"), read with its letters run together
        # fr: "worse" (tant pis), "udder"; and what a name such as "P15" reads as (leetspeak): let through, while the
        # listed word it is taken for is still refused as a word of its own (EXACT)
        "pis",
    }
)
#: Listed words that an entry of :data:`ALLOWED` lets through as the matcher reads them (it takes ``piss`` for ``pis``,
#: letters stretched), refused here when a word of the text is one of them, letter for letter (digits not read as
#: letters: ``P155`` is a name with a number).
EXACT = frozenset({"piss"})

_SEPARATORS = re.compile(r"[_\-]+")
_LATIN = re.compile(r"[A-Za-z]")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})
_NOT_A_LETTER = re.compile(r"[^\w]|[\d_]")


def latin_unaccented(text: str) -> str:
    """``text`` with the accents of Latin letters taken off (``ç`` ``c``), other scripts' letters as they are (the
    Russian ``й`` is a letter of its own, not an accented ``и``)."""
    out = []
    for char in text:
        base = unicodedata.normalize("NFKD", char)[0]
        out.append(base if base.isascii() and base.isalpha() else char)
    return "".join(out)


def fold(text: str) -> str:
    """``text`` as the run-together search reads it: look-alikes and leetspeak as the letters they pose as, no case,
    no accents, letters alone."""
    text = convert_homoglyphs(convert_full_width(text)).translate(_LEET)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _NOT_A_LETTER.sub("", text.casefold())


class WordFilter:
    """The eight languages' lists, plus ``extra`` words, with :data:`ALLOWED` let through."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.extra = tuple(sorted({word.strip().lower() for word in extra if word.strip()}))
        self._filter = Filter(
            {
                "languages": list(LANGUAGES),
                "custom_words": list(self.extra),
                "whitelist": sorted(ALLOWED),
                "detect_leetspeak": True,
                "normalize_unicode": True,
                "obfuscation": "standard",
            }
        )
        self._allowed = frozenset(fold(word) for word in ALLOWED)
        listed = {fold(word) for word in self._filter.words} | {fold(word) for word in self.extra}
        self._long = tuple(sorted(word for word in listed if len(word) >= RUN_TOGETHER_MIN and word not in self._allowed))

    def offending(self, text: str) -> str | None:
        """The first listed word ``text`` holds, in any disguise; ``None`` if it holds none."""
        # a word of digits alone is a number ("Ana 85"), never leetspeak for a word ("bs")
        spaced = " ".join(w for w in _SEPARATORS.sub(" ", latin_unaccented(text)).split() if not w.isdigit())
        candidates = [spaced]
        if _LATIN.search(spaced):  # Latin letters with look-alikes among them (fսck, f.u.с.k): read those as Latin too
            candidates.append(latin_unaccented(convert_homoglyphs(spaced)))  # (a Russian word alone stays Russian)
        for candidate in dict.fromkeys(candidates):
            found = self._filter.check_profanity(candidate)
            if found.get("contains_profanity"):
                words = found.get("profane_words") or ["?"]
                return str(words[0])
        for word in _SEPARATORS.sub(" ", text).split():  # letters only: digits are a name's number here (P155)
            if (plain := latin_unaccented(convert_homoglyphs(word)).casefold()) in EXACT:
                return plain
        letters = fold(text)
        if letters in self._allowed:
            return None
        for word in self._long:
            if word in letters and not any(word in allowed and allowed in letters for allowed in self._allowed):
                return word
        return None


@lru_cache(maxsize=8)
def word_filter(extra: tuple[str, ...] = ()) -> WordFilter:
    """One filter per set of extra words in a process: building one reads the lists (a third of a second)."""
    return WordFilter(extra)
