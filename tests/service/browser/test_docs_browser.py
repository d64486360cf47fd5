"""The API docs page (swagger-ui at /v1/docs) in a real headless Chromium: everything it asks for is there (no 404).

Needs what tests/replays/test_viewer_browser.py needs (Debian's chromium and chromium-driver, selenium); without
them it is skipped with that module's reason.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from werkzeug.serving import make_server

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import settings_for
from tests.replays.test_viewer_browser import browser  # noqa: F401 (the fixture; skips this module without chromium)


def test_the_docs_page_gets_every_file_it_asks_for_its_icon_included(browser: Any) -> None:  # noqa: F811 (the fixture)
    app = create_app(build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:")))
    answered: list[tuple[str, int]] = []

    def logged(environ: dict[str, Any], start_response: Callable) -> Any:
        def start(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            answered.append((environ.get("PATH_INFO", ""), int(status.split()[0])))
            return start_response(status, headers, *rest)

        return app(environ, start)

    server = make_server("127.0.0.1", 0, logged, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="docs-test-server", daemon=True)
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/v1/docs")
        deadline = time.monotonic() + 10  # swagger-ui fetches the OpenAPI document, the browser its icon
        while time.monotonic() < deadline and not {"/v1/openapi.json", "/favicon.ico"} <= {path for path, _ in answered}:
            time.sleep(0.1)
    finally:
        server.shutdown()
        thread.join(5)
    paths = [path for path, _ in answered]
    assert "/v1/openapi.json" in paths and "/favicon.ico" in paths, answered
    assert [(path, status) for path, status in answered if status >= 400] == []
