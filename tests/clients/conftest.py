"""An embedded server on 127.0.0.1 for generated clients to play against (what they share else: ``support.py``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from workers.runner import start_embedded


@pytest.fixture(scope="module")
def embedded() -> Iterator[tuple[str, Runtime]]:
    """``red7 serve --embedded`` in this process: the in-memory store, its workers in threads, werkzeug on a free port;
    its base URL, and its runtime (what an operator's command acts on: ``red7 apps add`` registers an app there)."""
    settings = Settings(
        rate_limit_token="",
        rate_limit_address="",
        rate_limit_signup="",
        rate_limit_import="",
        rate_limit_analysis="",
        expert_seconds=0.05,
        max_games_in_play=0,
        max_ai_seats_in_play=0,
        rated_min_account_age=0,  # as ``red7 serve --embedded`` has it: its players are minutes old
        rated_min_games=0,
        analysis_on_spare_cpu=False,
    )
    runtime = build_runtime(settings)
    stop = start_embedded(runtime)
    http = make_server("127.0.0.1", 0, create_app(runtime), threaded=True)
    thread = threading.Thread(target=http.serve_forever, name="client-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.server_port}", runtime
    finally:
        http.shutdown()
        thread.join(10)
        stop.set()


@pytest.fixture(scope="module")
def server(embedded: tuple[str, Runtime]) -> str:
    """The embedded server's base URL, for the clients to play against."""
    return embedded[0]
