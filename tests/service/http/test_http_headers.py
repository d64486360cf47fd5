"""What the headers say: no Content-Type without content (204, 304), nosniff everywhere, what a browser may read
cross-origin, the icon."""

from __future__ import annotations

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai, settings_for


def test_answers_without_content_carry_no_content_type(api):
    token = api.player()["token"]
    issued = api.call("POST", "/v1/players/me/tokens", token, json={"label": "phone"}).get_json()
    revoked = api.call("DELETE", f"/v1/players/me/tokens/{issued['id']}", token)
    assert revoked.status_code == 204 and revoked.get_data() == b""
    assert "Content-Type" not in revoked.headers, revoked.headers
    game = api.game(token, [HUMAN, ai()])
    unchanged = api.call("GET", f"/v1/games/{game['id']}", token, headers={"If-None-Match": f'"{game["version"]}"'})
    assert unchanged.status_code == 304 and "Content-Type" not in unchanged.headers, unchanged.headers
    assert unchanged.headers["ETag"] == f'"{game["version"]}"'
    css = api.call("GET", "/v1/docs/static/swagger-ui.css")
    cached = api.call("GET", "/v1/docs/static/swagger-ui.css", headers={"If-None-Match": css.headers["ETag"]})
    assert cached.status_code == 304 and "Content-Type" not in cached.headers, cached.headers
    assert api.call("GET", f"/v1/games/{game['id']}", token).mimetype == "application/json"  # content keeps its type


def test_every_answer_says_nosniff_once_and_a_view_its_headers_once(api):
    """What every answer carries is added by one hook after the route: each header once, whatever the answer."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()])
    view = api.call("GET", f"/v1/games/{game['id']}", token)
    unchanged = api.call("GET", f"/v1/games/{game['id']}", token, headers={"If-None-Match": f'"{game["version"]}"'})
    refused = api.call("GET", "/v1/games/g_nope", token)
    preflight = api.call("OPTIONS", "/v1/games")
    for answer in (view, unchanged, refused, preflight):
        assert answer.headers.getlist("X-Content-Type-Options") == ["nosniff"], answer.headers
    assert refused.status_code == 404 and refused.mimetype == "application/problem+json"
    assert view.status_code == 200 and view.mimetype == "application/json"
    for name, value in (
        ("ETag", f'"{game["version"]}"'),
        ("Cache-Control", "private"),
        ("Vary", "Authorization, Accept-Language"),
        ("Content-Language", "en"),
        ("Content-Type", "application/json"),
    ):
        assert view.headers.getlist(name) == [value], (name, view.headers)
    assert refused.headers.getlist("Content-Language") == ["en"]
    assert refused.headers.getlist("Content-Type") == ["application/problem+json"]


def test_a_browser_on_another_origin_may_read_the_exports_file_name(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, cors_origins=("https://play.example",)), clients=redis_pair)
    api = Api(create_app(runtime), runtime)
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("random")], variant="basic")
    api.run_jobs()
    if api.view(game["id"], token)["status"] != "finished":
        api.act(game["id"], token, [{"type": "fold"}])
        api.run_jobs()
    exported = api.call("GET", f"/v1/games/{game['id']}/replay/export", headers={"Origin": "https://play.example"})
    assert exported.status_code == 200 and exported.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert exported.headers["Content-Disposition"] == f'attachment; filename="red7-{game["id"]}.json"'
    exposed = [name.strip().lower() for name in exported.headers["Access-Control-Expose-Headers"].split(",")]
    assert "content-disposition" in exposed and "etag" in exposed


def test_the_icon_browsers_ask_for_is_there(api):
    icon = api.call("GET", "/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/png"
    assert icon.get_data().startswith(b"\x89PNG") and "max-age" in icon.headers["Cache-Control"]


def test_options_on_any_api_path_answers_204_with_allow(api):
    """Flask answered 200 with an empty text/html body."""
    for path, methods in (
        ("/v1/games", {"POST"}),
        ("/v1/games/g_nope", {"GET", "DELETE"}),
        ("/v1/players/me", {"GET", "PATCH"}),
        ("/v1/games/g_nope/stream", {"GET"}),
        ("/healthz", {"GET"}),
    ):
        answer = api.call("OPTIONS", path)
        assert answer.status_code == 204 and answer.get_data() == b"", (path, answer.status_code)
        assert "Content-Type" not in answer.headers, answer.headers
        allowed = {m.strip() for m in answer.headers["Allow"].split(",")}
        assert methods | {"OPTIONS"} <= allowed, (path, allowed)
    assert api.call("OPTIONS", "/v1/nothing/here").get_json()["code"] == "not_found"


def test_a_cors_preflight_is_a_204_with_its_headers(redis_pair, key_prefix):
    runtime = build_runtime(settings_for(key_prefix, cors_origins=("https://play.example",)), clients=redis_pair)
    preflight = (
        create_app(runtime)
        .test_client()
        .options(
            "/v1/games/g_1/actions",
            headers={
                "Origin": "https://play.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "Authorization, Idempotency-Key, If-Match",
            },
        )
    )
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "idempotency-key" in preflight.headers["Access-Control-Allow-Headers"].lower()
