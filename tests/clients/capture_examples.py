"""Record the document's examples from a real game: ``python -m tests.clients.capture_examples`` rewrites
``service/http/examples.json``.

Every example in the OpenAPI document is a body this service really sent or accepted (a seeded game against an
AI, played through the API on an in-memory store); tests/service/http/test_openapi.py checks each one against its
schema, and sends the request examples to a server.  Run this again when a schema changes shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fakeredis

from service.application.push import new_vapid_key
from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime
from workers.runner import drain

OUT = Path(__file__).resolve().parents[2] / "service" / "http" / "examples.json"
SEED = 11
#: A subscription as a browser's PushManager hands it over (the endpoint and keys of the Web Push protocol's examples).
PUSH_SUBSCRIPTION = {
    "endpoint": "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH",
    "expirationTime": None,
    "keys": {
        "p256dh": "BLc4xRzKlKORKWlbdgFaBrrPK3ydWAHo4M0gs0i1oEKgPpWC5cW8OCzVrOQRv-1npXRWk8udnW3oYhIO4475rds",
        "auth": "5I2Bu2oKdyy9CwL8QVF0NQ",
    },
}


def capture() -> dict[str, Any]:
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    settings = Settings(
        key_prefix="examples:",
        rate_limit_token="",
        rate_limit_address="",
        rate_limit_signup="",
        rate_limit_import="",
        rate_limit_analysis="",
        expert_seconds=0.05,
        max_games_in_play=0,
        max_ai_seats_in_play=0,
        rated_min_account_age=0,  # Ana plays rated games minutes after she signs up
        rated_min_games=0,
        vapid_private_key=new_vapid_key(),
    )
    runtime = build_runtime(settings, clients=clients)
    client = create_app(runtime).test_client()
    out: dict[str, Any] = {}

    def call(method: str, path: str, token: str | None = None, body: Any = None, status: int = 200, **headers: str) -> Any:
        if token:
            headers["Authorization"] = f"Bearer {token}"
        headers = {name.replace("_", "-"): value for name, value in headers.items()}
        response = client.open(path, method=method, json=body, headers=headers)
        assert response.status_code == status, (method, path, response.status_code, response.get_data(as_text=True))
        return response.get_json() if response.data else None

    out["PlayerCreate"] = {"name": "Ana", "handle": "ana_b"}
    ana = call("POST", "/v1/players", body=out["PlayerCreate"], status=201)
    out["PlayerCreated"] = ana
    token = ana["token"]
    out["PlayerUpdate"] = {"name": "Ana B."}
    out["Player"] = call("PATCH", "/v1/players/me", token, out["PlayerUpdate"])
    out["TokenCreate"] = {"label": "phone"}
    out["TokenIssued"] = call("POST", "/v1/players/me/tokens", token, out["TokenCreate"], status=201)
    out["TokenList"] = call("GET", "/v1/players/me/tokens", token)
    bo = call("POST", "/v1/players", body={"name": "Bo", "handle": "anansi"}, status=201)
    lobby = call("POST", "/v1/games", bo["token"], {"seats": [{"kind": "human"}, {"kind": "human"}]}, status=201)
    out["Join"] = {"code": lobby["join_code"]}
    out["GameCreate"] = {
        "seats": [{"kind": "human"}, {"kind": "ai", "level": "greedy"}],
        "variant": "advanced",
        "action_rules": False,
        "seed": SEED,
    }
    game = call("POST", "/v1/games", token, out["GameCreate"], status=201)
    drain(runtime)
    path = f"/v1/games/{game['id']}"
    view = call("GET", path, token)
    while view["turn"]["seat"] != 0 or not view["legal_steps"]:
        drain(runtime)
        view = call("GET", path, token)
    out["GameView"] = view
    # A turn to send: a legal step that keeps the seat in, and an end of turn if it does not end it.
    first = next(s for s in view["legal_steps"] if s["can_win"] and not s["draws"])
    steps = [{k: v for k, v in first.items() if k in ("type", "card", "draw", "seat", "to")}]
    if not first["ends_turn"]:
        steps.append({"type": "end_turn"})
    out["Action"] = {"steps": steps}
    call("POST", f"{path}/actions", token, out["Action"], If_Match=f'"{view["version"]}"')
    drain(runtime)
    page = call("GET", f"{path}/events?after={view['version'] - 3}&limit=6", token)
    out["EventPage"] = page
    out["StreamTicket"] = call("POST", f"{path}/stream-tickets", token, status=201)
    out["GameList"] = call("GET", "/v1/players/me/games?limit=2", token)
    cy = call("POST", "/v1/players", body={"name": "Cy"}, status=201)
    table = {
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "ai", "level": "greedy"}],
        "listed": True,
        "days_per_turn": 3,
    }
    call("POST", "/v1/games", cy["token"], table, status=201)
    out["OpenGameList"] = call("GET", "/v1/games?days_per_turn=3", token)
    out["ReplayAt"] = call("GET", f"{path}/replay?at=3", token)
    # Play on (folding) to the end: the finished game's replay is the export and import example.
    while call("GET", path, token)["status"] != "finished":
        current = call("GET", path, token)
        if current["turn"] and current["turn"]["seat"] == 0 and current["legal_steps"]:
            call("POST", f"{path}/actions", token, {"steps": [{"type": "fold"}]})
        drain(runtime)
    out["Replay"] = call("GET", f"{path}/replay/export")
    out["Imported"] = call("POST", "/v1/replays", token, out["Replay"], status=201)
    # The finished game's decision analysis: queued, then done (its first decisions only, to keep the file small).
    out["AnalysisQueued"] = call("POST", f"{path}/analysis", token, status=202)
    drain(runtime)
    analysis = call("GET", f"{path}/analysis")
    analysis["result"]["decisions"] = analysis["result"]["decisions"][:3]
    out["Analysis"] = analysis
    # Ana's inaccuracies and worse across her analysed games: this one's, the first page of one game.
    mistakes = call("GET", "/v1/players/me/mistakes?label=inaccuracy&games=1", token)
    out["MistakeList"] = {**mistakes, "mistakes": mistakes["mistakes"][:2]}
    # The imported replay's analysis: the same, kept as long as the import.
    imported = f"/v1/replays/{out['Imported']['id']}/analysis"
    out["ImportedAnalysisQueued"] = call("POST", imported, token, status=202)
    drain(runtime)
    analysis = call("GET", imported)
    analysis["result"]["decisions"] = analysis["result"]["decisions"][:3]
    out["ImportedAnalysis"] = analysis
    # Rated games between two AI levels: the anchors' ratings, from their games as on a live service (an AI level is
    # ranked from its first game).  Then two rated games between an AI and Ana's folds: her ratings, provisional.
    for _ in range(32):
        call(
            "POST",
            "/v1/games",
            token,
            {"seats": [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "greedy"}], "variant": "basic", "rated": True},
            status=201,
        )
        drain(runtime)
    for _ in range(2):
        rated = call(
            "POST",
            "/v1/games",
            token,
            {"seats": [{"kind": "human"}, {"kind": "ai", "level": "random"}], "variant": "basic", "rated": True},
            status=201,
        )
        while call("GET", f"/v1/games/{rated['id']}", token)["status"] != "finished":
            current = call("GET", f"/v1/games/{rated['id']}", token)
            if current["legal_steps"]:
                call("POST", f"/v1/games/{rated['id']}/actions", token, {"steps": [{"type": "fold"}]})
            drain(runtime)
        drain(runtime)
    out["Leaderboard"] = call("GET", "/v1/ladders/basic/leaderboard?limit=3")
    out["PublicPlayer"] = call("GET", "/v1/players/Ana_B")
    out["PlayerList"] = call("GET", "/v1/players?handle=an&limit=1", token)
    # A challenge from Ana to Bo (named by id until handles exist), accepted; one from Bo to Ana, declined.
    out["ChallengeCreate"] = {
        "players": [bo["id"]],
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "ai", "level": "greedy"}],
        "variant": "advanced",
        "days_per_turn": 3,
        "rated": True,
    }
    out["Challenge"] = call("POST", "/v1/challenges", token, out["ChallengeCreate"], status=201)
    accepted = call("POST", f"/v1/challenges/{out['Challenge']['id']}/accept", bo["token"])
    declined = call("POST", "/v1/challenges", bo["token"], {"players": [ana["id"]], "turn_timeout": 300}, status=201)
    out["ChallengeDecline"] = {"reason": "too_fast"}
    call("POST", f"/v1/challenges/{declined['id']}/decline", token, out["ChallengeDecline"])
    out["ChallengeList"] = call("GET", "/v1/challenges?limit=2", token)
    # Time given in the accepted challenge's game, a correspondence game: a day, by one of its players to the other
    # once the AI has moved and it is the other's turn.
    drain(runtime)
    corr = f"/v1/games/{accepted['game_id']}"
    giver = token if call("GET", corr, token)["turn"]["seat"] == 1 else bo["token"]
    out["GiveTime"] = {"seconds": 86400}
    call("POST", f"{corr}/time", giver, out["GiveTime"])
    # Web push: the key a browser subscribes with, and a browser's subscription (the body PushManager.subscribe gives).
    out["PushKey"] = call("GET", "/v1/push/key")
    out["PushSubscriptionCreate"] = PUSH_SUBSCRIPTION
    out["PushSubscription"] = call("POST", "/v1/players/me/push-subscription", token, PUSH_SUBSCRIPTION, status=201)
    out["ProblemList"] = {"problems": call("GET", "/v1/problems")["problems"][:3]}
    rules = call("GET", "/v1/rules?lang=pl")
    out["RuleList"] = {**rules, "rules": rules["rules"][:2]}
    out["Health"] = call("GET", "/healthz")
    # Quick match: two players who want a live game of two; the matchmaker's pass seats them (its ticket names the game).
    out["MatchTicketCreate"] = {"player_counts": [2], "variant": "advanced", "turn_seconds": 60, "ai_fill_after": 30}
    cy, dee = (call("POST", "/v1/players", body={"name": name}, status=201) for name in ("Cy", "Dee"))
    ticket = call("POST", "/v1/match-tickets", cy["token"], out["MatchTicketCreate"], status=201)
    call("POST", "/v1/match-tickets", dee["token"], out["MatchTicketCreate"], status=201)
    runtime.matches.match_pass()
    out["MatchTicket"] = call("GET", f"/v1/match-tickets/{ticket['id']}", cy["token"])
    return out


def main() -> None:
    OUT.write_text(json.dumps(capture(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
