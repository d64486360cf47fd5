"""The WSGI entry point for gunicorn: ``gunicorn service.processes.wsgi:app`` (settings from the environment)."""

from service.http.app import create_app

app = create_app()
