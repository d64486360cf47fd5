"""The HTTP layer: the Flask app, its routes per resource, request schemas and the views it renders.

An entry point: it calls the application services (never storage: what a
route needs of the stores, the application does and answers, its types
included) and may use the layers below them that do no I/O (the game layer,
replays); it is used by nothing but ``red7 serve`` and gunicorn
(:mod:`service.processes.wsgi`).  It never imports job code.  Its own machinery (rate
limits, :mod:`service.http.budgets`) talks to Redis on the client it is given.
"""
