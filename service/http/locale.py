"""The language of this request's texts (chosen by :mod:`service.http.languages`), and texts said in it."""

from __future__ import annotations

from flask import g, has_request_context
from flask_babel import get_locale

from service.texts import DEFAULT, Text, render

#: The query parameter that wins over everything else.
QUERY = "lang"


def language() -> str:
    """The language this request's texts are written in (and noted, so that the answer says so); English outside a
    request."""
    if not has_request_context():
        return DEFAULT
    g.texts_language = True
    return str(get_locale() or DEFAULT)


def localized(text: Text) -> dict[str, object]:
    """A text as an answer carries it: its code and parameters for programs, and ``text`` in the request's language."""
    return {**text.json(), "text": render(text, language())}


def say(text: Text) -> str:
    """``text`` in the request's language."""
    return render(text, language())
