"""Embeds over HTTP: the viewer's embed mode (its frame-ancestors, its chrome left out, its theme), every other page
and answer refusing to be framed, and ``getOEmbed`` answering as the oEmbed 1.0 spec says (https://oembed.com)."""

from __future__ import annotations

import html
import re

import pytest

from tests.harness.support import HUMAN, ai
from tests.replays.test_viewer import embedded, finished_game

VIEW = "/v1/games/{id}/replay/view"


def policy(response) -> dict[str, str]:
    parts = (p.strip().split(" ", 1) for p in response.headers["Content-Security-Policy"].split(";"))
    return {name: value for name, value in parts}


def test_the_embed_mode_may_be_framed_by_any_site_and_shows_no_chrome(api):
    game_id, document = finished_game(api)
    page = api.call("GET", VIEW.format(id=game_id), query_string={"embed": "true", "theme": "dark"})
    assert page.status_code == 200
    assert policy(page) == {
        "default-src": "'none'",
        "script-src": "'unsafe-inline'",
        "style-src": "'unsafe-inline'",
        "frame-ancestors": "*",
    }
    assert "X-Frame-Options" not in page.headers
    text = page.get_data(as_text=True)
    assert '<html lang="en" data-mode="embed" data-theme="dark">' in text
    assert embedded(text) == document, "the same replay"
    light = api.call("GET", VIEW.format(id=game_id), query_string={"embed": "1", "theme": "light"}).get_data(as_text=True)
    assert 'data-mode="embed" data-theme="light"' in light
    assert api.call("GET", VIEW.format(id=game_id), query_string={"theme": "sepia"}).status_code == 422


def test_every_other_page_and_answer_refuses_to_be_framed(api):
    game_id, _ = finished_game(api)
    page = api.call("GET", VIEW.format(id=game_id))
    assert policy(page)["frame-ancestors"] == "'none'" and page.headers["X-Frame-Options"] == "DENY"
    assert 'data-mode="page" data-theme="auto"' in page.get_data(as_text=True)
    play = api.call("GET", "/play")
    assert policy(play)["frame-ancestors"] == "'none'" and play.headers["X-Frame-Options"] == "DENY"
    for path in ("/v1/rules", f"/v1/games/{game_id}", "/v1/live-games", "/healthz", "/v1/games/g_nothere"):
        assert api.call("GET", path).headers["X-Frame-Options"] == "DENY", path
    docs = api.call("GET", "/docs")
    if docs.status_code == 200 and docs.mimetype == "text/html":
        assert "frame-ancestors 'none'" in docs.headers["Content-Security-Policy"]


def oembed(api, url: str, **query):
    return api.call("GET", "/v1/oembed", query_string={"url": url, **query})


def test_oembed_answers_a_rich_iframe_of_the_embed_mode(api):
    game_id, _ = finished_game(api)
    answer = oembed(api, f"http://localhost{VIEW.format(id=game_id)}?theme=dark#step=4")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    body = answer.get_json()
    assert body["type"] == "rich" and body["version"] == "1.0"
    assert body["provider_name"] == "Red7" and body["provider_url"] == "http://localhost/"
    assert isinstance(body["width"], int) and isinstance(body["height"], int) and body["cache_age"] > 0
    assert body["title"] == f"Red7 replay {game_id}"
    frame = re.fullmatch(r'<iframe src="([^"]+)" width="(\d+)" height="(\d+)" title="[^"]+"[^>]*></iframe>', body["html"])
    assert frame, body["html"]
    assert html.unescape(frame[1]) == f"http://localhost{VIEW.format(id=game_id)}?embed=1&theme=dark#step=4"
    assert (int(frame[2]), int(frame[3])) == (body["width"], body["height"]) == (640, 480)
    framed = api.call("GET", html.unescape(frame[1]).removeprefix("http://localhost").split("#")[0])
    assert policy(framed)["frame-ancestors"] == "*", "the iframe's page may be framed"


@pytest.mark.parametrize(("maxwidth", "maxheight"), [(300, None), (None, 200), (1000, 1000), (320, 240)])
def test_oembed_keeps_within_maxwidth_and_maxheight(api, maxwidth, maxheight):
    game_id, _ = finished_game(api)
    bounds = {k: v for k, v in (("maxwidth", maxwidth), ("maxheight", maxheight)) if v is not None}
    body = oembed(api, f"http://localhost{VIEW.format(id=game_id)}", **bounds).get_json()
    assert body["width"] <= (maxwidth or 10_000) and body["height"] <= (maxheight or 10_000)
    assert f'width="{body["width"]}" height="{body["height"]}"' in body["html"]


def test_an_imported_replays_viewer_is_embedded_too(api):
    _, document = finished_game(api)
    imported = api.call("POST", "/v1/replays", api.player("Bo")["token"], json=document).get_json()
    body = oembed(api, f"http://localhost{imported['view_url']}").get_json()
    assert f"{imported['view_url']}?embed=1" in body["html"]


@pytest.mark.parametrize(
    "url",
    [
        "http://elsewhere.example/v1/games/{id}/replay/view",  # another site's
        "http://localhost/v1/games/{id}/replay",  # no viewer
        "http://localhost/v1/games/g_0000000000000000/replay/view",  # no such game
        "http://localhost/v1/replays/r_000000000000000000000000/view",  # no such import
        "ftp://localhost/v1/games/{id}/replay/view",
        "not a url",
    ],
)
def test_oembed_answers_404_for_a_url_that_is_no_viewer_here(api, url):
    ana = api.player("Ana")
    game = api.game(ana["token"], [HUMAN, ai()])
    answer = oembed(api, url.format(id=game["id"]))
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json"


def test_oembed_answers_501_for_a_format_other_than_json(api):
    game_id, _ = finished_game(api)
    url = f"http://localhost{VIEW.format(id=game_id)}"
    answer = api.client.get("/v1/oembed", query_string={"url": url, "format": "xml"})  # api.call takes no 5xx
    assert answer.status_code == 501 and answer.mimetype == "application/problem+json"
    assert answer.status_code == 501 and answer.get_json()["code"] == "oembed_format_not_implemented"
    assert oembed(api, f"http://localhost{VIEW.format(id=game_id)}", format="yaml").status_code == 422
    assert api.call("GET", "/v1/oembed").status_code == 422, "url is required"


def test_the_viewer_page_names_its_oembed_answer_for_discovery(api):
    """A blog given the viewer's link finds the embed code from the page itself (oEmbed discovery, section 4)."""
    game_id, _ = finished_game(api)
    page = api.call("GET", VIEW.format(id=game_id)).get_data(as_text=True)
    found = re.search(r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)">', page)
    assert found, "a discovery link in the page"
    assert "http://" not in page, "it names no other site: the page's own address is escaped in the path's query"
    answer = api.call("GET", html.unescape(found[1]))
    assert answer.status_code == 200 and answer.get_json()["type"] == "rich"
    assert f"{VIEW.format(id=game_id)}?embed=1" in answer.get_json()["html"]
    embed = api.call("GET", VIEW.format(id=game_id), query_string={"embed": "1"}).get_data(as_text=True)
    assert "json+oembed" not in embed, "the embed itself is what the answer frames"
