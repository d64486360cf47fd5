"""Headless Chromium for the browser tests, and a WSGI app on a loopback port for it to load.

Debian's ``chromium`` and ``chromium-driver`` (installed by ``.ci/run``) and
selenium; nothing is downloaded at test time.  A test module calls
:func:`skip_without_chromium` first, so that a machine without them skips with
the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: The browser's own pages, which are no request of the page under test.
BROWSER_OWN = ("chrome:", "chrome-untrusted:", "devtools:", "about:")


NO_CHROMIUM = f"needs {CHROMIUM} and {CHROMEDRIVER} (apt-get install -y chromium chromium-driver)"


def skip_without_chromium() -> None:
    """Skip the calling module unless Chromium, its driver and selenium are here."""
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        pytest.skip(NO_CHROMIUM, allow_module_level=True)
    pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")


@contextmanager
def chromium(window: str = "1280,1000") -> Iterator[Any]:
    """A headless Chromium with a profile of its own, logging the console and the network; quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="red7-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--window-size={window}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(15)
    driver.set_script_timeout(15)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


#: A phone's viewport and a desktop's, in CSS pixels.
PHONE = (390, 844)
DESKTOP = (1280, 860)


@contextmanager
def phone_chromium() -> Iterator[Any]:
    """Chromium with a phone's viewport (:data:`PHONE`, touch-sized pixels): a headless window is at least 500 px
    wide, so the viewport is emulated instead."""
    with chromium("500,900") as driver:
        metrics = {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 3, "mobile": True}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        yield driver


@contextmanager
def desktop_chromium() -> Iterator[Any]:
    """Chromium with a desktop's viewport (:data:`DESKTOP`)."""
    with chromium(f"{DESKTOP[0]},{DESKTOP[1] + 100}") as driver:
        metrics = {"width": DESKTOP[0], "height": DESKTOP[1], "deviceScaleFactor": 1, "mobile": False}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        yield driver


def network_requests(driver: Any) -> list[str]:
    """Every URL the browser asked for since the last call (the DevTools performance log), but its own pages."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            params = message["params"]
            url, page = params["request"]["url"], params.get("documentURL", "")
            if not page.startswith(BROWSER_OWN):  # not the browser's own pages (the new-tab page at start)
                urls.append(url)
    return urls


@contextmanager
def served(app: Callable[..., Any], name: str = "browser-test-server") -> Iterator[str]:
    """``app`` on 127.0.0.1 at a free port, in threads of this process, until the block ends; its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)


#: The page's animations that end (a card's flight, a banner's entrance): the focus glow of a target runs forever.
_ENDING_ANIMATIONS = (
    "return document.getAnimations().filter(a => a.playState === 'running'"
    " && a.effect && a.effect.getComputedTiming().endTime !== Infinity).length"
)


def settled(driver: Any, timeout: float = 5) -> None:
    """Wait until every animation that ends has ended: a layout check (nothing wider than the screen) is about where
    things come to rest, not a card's frame on its way across the table."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(_ENDING_ANIMATIONS) == 0)
