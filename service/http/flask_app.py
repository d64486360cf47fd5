"""Our Flask: where it departs from Flask's own behaviour for every request (``OPTIONS`` answered 204, a write
settled against its caller's account, the cost of Flask's coroutine checks)."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType, MethodType
from typing import Any

from flask import Flask, Response

from service.http.auth import settle_write


class Red7Flask(Flask):
    """Flask, answering ``OPTIONS`` (which it answers by itself on every route) with 204 and ``Allow``.

    Flask's own answer is a 200 with an empty ``text/html`` body: a client is told of HTML that is not there.
    CORS preflights are ``OPTIONS`` too; flask-cors adds its headers to this same answer.
    """

    def make_default_options_response(self) -> Response:
        response = super().make_default_options_response()
        response.status_code = 204
        return response

    def dispatch_request(self) -> Any:
        """The route, then :func:`auth.settle_write`: a write whose caller's account went while it ran is answered
        ``invalid_token``, whatever the route answered or raised, once what it made is ended."""
        try:
            answer = super().dispatch_request()
        except Exception as failure:
            settle_write(failure)
            raise
        settle_write()
        return answer

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Flask's, with its answer kept per function: Flask asks ``inspect.iscoroutinefunction`` of every hook and
        view on every request (a dozen times a request here, some 5 % of a view's CPU), and a function's answer never
        changes.  Kept for plain functions and methods only (by the function a method binds: a view's method is bound
        anew each request); anything else is asked each time, as Flask does."""
        target = func.__func__ if isinstance(func, MethodType) else func
        if not isinstance(target, FunctionType):
            return super().ensure_sync(func)
        synchronous = _SYNCHRONOUS.get(target)
        if synchronous is None:
            if len(_SYNCHRONOUS) > 10_000:  # functions made per request (after_this_request's): forget, never grow
                _SYNCHRONOUS.clear()
            synchronous = _SYNCHRONOUS[target] = super().ensure_sync(func) is func
        return func if synchronous else super().ensure_sync(func)


#: Functions Flask may call as they are (not coroutine functions), by :meth:`Red7Flask.ensure_sync`.
_SYNCHRONOUS: dict[FunctionType, bool] = {}
