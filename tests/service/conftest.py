"""An app per test, on fakeredis and on the real Redis, and a small client that speaks the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from service.config import Settings
from service.http.app import create_app
from service.runtime import Runtime, build_runtime
from workers.runner import drain


def settings_for(key_prefix: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "key_prefix": key_prefix,
        "queue_name": key_prefix.replace(":", "_").strip("_") + "_q",
        "rate_limit_token": "",
        "rate_limit_address": "",
        "rate_limit_signup": "",
        "rate_limit_import": "",
        "allow_custom_decks": True,
        "stream_heartbeat": 0.2,
        "stream_max_seconds": 1.5,
        "long_poll_max": 5.0,
        "expert_seconds": 0.05,
        "webhook_private_hosts": True,  # the tests' webhook receivers listen on 127.0.0.1
        "max_games_in_play": 0,  # no quotas but in the tests of quotas (test_quotas.py)
        "max_ai_seats_in_play": 0,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def settings(key_prefix) -> Settings:
    return settings_for(key_prefix)


@pytest.fixture
def runtime(redis_pair, settings) -> Runtime:
    return build_runtime(settings, clients=redis_pair)


@pytest.fixture
def app(runtime):
    return create_app(runtime)


class Api:
    """The calls a client makes, with the checks every response must pass."""

    def __init__(self, app, runtime: Runtime) -> None:
        self.client = app.test_client()
        self.runtime = runtime
        self.responses: list[tuple[str | None, Any]] = []  # (player token, response) for leak scans

    def call(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}) or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = self.client.open(path, method=method, headers=headers, **kwargs)
        assert response.status_code < 500, f"{method} {path} -> {response.status_code}: {response.get_data(as_text=True)}"
        if response.status_code >= 400:
            assert response.mimetype == "application/problem+json", response.get_data(as_text=True)
            body = response.get_json()
            assert body["status"] == response.status_code and body["code"] and body["title"] and body["detail"]
        self.responses.append((token, response))
        return response

    def player(self, name: str = "Ana") -> dict[str, Any]:
        response = self.call("POST", "/v1/players", json={"name": name})
        assert response.status_code == 201
        return response.get_json()

    def game(self, token: str, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
        response = self.call("POST", "/v1/games", token, json={"seats": seats, **options})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        response = self.call("GET", f"/v1/games/{game_id}", token)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def act(self, game_id: str, token: str, steps: list[dict[str, Any]], **kwargs: Any) -> Any:
        return self.call("POST", f"/v1/games/{game_id}/actions", token, json={"steps": steps}, **kwargs)

    def run_jobs(self) -> None:
        drain(self.runtime)


@pytest.fixture
def api(app, runtime) -> Iterator[Api]:
    yield Api(app, runtime)


HUMAN = {"kind": "human"}


def ai(level: str = "greedy") -> dict[str, str]:
    return {"kind": "ai", "level": level}
