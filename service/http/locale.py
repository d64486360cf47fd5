"""The language of this request's texts (chosen by :mod:`service.http.languages`), and texts said in it."""

from __future__ import annotations

from flask import current_app, g, has_request_context
from flask.ctx import _AppCtxGlobals

from service.common.texts import DEFAULT, Text, render

#: The query parameter that wins over everything else.
QUERY = "lang"
#: Where the app keeps its selector (``service.http.languages.choose``, which needs the players: it sits above this).
SELECTOR = "red7_language"


def language() -> str:
    """The language this request's texts are written in (and noted, so that the answer says so); English outside a
    request."""
    if not has_request_context():
        return DEFAULT
    ctx = g._get_current_object()  # the request's g, not its proxy: read twice
    ctx.texts_language = True
    return chosen_on(ctx)


def chosen() -> str:
    """The request's language, chosen once per request and kept on ``g`` (a view asks several times; Flask-Babel's
    ``get_locale`` parsed a ``Locale`` each time it was asked, a tenth of a view's CPU)."""
    return chosen_on(g._get_current_object())


def chosen_on(ctx: _AppCtxGlobals) -> str:
    """:func:`chosen`, kept on ``ctx``: the request's ``g``."""
    lang: str | None = ctx.get("language")
    if lang is None:
        lang = ctx.language = current_app.extensions[SELECTOR]() or DEFAULT
    return lang


def localized(text: Text) -> dict[str, object]:
    """A text as an answer carries it: its code and parameters for programs, and ``text`` in the request's language."""
    return {**text.json(), "text": render(text, language())}


def say(text: Text) -> str:
    """``text`` in the request's language."""
    return render(text, language())
