"""Record the OpenAPI document's examples from a real game: ``python3 dev.py examples`` rewrites
``service/http/examples.json``.

Every example in the OpenAPI document is a body this service really sent or accepted (a seeded game against an
AI, played through the app on an in-memory store); tests/service/http/test_openapi.py checks each one against its
schema, and sends the request examples to a server.  Run the command again when a schema changes shape:
tests/service/http/test_examples.py records the game again (in memory, writing nothing) and fails while the committed
file says something else.

So that a second recording says the same, chance is fixed while it plays: every id, token, join code and random
game's seed comes from one seeded generator (``secrets`` replaced), the VAPID key is derived from a fixed number,
and the one name a body sends somewhere (a push endpoint) resolves to a fixed public address, with no DNS asked.
What a recording cannot fix is the clock: :func:`normalised` says which members are times, and the test compares
the two recordings with those stood in for.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import secrets
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import fakeredis

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.fcm import FakeFcm
from workers.runner import drain

FILE = Path(__file__).resolve().parents[2] / "service" / "http" / "examples.json"
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
#: A native app's registration as FirebaseMessaging.getToken() gives it (the form of FCM's registration tokens).
FCM_TOKEN = "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx"
#: Where the push endpoint's host resolves while recording: a public address (TEST-NET would be refused as not public).
PUSH_HOST_ADDRESS = "142.250.0.1"


def record() -> dict[str, Any]:
    """The examples, from a game played now with chance fixed (:func:`fixed_chance`) and no DNS asked."""
    with fixed_chance(SEED), _push_host_resolved():
        return capture()


@contextmanager
def fixed_chance(seed: int) -> Iterator[None]:
    """``secrets`` drawing from one generator seeded with ``seed``: the same ids, tokens and seeds each run."""
    chance = random.Random(seed)

    def token_bytes(nbytes: int | None = None) -> bytes:
        return chance.randbytes(32 if nbytes is None else nbytes)

    def token_urlsafe(nbytes: int | None = None) -> str:
        return base64.urlsafe_b64encode(token_bytes(nbytes)).rstrip(b"=").decode("ascii")

    def token_hex(nbytes: int | None = None) -> str:
        return token_bytes(nbytes).hex()

    with (
        mock.patch.object(secrets, "token_bytes", token_bytes),
        mock.patch.object(secrets, "token_urlsafe", token_urlsafe),
        mock.patch.object(secrets, "token_hex", token_hex),
        mock.patch.object(secrets, "randbits", chance.getrandbits),
    ):
        yield


@contextmanager
def _push_host_resolved() -> Iterator[None]:
    """The push endpoint's host resolving to :data:`PUSH_HOST_ADDRESS` (the service checks a push endpoint is public
    when it is saved); any other name is asked of the real resolver, as before."""
    real = socket.getaddrinfo
    host = PUSH_SUBSCRIPTION["endpoint"].split("/")[2]  # type: ignore[union-attr]

    def getaddrinfo(name: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if name == host:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUSH_HOST_ADDRESS, port or 443))]
        return real(name, port, *args, **kwargs)

    with mock.patch.object(socket, "getaddrinfo", getaddrinfo):
        yield


def vapid_key() -> str:
    """A VAPID private key derived from a fixed number (not a secret: the examples' server sends nothing)."""
    return base64.urlsafe_b64encode(hashlib.sha256(b"red7 examples").digest()).rstrip(b"=").decode("ascii")


def capture() -> dict[str, Any]:
    """The game, played through the app on an in-memory store: every body sent and answered that the document shows."""
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
        vapid_private_key=vapid_key(),
    )
    with tempfile.TemporaryDirectory() as folder, FakeFcm() as fcm:  # a service account to register devices with
        settings = replace(settings, fcm_credentials=str(fcm.write_credentials(Path(folder))), fcm_endpoint=fcm.base)
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
    out["TokenCreate"] = {"label": "phone", "scopes": ["play", "lobby", "profile:read"]}
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
    out["PlayerGames"] = call("GET", "/v1/players/Ana_B/archive?limit=2")
    # Ana's statistics across her finished games (her analysed game's accuracy in the trend), and everyone's of
    # the basic two-seat games.
    out["PlayerStatistics"] = call("GET", "/v1/players/Ana_B/statistics")
    out["GameStatistics"] = call("GET", "/v1/statistics?variant=basic&players=2")
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
    # Native push: an app's FCM registration token.
    out["PushDeviceCreate"] = {"platform": "fcm", "token": FCM_TOKEN}
    out["PushDevice"] = call("POST", "/v1/players/me/push-devices", token, out["PushDeviceCreate"], status=201)
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
    # Table talk at the correspondence game: Ana wishes luck with a preset phrase, Bo answers in words; Ana's page.
    out["Say"] = {"phrase": "good_luck"}
    out["TalkMessage"] = call("POST", f"{corr}/talk", token, out["Say"])
    call("POST", f"{corr}/talk", bo["token"], {"text": "Thanks, you too!"})
    out["TalkPage"] = call("GET", f"{corr}/talk?limit=2", token)
    # Live games to watch: a spectator follows the correspondence game (a long-poll without a token), so it has a
    # watcher; the two highest rated games in play. And the oEmbed answer for the finished game's viewer, at step 3.
    call("GET", f"{corr}/events?after=0&limit=1")
    out["LiveGameList"] = call("GET", "/v1/live-games?limit=2")
    out["OEmbed"] = call("GET", f"/v1/oembed?url=http://localhost{path}/replay/view%23step=3&maxwidth=500")
    # Blocks and mutes: Ana blocks Bo by his handle and mutes Dee by id; her list of blocks, a page of one.
    out["BlockedPlayer"] = call("PUT", "/v1/players/me/blocks/anansi", token)
    out["MutedPlayer"] = call("PUT", f"/v1/players/me/mutes/{dee['id']}", token)
    out["BlockList"] = call("GET", "/v1/players/me/blocks?limit=1", token)
    # A Swiss of tables of two: Ana organises it with entries closing a moment from now; she, Bo and Cy enter; once
    # entries close, the first read starts round 1 (Cy's bye or table is the pairing's).
    closing = datetime.now(UTC) + timedelta(seconds=1)
    out["TournamentCreate"] = {
        "name": "Autumn Swiss",
        "format": "swiss",
        "table_size": 2,
        "rounds": 2,
        "entries_close": closing.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "min_players": 2,
        "max_players": 16,
        "odd_rule": "bye",
        "variant": "basic",
        "days_per_turn": 3,
    }
    made = call("POST", "/v1/tournaments", token, out["TournamentCreate"], status=201)
    for entrant in (token, bo["token"], cy["token"]):
        out["Tournament"] = call("POST", f"/v1/tournaments/{made['id']}/entries", entrant)
    out["TournamentList"] = call("GET", "/v1/tournaments?status=entering&limit=5")
    time.sleep(max(0.0, (closing - datetime.now(UTC)).total_seconds()) + 0.05)
    out["TournamentRound"] = call("GET", f"/v1/tournaments/{made['id']}/rounds/1", token)
    out["Standings"] = call("GET", f"/v1/tournaments/{made['id']}/standings")
    # Ana's own feed: what stands for her as it opens, and her notices from the first (a page of two); her inbox, a page
    # of two; then every notice up to the second newest marked read.
    opened = call("GET", "/v1/players/me/events?limit=2", token)
    notices = call("GET", "/v1/players/me/events?after=0-0&limit=2", token)["notices"]
    out["MyEventsPage"] = {**opened, "notices": notices, "next": notices[-1]["notification_id"]}
    out["NotificationList"] = call("GET", "/v1/players/me/notifications?limit=2", token)
    out["NotificationsRead"] = {"up_to": out["NotificationList"]["notifications"][1]["notification_id"]}
    out["NotificationsReadResult"] = call("POST", "/v1/players/me/notifications/read", token, out["NotificationsRead"])
    return out


