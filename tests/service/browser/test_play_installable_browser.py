"""/play installed (issue 38) in a real headless Chromium: the manifest as the browser reads it (no error, its icons
reachable at the sizes it names, nothing keeping the app from being installed), and the service worker's shell
answering with the server stopped and the browser offline, to a "reconnecting" state, which loads the live page again
once the server is back.

Screenshots go to ``tmp_path`` and to ``$RED7_SCREENSHOTS`` when it names a folder.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import desktop_chromium, phone_chromium, skip_without_chromium
from tests.harness.support import settings_for

skip_without_chromium()
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402 (after the skip)

from tests.service.browser.test_play_browser import console_problems, fresh_page, serving  # noqa: E402

SHELL_KEPT = """
const done = arguments[arguments.length - 1];
navigator.serviceWorker.ready
  .then(() => caches.open("red7-shell-v1"))
  .then(async (cache) => done({ page: !!(await cache.match("/play")), files: (await cache.keys()).length,
                                controlled: !!navigator.serviceWorker.controller }))
  .catch((error) => done({ error: String(error) }));
"""
ICONS = """
const done = arguments[arguments.length - 1];
Promise.all(arguments[0].map((icon) => new Promise((resolve) => {
  const image = new Image();
  image.onload = () => resolve({ src: icon.src, sizes: icon.sizes, width: image.naturalWidth, height: image.naturalHeight });
  image.onerror = () => resolve({ src: icon.src, sizes: icon.sizes, error: true });
  image.src = icon.src;
}))).then(done);
"""


def installability_errors(driver: Any) -> list[dict[str, Any]]:
    errors: list[dict[str, Any]] = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"]
    return errors


def keep(driver: Any, tmp_path: Path, name: str) -> None:
    for folder in (tmp_path, os.environ.get("RED7_SCREENSHOTS")):
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def test_the_manifest_validates_and_its_icons_are_there_at_their_sizes(tmp_path: Path) -> None:
    with serving() as server, desktop_chromium() as driver:
        fresh_page(driver, f"{server.base}/play")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
        read = driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert read["url"] == f"{server.base}/play/manifest.webmanifest"
        assert read["errors"] == [], read["errors"]
        manifest = json.loads(read["data"])
        wanted = {"name", "short_name", "start_url", "scope", "display", "icons", "theme_color", "background_color"}
        assert wanted <= set(manifest)
        driver.set_script_timeout(20)
        icons = driver.execute_async_script(ICONS, manifest["icons"])
        for icon in icons:
            assert not icon.get("error"), icon
            if icon["sizes"] != "any":
                assert icon["sizes"] == f"{icon['width']}x{icon['height']}", icon
        assert {icon["sizes"] for icon in icons} >= {"192x192", "512x512", "any"}
        kept = driver.execute_async_script(SHELL_KEPT)
        assert kept.get("page"), kept
        # Nothing keeps it from being installed (a manifest, icons, a worker with a fetch handler, a secure origin).
        WebDriverWait(driver, 10).until(lambda d: installability_errors(d) == [])
        assert console_problems(driver) == []


def test_the_shell_opens_offline_with_the_server_stopped_and_reconnects(tmp_path: Path) -> None:
    with phone_chromium() as driver:
        with serving() as server:
            base = server.base
            fresh_page(driver, f"{base}/play")
            WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
            driver.set_script_timeout(20)
            WebDriverWait(driver, 15).until(lambda d: d.execute_async_script(SHELL_KEPT).get("page"))
            assert driver.execute_script("return document.getElementById('offline').hidden")  # online: nothing said
        # The server is stopped; the browser goes offline too.
        driver.execute_cdp_cmd("Network.enable", {})
        offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", offline)
        driver.get(f"{base}/play")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(OFFLINE_SHELL))
        state = driver.execute_script(STATE)
        keep(driver, tmp_path, "play-offline-en-phone")
        assert state["banner"] and state["said"].startswith("Reconnecting…") and "network is back" in state["said"], state
        assert state["logo"] not in ("inline", ""), "its style sheets came from the kept shell"
        assert state["switch_disabled"], "the language switch waits for the network"
        assert state["screen"] == "signup", "its modules came from the kept shell and ran"

        # The network and a server on the same address are back: the page loads the live page by itself.
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**offline, "offline": False})
        port = int(base.rsplit(":", 1)[1])
        app = create_app(build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:")))
        again = make_server("127.0.0.1", port, app, threaded=True)
        thread = threading.Thread(target=again.serve_forever, name="play-back-server", daemon=True)
        thread.start()
        try:
            WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.documentElement.dataset.offline") is None)
            WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
            assert driver.execute_script("return document.getElementById('offline').hidden")
        finally:
            again.shutdown()
            thread.join(5)


OFFLINE_SHELL = "return document.documentElement.dataset.offline === 'true' && document.body.dataset.screen !== 'loading'"
STATE = """
const banner = document.getElementById("offline");
return { banner: !banner.hidden, said: banner.innerText, logo: getComputedStyle(document.querySelector(".logo")).display,
         switch_disabled: document.getElementById("lang").disabled, screen: document.body.dataset.screen };
"""
