"""What the tests share besides fixtures: a client that speaks the API, settings for a test's app, seats, and
the real Redis the tests may use.  Fixtures live in the conftest files; everything a test imports lives here.
"""

from __future__ import annotations

import os
from typing import Any

import redis

from service.common.config import Settings
from service.runtime import Runtime
from workers.runner import drain

REAL_REDIS_URL = os.environ.get("RED7_TEST_REDIS_URL")
NO_REAL_REDIS_URL = "RED7_TEST_REDIS_URL is not set (CI sets it to the machine's Redis)"


def _real_redis_reason() -> str | None:
    if not REAL_REDIS_URL:
        return NO_REAL_REDIS_URL
    try:
        redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        return f"the Redis at {REAL_REDIS_URL} is unreachable: {exc}"
    return None


REAL_REDIS_SKIP = _real_redis_reason()


def clean_real_redis(text: redis.Redis, key_prefix: str) -> None:
    """Delete this test's keys: its own prefix, and RQ's keys for its queue, jobs and workers."""
    namespace = key_prefix.replace(":", "_").strip("_")  # how RQ job ids and queue names carry the prefix
    for pattern in (f"{key_prefix}*", f"rq:*{namespace}*"):
        for key in text.scan_iter(match=pattern, count=500):
            text.delete(key)
    for member in text.smembers("rq:queues"):
        if namespace in member:
            text.srem("rq:queues", member)
    for worker in {*text.smembers("rq:workers"), *text.scan_iter(match="rq:worker:*", count=500)}:
        if text.type(worker) == "hash" and namespace in (text.hget(worker, "queues") or ""):
            text.delete(worker)
            text.srem("rq:workers", worker)
    if text.type("rq:rl-keys") == "set":  # RQ's set of rate-limited lines (a webhook receiver's), kept unprefixed
        for line in text.smembers("rq:rl-keys"):
            if namespace in line:
                text.srem("rq:rl-keys", line)


def settings_for(key_prefix: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "key_prefix": key_prefix,
        "queue_name": key_prefix.replace(":", "_").strip("_") + "_q",
        "rate_limit_token": "",
        "rate_limit_address": "",
        "rate_limit_signup": "",
        "rate_limit_import": "",
        "rate_limit_challenge": "",
        "rate_limit_analysis": "",
        "rate_limit_report": "",
        "rate_limit_export_token": "",
        "rate_limit_export_address": "",
        "analysis_on_spare_cpu": False,  # analyses end whatever else the CI host runs (test_analysts tests the priority)
        "allow_custom_decks": True,
        "stream_heartbeat": 0.2,
        "stream_max_seconds": 1.5,
        "long_poll_max": 5.0,
        "expert_seconds": 0.05,
        "webhook_private_hosts": True,  # the tests' webhook receivers listen on 127.0.0.1
        "max_games_in_play": 0,  # no quotas but in the tests of quotas (test_quotas.py)
        "max_ai_seats_in_play": 0,
        "rated_min_account_age": 0,  # the tests' players sign up a moment before they play rated games, but in the
        "rated_min_games": 0,  # tests of rated play (test_rated_play.py, test_farming.py)
    }
    values.update(overrides)
    return Settings(**values)


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


def play_out(api: Api, game_id: str, *tokens: str, moves: int = 400) -> dict[str, Any]:
    """Play a game to its end: each human (``tokens``) takes a step that can win when it has one (never a fold
    then), the jobs play the AIs.  The last view of the first token."""
    for _ in range(moves):
        api.run_jobs()
        views = [api.view(game_id, token) for token in tokens]
        if views[0]["status"] == "finished":
            return views[0]
        for token, view in zip(tokens, views, strict=True):
            if view["legal_steps"]:
                winning = [s for s in view["legal_steps"] if s["can_win"] and s["type"] != "fold"] or view["legal_steps"]
                choice = {k: winning[0][k] for k in ("type", "card", "seat", "to") if k in winning[0]}
                acted = api.act(game_id, token, [choice], headers={"If-Match": f'"{view["version"]}"'})
                assert acted.status_code == 200, acted.get_json()
                break
    raise AssertionError(f"game {game_id} did not finish within {moves} moves")


HUMAN = {"kind": "human"}


def ai(level: str = "greedy") -> dict[str, str]:
    return {"kind": "ai", "level": level}
