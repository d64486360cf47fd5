"""The OpenAPI document and the docs page: a valid spec that covers every route, docs that work offline."""

from __future__ import annotations

import re
import uuid
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

import fakeredis
import pytest
from openapi_spec_validator import validate

from service.app import create_app
from service.runtime import build_runtime

try:
    from tests.service.conftest import settings_for
except ImportError:  # its earlier name
    from tests.service.conftest import test_settings as settings_for

HTTP_METHODS = {"GET", "PUT", "POST", "DELETE", "PATCH", "TRACE"}
#: Routes that are not API operations: Flask's static files, the spec itself, the docs page and its assets.
NOT_OPERATIONS = {"static", "swagger_static", "api-docs.openapi_json", "api-docs.openapi_swagger_ui"}
EXTERNAL = re.compile(r"""(?:https?:)?//[^\s"'<>)]+""", re.IGNORECASE)


@pytest.fixture(scope="module")
def app():
    """An app on its own fakeredis: the spec and the docs do not depend on the store."""
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    return create_app(build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:"), clients=clients))


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def spec(client) -> dict[str, Any]:
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    return response.get_json()


def openapi_path(rule: str) -> str:
    """``/v1/games/<game_id>`` (or ``<string:game_id>``) as OpenAPI writes it: ``/v1/games/{game_id}``."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


def test_openapi_path_conversion():
    assert openapi_path("/v1/games/<game_id>/actions") == "/v1/games/{game_id}/actions"
    assert openapi_path("/v1/x/<int:n>/<path:rest>") == "/v1/x/{n}/{rest}"


def test_the_spec_is_valid_openapi_3(spec):
    assert spec["openapi"].startswith("3.")
    validate(spec)  # raises OpenAPIValidationError with the path of the first problem


def test_every_route_and_method_is_in_the_spec(app, spec):
    missing = []
    routes = 0
    for rule in app.url_map.iter_rules():
        if rule.endpoint in NOT_OPERATIONS:
            continue
        routes += 1
        path = openapi_path(rule.rule)
        item = spec["paths"].get(path)
        if item is None:
            missing.append(f"{path} (endpoint {rule.endpoint})")
            continue
        for method in sorted((rule.methods or set()) & HTTP_METHODS):
            if method.lower() not in item:
                missing.append(f"{method} {path} (endpoint {rule.endpoint})")
    assert routes >= 10
    assert not missing, "routes missing from /v1/openapi.json:\n" + "\n".join(missing)


def test_every_operation_in_the_spec_is_served(app, spec):
    """The other way round: no operation is documented that the app does not route."""
    adapter = app.url_map.bind("localhost")
    unrouted = []
    for path, item in spec["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "g_x", path)
        for method in item:
            if method.upper() not in HTTP_METHODS:
                continue
            try:
                endpoint, _ = adapter.match(concrete, method=method.upper())
            except Exception as exc:
                unrouted.append(f"{method.upper()} {path}: {exc}")
                continue
            assert endpoint not in NOT_OPERATIONS, (path, endpoint)
    assert not unrouted, "\n".join(unrouted)


def test_every_operation_declares_its_success_response(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method.upper() in HTTP_METHODS:
                assert any(code.startswith("2") for code in operation["responses"]), f"{method.upper()} {path}"


# --- the docs page --------------------------------------------------------------------------------------------


class _Assets(HTMLParser):
    """The URLs a page loads (scripts, stylesheets, images, icons) and its inline scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("src", "href"):
            if values.get(name):
                self.urls.append(values[name])  # type: ignore[arg-type]
        self._in_script = tag == "script" and not values.get("src")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline_scripts.append(data)


@pytest.fixture(scope="module")
def docs(client) -> tuple[str, _Assets]:
    response = client.get("/v1/docs")
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    parser = _Assets()
    parser.feed(html)
    return html, parser


def test_the_docs_page_loads_only_local_assets(docs):
    html, assets = docs
    assert assets.urls, "the docs page loads no script or stylesheet"
    for url in assets.urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc, f"the docs page loads {url} from elsewhere"
    assert EXTERNAL.findall(html) == [], "the docs page names external URLs"
    assert any(u.endswith(".js") for u in assets.urls) and any(u.endswith(".css") for u in assets.urls)


def test_the_docs_config_points_at_this_spec(docs):
    _, assets = docs
    config = "\n".join(assets.inline_scripts)
    assert re.search(r"""url\s*:\s*["']/v1/openapi\.json["']""", config), config
    assert not EXTERNAL.findall(config), config
    if "StandaloneLayout" in config:  # that layout shows a badge fetched from validator.swagger.io unless turned off
        assert re.search(r"validatorUrl\s*:\s*(null|none|false)", config, re.IGNORECASE), config


def test_the_docs_assets_are_served(client, docs):
    _, assets = docs
    for url in assets.urls:
        path = urljoin("/v1/docs", url)
        response = client.get(path)
        assert response.status_code == 200, f"{path} -> {response.status_code}"
        body = response.get_data()
        assert len(body) > 1000, f"{path} is nearly empty"
        if path.endswith(".js"):
            assert response.mimetype in ("application/javascript", "text/javascript"), (path, response.mimetype)
        if path.endswith(".css"):
            assert response.mimetype == "text/css", (path, response.mimetype)
            css = body.decode("utf-8", "replace")
            for target in re.findall(r"url\(\s*['\"]?([^'\")]+)", css):
                assert target.startswith("data:") or not urlsplit(target).netloc, f"{path} loads {target}"


def test_no_served_swagger_initializer_points_elsewhere(client):
    """swagger-ui's bundled ``index.html`` + ``swagger-initializer.js`` (served beside the assets) load the
    petstore demo from petstore.swagger.io unless replaced: whatever initializer is served must name this spec."""
    for name in ("swagger-initializer.js", "index.html"):
        response = client.get(f"/v1/docs/static/{name}")
        if response.status_code == 404:
            continue
        text = response.get_data(as_text=True)
        external = [u for u in EXTERNAL.findall(text) if "w3.org" not in u]
        assert not external, f"/v1/docs/static/{name} is served and points at {external}"


def test_unknown_docs_assets_are_404(client):
    response = client.get("/v1/docs/static/nope.js")
    assert response.status_code == 404