#: What the clock decides in a string: an ISO 8601 time as the service writes one (``2026-11-28T03:36:41.356Z``); a
#: replay's hash, which covers its events' times; an imported replay's id, the start of that hash; a table-talk
#: message's id; an archive's cursor, which starts with a time.
_CLOCKED = (
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)"), "<time>"),
    (re.compile(r"sha256:[0-9a-f]{64}"), "<hash>"),
    (re.compile(r"\br_[0-9a-f]{24}\b"), "<replay id>"),
    (re.compile(r"^\d{13}-\d+$"), "<talk id>"),  # a message at a table: its stream entry's id, a time in ms
    (re.compile(r"^\d{13}\.(?=g_)"), "<ms>."),  # an archive's cursor: the time its last game finished, in ms, and its id
)
#: Members whose number is a length of time on the clock (a turn's time left, a ticket's wait): they differ between
#: two recordings by the moments between their requests.  And a problem's ``request_id``: new each request, from
#: ``os.urandom`` (not ``secrets``, which the recording seeds: an id drawn from it would move every id after it).
_CLOCK_MEMBERS = frozenset({"time_left", "waited_seconds", "request_id"})


def normalised(examples: Any) -> Any:
    """``examples`` with what the clock decides stood in for (:data:`_CLOCKED`, :data:`_CLOCK_MEMBERS`); everything
    else, every id, token, card and number of the game included, must be the same in two recordings."""
    if isinstance(examples, dict):
        return {k: "<clock>" if k in _CLOCK_MEMBERS and v is not None else normalised(v) for k, v in examples.items()}
    if isinstance(examples, list):
        return [normalised(item) for item in examples]
    if isinstance(examples, str):
        for pattern, stand_in in _CLOCKED:
            examples = pattern.sub(stand_in, examples)
        return examples
    return examples


def text_of(examples: dict[str, Any]) -> str:
    """The file's text: as the recording was made, one member a line, indented one space."""
    return json.dumps(examples, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """``python -m tests.harness.examples [FILE]``: record and write (the committed file, unless another is named)."""
    out = Path(argv[0]) if argv else FILE
    out.write_text(text_of(record()), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
