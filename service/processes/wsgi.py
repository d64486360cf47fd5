"""The WSGI entry point for gunicorn: ``gunicorn service.processes.wsgi:app`` (settings from the environment).

The service's log lines go to standard error as ``RED7_LOG_FORMAT`` says (gunicorn configures only its own loggers),
as ``red7``'s commands write theirs (:mod:`service.common.logformat`); spans go where ``RED7_OTLP_ENDPOINT`` says
(:mod:`service.processes.tracing`)."""

import os

from service.common import logformat
from service.http.app import create_app
from service.processes import tracing

logformat.configure(os.environ.get("RED7_LOG_FORMAT", "text"))
tracing.configure(os.environ.get("RED7_OTLP_ENDPOINT", ""), "red7-api")  # (each gunicorn worker: after the fork)
app = create_app()
