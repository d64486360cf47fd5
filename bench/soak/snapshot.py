"""What the stores hold at the soak's end, put into the history for the checker: each game's events (number, type,
author, time), its status and whose turn with what deadline, the quick-match pools' matches, the ratings rebuild's
comparison, and each finished game's replay verified (compacted or not: the store reads both alike)."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import requests

from replays.verify import verify_replay
from service.common.config import Settings
from service.domain.game import decode
from service.domain.matchmaking import TicketsMatched, event_from_json
from service.runtime import build_runtime


def take(env: dict[str, str], base: str, token: str, games: list[dict[str, Any]]) -> dict[str, Any]:
    """The stores' side of the history (``token``: any player's, to read views and replays as a client would)."""
    runtime = build_runtime(Settings.from_env(env))
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    found: dict[str, dict[str, Any]] = {}
    replays: dict[str, Any] = {}
    matches = _matches(runtime)
    known = {entry["id"] for entry in games}
    games = games + [{"id": m["game_id"]} for m in matches if m["game_id"] not in known]  # made after the load stopped
    for entry in games:
        game_id = entry["id"]
        events = [_event(stored.number, stored.payload) for stored in runtime.store.read(game_id)]
        view = _get(session, f"{base}/v1/games/{game_id}")
        turn = view.get("turn") or {}
        seat = turn.get("seat")
        seats = view.get("seats") or []
        found[game_id] = {
            "all_ai": entry.get("all_ai", False),
            "events": events,
            "status": view.get("status"),
            "turn": {
                "seat": seat,
                "kind": seats[seat]["kind"] if seat is not None and seat < len(seats) else None,
                "deadline": _epoch(turn["deadline"]) if turn.get("deadline") else None,
            },
        }
        if view.get("status") == "finished":
            verdict = verify_replay(_get(session, f"{base}/v1/games/{game_id}/replay"))
            replays[game_id] = {"ok": verdict.ok, "problems": verdict.problems[:3]}
    rebuilt = runtime.ratings.rebuild()
    return {
        "at": time.time(),
        "games": found,
        "matches": matches,
        "ratings": {"games": rebuilt.games, "ladders": {k: list(v) for k, v in rebuilt.ladders.items()}},
        "replays": replays,
    }


def _event(number: int, payload: str) -> dict[str, Any]:
    envelope = decode(payload)
    return {
        "n": number,
        "type": envelope.get("type"),
        "by": envelope.get("by"),
        "at": _epoch(envelope["at"]),
        "card": envelope.get("card"),  # an action's fingerprint, with its kind (the checker's "lost")
    }


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _get(session: requests.Session, url: str) -> dict[str, Any]:
    for _ in range(30):
        try:
            response = session.get(url, timeout=30)
        except requests.RequestException:
            time.sleep(1.0)
            continue
        if response.status_code == 200:
            return response.json()
        if response.status_code not in (502, 503, 504, 429):
            return {"status": f"http {response.status_code}"}
        time.sleep(1.0)
    return {"status": "unanswered"}


def _matches(runtime: Any) -> list[dict[str, Any]]:
    """Every match of every quick-match pool, from the pools' streams."""
    prefix = runtime.settings.key_prefix
    found = []
    for key in runtime.redis.scan_iter(match=f"{prefix}pool:*:events", count=1000):
        for _, fields in runtime.redis.xrange(key):
            event = event_from_json(fields["e"])
            if isinstance(event, TicketsMatched):
                found.append(
                    {
                        "pool": key,
                        "game_id": event.game_id,
                        "ticket_ids": list(event.ticket_ids),
                        "players": [p.player_id for p in event.players],
                    }
                )
    return found
