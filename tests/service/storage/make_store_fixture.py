"""Write ``store_before_cluster.json``: every key of a store made by the code *before* the cluster key layout.

``red7 migrate`` is tested on a store written by the code that came before it, not on one its own tests
imagine.  This script made the committed fixture at that commit (``python -m tests.service.storage.make_store_fixture``),
through the real API on the embedded store: players signed up with several tokens (one of them revoked), a
webhook set, games played to the end by AIs and by people, some left in play or in the lobby, one left before it
started, an idempotent action, an imported replay, a stream ticket.  It dumps every key under the prefix with
its type, value and TTL, and the tokens in clear (made for this fixture and nothing else) so that a test can
check each still resolves after the migration.

Run again, it makes another store (ids, tokens and seeds are random) of the layout the code writes then: it
refuses to replace the committed fixture with one of the cluster layout (give it another path to write).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import fakeredis
import redis

FIXTURE = Path(__file__).parent / "fixtures" / "store_before_cluster.json"
PREFIX = "red7:"


def dump_store(client: redis.Redis, prefix: str) -> dict[str, dict[str, Any]]:
    """Every key under ``prefix`` as ``{type, value, pttl}`` (a text client; ``pttl`` -1: no expiry)."""
    keys: dict[str, dict[str, Any]] = {}
    for key in sorted(client.scan_iter(match=f"{prefix}*", count=1000)):
        kind = client.type(key)
        value: Any
        if kind == "string":
            value = client.get(key)
        elif kind == "hash":
            value = dict(sorted(client.hgetall(key).items()))
        elif kind == "set":
            value = sorted(client.smembers(key))
        elif kind == "zset":
            value = [[member, score] for member, score in client.zrange(key, 0, -1, withscores=True)]
        elif kind == "list":
            value = client.lrange(key, 0, -1)
        elif kind == "stream":
            value = [[entry_id, fields] for entry_id, fields in client.xrange(key)]
        else:
            raise ValueError(f"{key}: a {kind} is not dumped")
        keys[key] = {"type": kind, "value": value, "pttl": client.pttl(key)}
    return keys


def load_store(client: redis.Redis, keys: dict[str, dict[str, Any]], prefix: str = PREFIX, into: str = PREFIX) -> None:
    """Write a dump back (a text client), its keys moved from ``prefix`` to ``into``; a key already there is replaced."""
    for stored_key, record in keys.items():
        key = into + stored_key.removeprefix(prefix)
        kind, value = record["type"], record["value"]
        client.delete(key)
        if kind == "string":
            client.set(key, value)
        elif kind == "hash":
            client.hset(key, mapping=value)
        elif kind == "set":
            client.sadd(key, *value)
        elif kind == "zset":
            client.zadd(key, {member: score for member, score in value})
        elif kind == "list":
            client.rpush(key, *value)
        elif kind == "stream":
            for entry_id, fields in value:
                client.xadd(key, fields, id=entry_id)
        else:
            raise ValueError(f"{key}: a {kind} is not loaded")
        if record["pttl"] > 0:
            client.pexpire(key, record["pttl"])


def make_store() -> dict[str, Any]:
    """Play the fixture's story through the API; the dump and what a test needs to check it."""
    from service.runtime import build_runtime
    from tests.harness.support import HUMAN, Api, ai, settings_for

    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    runtime = build_runtime(settings_for(PREFIX), clients=clients)
    from service.http.app import create_app

    api = Api(create_app(runtime), runtime)

    people = {name: api.player(name) for name in ("Ana", "Bo", "Cy", "Di")}
    tokens: dict[str, list[str]] = {name: [body["token"]] for name, body in people.items()}
    ids = {name: runtime.players.by_token(token[0]).id for name, token in tokens.items()}  # type: ignore[union-attr]
    revoked: list[str] = []
    for name, labels in (("Ana", ["phone", "laptop", "old tablet"]), ("Bo", ["browser"])):
        for label in labels:
            issued = api.call("POST", "/v1/players/me/tokens", tokens[name][0], json={"label": label})
            assert issued.status_code == 201, issued.get_json()
            tokens[name].append(issued.get_json()["token"])
    listed = api.call("GET", "/v1/players/me/tokens", tokens["Ana"][0]).get_json()["tokens"]
    old_tablet = next(t for t in listed if t["label"] == "old tablet")  # tokens made in one millisecond list in any order
    assert api.call("DELETE", f"/v1/players/me/tokens/{old_tablet['id']}", tokens["Ana"][0]).status_code == 204
    revoked.append(tokens["Ana"].pop())

    def finish_by_folding(game_id: str, *players: str) -> None:
        for _ in range(4):
            api.run_jobs()
            view = api.view(game_id, tokens[players[0]][0])
            if view["status"] == "finished":
                return
            for name in players:
                if runtime.games.load(game_id).is_turn_of(ids[name]):
                    folded = api.act(game_id, tokens[name][0], [{"type": "fold"}], headers={"Idempotency-Key": f"fold-{name}"})
                    assert folded.status_code == 200, folded.get_json()
        raise AssertionError(f"{game_id} did not finish")

    # Finished: a person against an AI, AIs only (Ana watches), two people.
    versus_ai = api.game(tokens["Ana"][0], [HUMAN, ai("random")], variant="basic")["id"]
    finish_by_folding(versus_ai, "Ana")
    ais_only = api.game(tokens["Ana"][1], [ai("random"), ai("greedy")], variant="advanced", action_rules=True)["id"]
    api.run_jobs()
    two_people = api.game(tokens["Bo"][0], [HUMAN, HUMAN], variant="basic")
    joined = api.call("POST", f"/v1/games/{two_people['id']}/join", tokens["Cy"][0], json={"code": two_people["join_code"]})
    assert joined.status_code == 200, joined.get_json()
    finish_by_folding(two_people["id"], "Bo", "Cy")

    # In play: a person against an AI, and three people; in the lobby: one waiting, one left before the start.
    in_play = api.game(tokens["Cy"][0], [HUMAN, ai("greedy")], variant="basic")["id"]
    api.run_jobs()
    three = api.game(tokens["Bo"][1], [HUMAN, HUMAN, HUMAN], variant="basic")
    for name in ("Ana", "Di"):
        seated = api.call("POST", f"/v1/games/{three['id']}/join", tokens[name][0], json={"code": three["join_code"]})
        assert seated.status_code == 200, seated.get_json()
    api.run_jobs()
    waiting = api.game(tokens["Di"][0], [HUMAN, HUMAN], variant="basic")
    left = api.game(tokens["Di"][0], [HUMAN, HUMAN, HUMAN], variant="basic")
    seated = api.call("POST", f"/v1/games/{left['id']}/join", tokens["Ana"][1], json={"code": left["join_code"]})
    assert seated.status_code == 200, seated.get_json()
    assert api.call("POST", f"/v1/games/{left['id']}/leave", tokens["Ana"][1]).status_code == 200
    api.run_jobs()

    # Lists read (snapshots kept), a replay imported, a stream ticket, a webhook (set last: nothing is delivered).
    for name in people:
        assert api.call("GET", "/v1/players/me/games", tokens[name][0]).status_code == 200
    document = api.call("GET", f"/v1/games/{versus_ai}/replay/export", tokens["Ana"][0]).get_json()
    imported = api.call("POST", "/v1/replays", tokens["Bo"][0], json=document)
    assert imported.status_code == 201, imported.get_json()
    ticket = api.call("POST", f"/v1/games/{in_play}/stream-tickets", tokens["Cy"][0])
    assert ticket.status_code in (200, 201), ticket.get_json()
    hooked = api.call("PATCH", "/v1/players/me", tokens["Bo"][0], json={"webhook_url": "http://127.0.0.1:9/red7-hook"})
    assert hooked.status_code == 200, hooked.get_json()

    statuses = {g: api.view(g, tokens["Ana"][0])["status"] for g in (versus_ai, ais_only, two_people["id"], in_play, three["id"])}
    statuses.update({g["id"]: api.view(g["id"], tokens["Di"][0])["status"] for g in (waiting, left)})
    return {
        "about": "A store written by the code before the cluster key layout (tests/service/storage/make_store_fixture.py).",
        "prefix": PREFIX,
        "players": ids,
        "tokens": tokens,
        "revoked_tokens": revoked,
        "games": statuses,
        "replays": [imported.get_json()["id"]],
        "keys": dump_store(clients[0], PREFIX),
    }


def main(argv: list[str]) -> int:
    """Write the store to ``argv[0]`` (default: the fixture, only while the code writes the old layout)."""
    output = Path(argv[0]) if argv else FIXTURE
    store = make_store()
    if output == FIXTURE and any(key.startswith(f"{PREFIX}player:{{") for key in store["keys"]):
        print(f"{FIXTURE} is a store of the layout before the cluster one: not replaced by one of today's.", file=sys.stderr)
        return 1
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(store, indent=1, sort_keys=False) + "\n")
    print(f"{output}: {len(store['keys'])} keys, {len(store['players'])} players, {len(store['games'])} games")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
