"""The HTTP layer: the Flask app, its routes per resource, request schemas and the views it renders.

An entry point: it may use everything below it (application services,
storage, the game layer, replays) and is used by nothing but ``red7 serve``
and gunicorn (:mod:`service.wsgi`).  It never imports job code.
"""
