"""RED7_WAIT_REPLICAS: an action is acknowledged only once that many replicas hold it.

A primary and a replica of the test's own.  With the replica in sync an
action is answered 200 and is on the replica; with the replica gone it is
stored on the primary but answered 503 ``store_unavailable`` (it could be
lost with the primary), and a retry with the same Idempotency-Key gets the
first answer once a replica confirms it.
"""

from __future__ import annotations

import pytest

from service.domain.game import decode
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.deployment import NO_REDIS_SERVER, REDIS_SERVER, RedisServer, wait_until
from tests.harness.support import HUMAN, Api, settings_for

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason=NO_REDIS_SERVER)


def in_sync(primary: RedisServer) -> int:
    """Replicas the primary streams to (connected and past their first full sync)."""
    info = primary.client().info("replication")
    return sum(1 for n in range(info["connected_slaves"]) if info.get(f"slave{n}", {}).get("state") == "online")


@pytest.fixture
def primary_and_replica(tmp_path, key_prefix):
    (tmp_path / "primary").mkdir()
    (tmp_path / "replica").mkdir()
    primary = RedisServer(tmp_path / "primary", None, "always", "--repl-diskless-sync-delay", "0")
    primary.start()
    replica = RedisServer(tmp_path / "replica", None, "always", "--replicaof", "127.0.0.1", str(primary.port))
    replica.start()
    try:
        wait_until(lambda: in_sync(primary) == 1, 20, "the replica is in sync")
        yield primary, replica
    finally:  # their data is thrown away: no graceful shutdown (a primary waits for its replicas)
        replica.kill()
        primary.kill()


def test_actions_wait_for_the_replica_and_say_so_when_it_is_gone(primary_and_replica, key_prefix):
    primary, replica = primary_and_replica
    settings = settings_for(key_prefix, redis_url=primary.url, wait_replicas=1, wait_replicas_timeout_ms=1500)
    runtime = build_runtime(settings)
    api = Api(create_app(runtime), runtime)
    ana, bo = api.player("Ana"), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], seed=3)
    api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    tokens = {0: ana["token"], 1: bo["token"]}
    ids = {ana["token"]: ana["id"], bo["token"]: bo["id"]}

    def who(token: str) -> str:
        return ids[token]

    def act(token: str, steps: list[dict], headers: dict[str, str]):
        """A POST whose 503 is expected here (Api.call would fail it as a server error)."""
        headers = {"Authorization": f"Bearer {token}", **headers}
        return api.client.post(f"/v1/games/{game['id']}/actions", json={"steps": steps}, headers=headers)

    def move(headers: dict[str, str]):
        view = api.view(game["id"], ana["token"])
        token = tokens[view["turn"]["seat"]]
        steps = api.view(game["id"], token)["legal_steps"]
        step = next(s for s in steps if s["type"] == "play") if any(s["type"] == "play" for s in steps) else steps[0]
        chosen = [{k: step[k] for k in ("type", "card", "draw") if k in step}]
        return act(token, chosen, headers), token, chosen

    done, _, _ = move({})
    assert done.status_code == 200
    version = done.get_json()["version"]
    events = f"{key_prefix}game:{{{game['id']}}}:events"
    assert len(replica.client().xrange(events)) == version  # on the replica before the answer

    replica.kill()
    wait_until(lambda: primary.client().info("replication")["connected_slaves"] == 0, 20, "the primary sees it gone")
    before = runtime.store.version(game["id"])
    plain, token, _ = move({})  # decided on this process's cached game, no Idempotency-Key
    assert plain.status_code == 503, plain.get_json()  # stored, unconfirmed: never decided a second time
    appended = [e for e in runtime.store.read(game["id"], before) if decode(e.payload)["by"] == f"player:{who(token)}"]
    assert appended and runtime.store.version(game["id"]) == appended[-1].number
    unconfirmed, token, steps = move({"Idempotency-Key": "k-1"})
    problem = unconfirmed.get_json()
    assert unconfirmed.status_code == 503 and problem["code"] == "store_unavailable"
    assert "replicas" in problem["detail"] and unconfirmed.headers["Retry-After"] == "1"
    assert runtime.store.version(game["id"]) > version  # stored on the primary all the same

    retry = act(token, steps, {"Idempotency-Key": "k-1"})
    assert retry.status_code == 503  # still no replica to confirm it
    replica.start()
    wait_until(lambda: in_sync(primary) == 1, 20, "the replica is back in sync")
    retry = act(token, steps, {"Idempotency-Key": "k-1"})
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert len(replica.client().xrange(events)) == runtime.store.version(game["id"])
