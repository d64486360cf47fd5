"""The language of a request's answer: ``?lang=``, then the player's setting, then ``Accept-Language``, then English.

Flask-Babel holds the choice for the request (``Babel(app, locale_selector=...)``; ``get_locale()`` asks
:func:`choose` once per request and keeps the answer).  The texts themselves come from :mod:`service.texts`, whose
catalogs the workers and the replays share.  An answer that holds text (a problem, a view, a replay, the rules, a
page) says its language in ``Content-Language``; when ``?lang=`` did not decide it, the answer depends on
``Accept-Language`` and says so in ``Vary``.
"""

from __future__ import annotations

from flask import Flask, Response, g, request
from flask_babel import Babel, get_locale

from service.http.auth import bearer_token
from service.http.common import player_service
from service.http.locale import QUERY
from service.http.problems import PROBLEM_JSON
from service.texts import DEFAULT, LANGUAGES


def from_query() -> str | None:
    """``?lang=`` when it names a language the service speaks (``pl``, ``pl-PL``); anything else is ignored."""
    asked = request.args.get(QUERY)
    if not asked:
        return None
    primary = asked.replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def choose() -> str:
    """The request's language (docs: README, "Languages")."""
    asked = from_query()
    if asked is not None:
        return asked
    player = g.get("player")  # the caller, once the route has asked who it is (service/http/auth.py)
    token = bearer_token() if "player" not in g else None
    if token is not None:  # a refusal before the route asked (a body that does not parse): the token's player, if any
        try:
            player = player_service().by_token(token)
        except Exception:  # the store down, say: the answer (often that very 503) is not to fail for its language
            player = None
    if player is not None and player.language in LANGUAGES:
        return str(player.language)
    best = request.accept_languages.best_match(LANGUAGES)
    return best if best in LANGUAGES else DEFAULT


def _mark(response: Response) -> Response:
    """``Content-Language`` on an answer with text; ``Vary: Accept-Language`` unless ``?lang=`` decided."""
    has_text = g.get("texts_language") or response.mimetype == PROBLEM_JSON
    if not has_text:
        return response
    response.headers["Content-Language"] = str(get_locale() or DEFAULT)
    if from_query() is None:
        response.vary.add("Accept-Language")
    return response


def init_app(app: Flask) -> None:
    """Flask-Babel's selector, and the headers every answer with text carries."""
    Babel(app, locale_selector=choose, default_locale=DEFAULT)
    app.after_request(_mark)
