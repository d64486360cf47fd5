"""Embeds in a real headless Chromium (issue 40): a page on another origin (a second loopback port) frames the replay
viewer's embed mode, which loads and shows the game at the step its address names, without its chrome and within its
frame, in light and dark; the same page's frame of /play and of the viewer's ordinary page is refused, as their CSP
headers say (checked here too).
"""

from __future__ import annotations

import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import chromium, skip_without_chromium
from tests.harness.browser import served as served_on_loopback
from tests.harness.support import Api, ai, settings_for

skip_without_chromium()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, str, Api]]:
    """The service on one loopback port with a finished game of AIs: its base URL, the game id, a client."""
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"))
    app = create_app(runtime)
    client = Api(app, runtime)
    token = client.player("Ana")["token"]
    game = client.game(token, [ai("random"), ai("greedy")], seed=5, variant="basic")
    client.run_jobs()
    with served_on_loopback(app, "embed-server") as base:
        yield base, game["id"], client


def host_page(frames: dict[str, str]) -> Any:
    """A WSGI app answering one page that frames ``frames`` (id -> URL): the blog or forum of another origin."""
    body = "".join(f'<iframe id="{name}" src="{url}" width="640" height="480"></iframe>' for name, url in frames.items())
    page = f"<!doctype html><html><head><title>A blog</title></head><body>{body}</body></html>".encode()

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(page)))])
        return [page]

    return app


def headers_of(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:  # our loopback server
        return {k.lower(): v for k, v in response.headers.items()}


IN_FRAME = """
const root = document.documentElement;
const shown = (s) => { const n = document.querySelector(s); return !!n && n.getClientRects().length > 0; };
return {
  href: location.href,
  mode: root.dataset.mode || null,
  theme: root.dataset.theme || null,
  background: getComputedStyle(document.body).backgroundColor,
  slider: document.querySelector("#slider") ? document.querySelector("#slider").value : null,
  seats: document.querySelectorAll("#seats .seat").length,
  explanation: (document.querySelector("#explanation") || {}).textContent || "",
  header: shown("header.top"),
  steps: shown("aside.steps"),
  wide: root.scrollWidth > window.innerWidth,
};
"""


def in_frame(driver: Any, frame: str, wait: float = 10.0) -> dict[str, Any]:
    """What the page in iframe ``frame`` shows, once it has loaded (or is not going to)."""
    deadline = time.monotonic() + wait
    while True:
        driver.switch_to.default_content()
        driver.switch_to.frame(driver.find_element("id", frame))
        seen: dict[str, Any] = driver.execute_script(IN_FRAME)
        if seen["href"].startswith("chrome-error:") or seen["seats"] or time.monotonic() > deadline:
            driver.switch_to.default_content()
            return seen
        time.sleep(0.2)


def test_the_embed_mode_is_shown_in_an_iframe_of_another_origin_and_the_rest_refuses_it(server):
    base, game_id, _ = server
    viewer = f"{base}/v1/games/{game_id}/replay/view"
    embed_light, embed_dark = f"{viewer}?embed=1&theme=light#step=3", f"{viewer}?embed=1&theme=dark#step=3"
    frames = {"light": embed_light, "dark": embed_dark, "page": viewer, "play": f"{base}/play"}
    with served_on_loopback(host_page(frames), "embed-host") as host, chromium() as driver:
        assert host.rsplit(":", 1)[1] != base.rsplit(":", 1)[1], "another origin: another port"
        driver.get(f"{host}/")
        light, dark = in_frame(driver, "light"), in_frame(driver, "dark")
        for seen in (light, dark):
            assert seen["href"].startswith(viewer), seen
            assert seen["mode"] == "embed" and seen["seats"] == 2 and seen["explanation"], seen
            assert seen["slider"] == "3", "the step in the address"
            assert not seen["header"] and not seen["steps"], "no chrome in an embed"
            assert not seen["wide"], "it fits its frame"
        assert (light["theme"], dark["theme"]) == ("light", "dark")
        assert light["background"] != dark["background"], "light and dark"
        for refused in ("page", "play"):
            seen = in_frame(driver, refused, wait=3)
            assert seen["href"].startswith("chrome-error:") and not seen["seats"], (refused, seen)
    assert "frame-ancestors *" in headers_of(embed_light.split("#")[0])["content-security-policy"]
    assert "x-frame-options" not in headers_of(embed_light.split("#")[0])
    for url in (viewer, f"{base}/play"):
        said = headers_of(url)
        assert "frame-ancestors 'none'" in said["content-security-policy"] and said["x-frame-options"] == "DENY", url


def test_the_oembed_answer_for_a_viewers_link_frames_the_embed_mode(server):
    """The iframe getOEmbed gives, pasted into another origin's page as a blog would, shows the game."""
    base, game_id, client = server
    link = f"{base}/v1/games/{game_id}/replay/view#step=2"
    host_name = base.removeprefix("http://")
    answer = client.client.get("/v1/oembed", query_string={"url": link}, headers={"Host": host_name})
    assert answer.status_code == 200, answer.get_json()
    code = answer.get_json()["html"].replace("<iframe ", '<iframe id="pasted" ', 1)
    page = f"<!doctype html><html><body>{code}</body></html>".encode()

    def blog(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
        return [page]

    with served_on_loopback(blog, "embed-blog") as host, chromium() as driver:
        driver.get(f"{host}/")
        seen = in_frame(driver, "pasted")
        assert seen["mode"] == "embed" and seen["seats"] == 2 and seen["slider"] == "2", seen


def test_plays_game_page_shares_the_link_and_the_embed_code(tmp_path):
    """/play's game page: "Share" opens the link to watch the game and the code to embed it (getOEmbed's iframe)."""
    from selenium.webdriver.common.by import By

    from tests.service.browser.test_play_browser import (
        fresh_page,
        new_game_against_two_greedy_ais,
        serving,
        sign_up,
    )

    with serving() as state, chromium() as driver:
        fresh_page(driver, f"{state.base}/play")
        sign_up(driver, "Ana")
        game_id, _ = new_game_against_two_greedy_ais(driver)
        share = driver.find_element(By.ID, "share")
        assert share.find_element(By.TAG_NAME, "summary").text == "Share"
        share.find_element(By.TAG_NAME, "summary").click()
        link = driver.find_element(By.ID, "watch-link").get_attribute("value")
        assert link == f"{state.base}/v1/games/{game_id}/replay/view"
        deadline = time.monotonic() + 10
        while not (code := driver.find_element(By.ID, "embed-code").get_attribute("value")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert code.startswith(f'<iframe src="{link}?embed=1"') and code.endswith("</iframe>"), code
        assert driver.find_element(By.ID, "copy-embed-code").is_displayed()
