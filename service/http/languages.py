"""The language of a request's answer: ``?lang=``, then the player's setting, then ``Accept-Language``, then English.

:func:`service.http.locale.chosen` asks :func:`choose` once per request and keeps the answer on ``g`` (Flask-Babel's
selector is the same function, for anything that asks Flask-Babel).  The texts themselves come from
:mod:`service.common.texts`, whose catalogs the workers and the replays share.  An answer that holds text (a problem, a
view, a replay, the rules, a page) says its language in ``Content-Language``; when ``?lang=`` did not decide it, the
answer depends on the caller's token (the player's setting) and ``Accept-Language``, and says so in ``Vary``
(:func:`mark`).
"""

from __future__ import annotations

from flask import Flask, Request, Response, g
from flask_babel import Babel

from service.common.texts import DEFAULT, LANGUAGES
from service.http.auth import bearer_token
from service.http.common import player_service, this_request
from service.http.locale import QUERY, SELECTOR, chosen_on
from service.http.problems import PROBLEM_JSON


def from_query() -> str | None:
    """``?lang=`` when it names a language the service speaks (``pl``, ``pl-PL``); anything else is ignored."""
    return _from_query(this_request())


def _from_query(req: Request) -> str | None:
    if not req.environ.get("QUERY_STRING"):  # the usual request: no query to parse
        return None
    asked = req.args.get(QUERY)
    if not asked:
        return None
    primary = asked.replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def choose() -> str:
    """The request's language (docs: README, "Languages")."""
    req = this_request()
    asked = _from_query(req)
    if asked is not None:
        return asked
    ctx = g._get_current_object()  # the request's g, not its proxy: asked twice
    player = ctx.get("player")  # the caller, once the route has asked who it is (service/http/auth.py)
    token = bearer_token() if "player" not in ctx else None
    if token is not None:  # a refusal before the route asked (a body that does not parse): the token's player, if any
        try:
            player = player_service().by_token(token)
        except Exception:  # the store down, say: the answer (often that very 503) is not to fail for its language
            player = None
    if player is not None and player.language in LANGUAGES:
        return str(player.language)
    if not req.environ.get("HTTP_ACCEPT_LANGUAGE"):
        return DEFAULT
    best = req.accept_languages.best_match(LANGUAGES)
    return best if best in LANGUAGES else DEFAULT


def mark(response: Response) -> Response:
    """``Content-Language`` on an answer with text; unless ``?lang=`` decided, ``Vary: Accept-Language, Authorization``
    (in ``service.http.headers.finish``, the ``after_request`` with what else every answer carries).

    Without ``?lang=`` the caller's token decides before ``Accept-Language`` does (the player's setting), so a cache
    must key such an answer by both, and a shared cache must keep none made for a token: a ``public`` answer to a
    request with ``Authorization`` becomes ``private``.  A problem is kept by no cache (``no-store``, unless its route
    said otherwise): it tells of this request at this moment (a conflict, a limit, a game not there yet), and a 404
    kept by a cache would hide the game made a second later.
    """
    ctx = g._get_current_object()  # the request's g, not its proxy: asked twice
    problem = response.mimetype == PROBLEM_JSON
    if not (ctx.get("texts_language") or problem):
        return response
    headers = response.headers
    headers["Content-Language"] = chosen_on(ctx)
    cache = headers.get("Cache-Control")
    if problem and cache is None:
        headers["Cache-Control"] = cache = "no-store"
    req = this_request()
    if _from_query(req) is None:
        vary = headers.get("Vary")
        if vary == "Authorization":  # a private view's, the usual answer: no need to parse it
            headers["Vary"] = "Authorization, Accept-Language"
        elif vary is None:
            headers["Vary"] = "Accept-Language, Authorization"
        else:
            response.vary.add("Accept-Language")
            response.vary.add("Authorization")
        if cache is not None and "public" in cache and req.environ.get("HTTP_AUTHORIZATION"):
            headers["Cache-Control"] = cache.replace("public", "private")
    return response


def init_app(app: Flask) -> None:
    """Flask-Babel's selector (the headers every answer with text carries are the app's to add: :func:`mark`)."""
    Babel(app, locale_selector=choose, default_locale=DEFAULT)
    app.extensions[SELECTOR] = choose
