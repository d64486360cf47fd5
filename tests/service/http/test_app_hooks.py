"""Flask's ``ensure_sync``, its answer kept per function: a plain function or method is called as it is, every time;
a coroutine function is never taken for a plain one (Flask's own answer, each time: here, without the ``async``
extra, its refusal)."""

from __future__ import annotations

import pytest

from service.http.flask_app import _SYNCHRONOUS
from service.http.flask_app import Red7Flask as _Flask


def test_plain_functions_and_methods_are_called_as_they_are_and_coroutines_are_still_flasks() -> None:
    app = _Flask("hooks")

    def hook() -> None:
        return None

    class View:
        def get(self) -> str:
            return "ok"

    async def waits() -> None:
        return None

    for _ in range(2):
        assert app.ensure_sync(hook) is hook
        bound = View().get  # bound anew each request: kept by its function, not by the bound method
        assert app.ensure_sync(bound) is bound
        with pytest.raises(RuntimeError):  # Flask without its async extra refuses a coroutine function, every time
            app.ensure_sync(waits)
    assert _SYNCHRONOUS[hook] is True and _SYNCHRONOUS[View.get] is True and _SYNCHRONOUS.get(waits) is not True
