"""Sign in with Red7 as an app does it (docs/oauth.md), then the generated client (``red7_client``) with the token.

The app makes a PKCE code verifier and its S256 challenge, and prints the authorization URL for the player's browser
(``authorize: <url>``); the player approves on the consent page, and the browser lands on the app's redirect URI,
which the app reads on its standard input (a native app's own listener would get it the same way).  The app checks
``state``, redeems the code at ``/oauth/token`` with its verifier (OAuth's form-encoded endpoint, which is not among
the document's operations: the generated client's own httpx client posts it), then calls operations through the
generated client with the access token: those of the granted scopes answer, one beyond them is ``403`` with
``WWW-Authenticate: Bearer error="insufficient_scope"`` and the problem code naming the scope.

Run by tests/clients/test_python_client.py after ``mypy --strict`` checked it against the generated package (no
casts, no dict access).  Usage: ``python signin.py BASE_URL CLIENT_ID REDIRECT_URI``; prints two lines.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import sys
from http import HTTPStatus
from typing import NoReturn
from urllib.parse import parse_qs, urlencode, urlsplit

from red7_client import AuthenticatedClient, Client
from red7_client.api.v1 import create_game, get_me, list_notifications
from red7_client.models import GameCreate, NotificationList, Player, Problem, Seat, SeatKind

#: What the app asks for: the player's profile and inbox, not play (which the app may ask for, and does not here).
SCOPES = "profile:read notifications"


def fail(what: str, got: object) -> NoReturn:
    raise SystemExit(f"{what}: {got!r}")


def s256(verifier: str) -> str:
    """RFC 7636 §4.2: BASE64URL(SHA256(verifier)), unpadded."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def only(query: dict[str, list[str]], name: str) -> str:
    values = query.get(name, [])
    if len(values) != 1:
        fail(f"the redirect's {name}", query)
    return values[0]


def sign_in(base_url: str, client_id: str, redirect_uri: str) -> tuple[str, str]:
    """The authorization code flow with PKCE: the access token and the scopes granted."""
    verifier = secrets.token_urlsafe(48)  # 64 characters of [A-Za-z0-9_-]: within RFC 7636's 43 to 128
    state = secrets.token_urlsafe(16)
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": SCOPES,
        "state": state,
        "code_challenge": s256(verifier),
        "code_challenge_method": "S256",
    }
    print(f"authorize: {base_url}/oauth/authorize?{urlencode(query)}", flush=True)
    back = sys.stdin.readline().strip()
    if not back.startswith(redirect_uri + "?"):
        fail("the browser came back elsewhere", back)
    answer = parse_qs(urlsplit(back).query)
    if only(answer, "state") != state:
        fail("the state came back changed", answer)
    form = {
        "grant_type": "authorization_code",
        "code": only(answer, "code"),
        "redirect_uri": redirect_uri,
        "client_id": client_id,
        "code_verifier": verifier,
    }
    anonymous = Client(base_url=base_url)
    redeemed = anonymous.get_httpx_client().post("/oauth/token", data=form)
    body = redeemed.json()
    if redeemed.status_code != HTTPStatus.OK or not isinstance(body, dict):
        fail("the code's redemption", redeemed.text)
    access, granted, kind = body.get("access_token"), body.get("scope"), body.get("token_type")
    if not isinstance(access, str) or not isinstance(granted, str) or kind != "Bearer" or not body.get("refresh_token"):
        fail("the token answer", sorted(body))
    return access, granted


def main(base_url: str, client_id: str, redirect_uri: str) -> None:
    access, granted = sign_in(base_url, client_id, redirect_uri)
    app = AuthenticatedClient(base_url=base_url, token=access, raise_on_unexpected_status=True)
    me = get_me.sync_detailed(client=app)
    # The answer names the token's scopes as GitHub's and Lichess's do: comma-separated (the token answer's: spaces).
    if not isinstance(me.parsed, Player) or me.headers.get("X-OAuth-Scopes") != ", ".join(granted.split()):
        fail("getMe with the app's token", (me.status_code, me.headers.get("X-OAuth-Scopes")))
    inbox = list_notifications.sync(client=app)
    if not isinstance(inbox, NotificationList):
        fail("listNotifications with the app's token", inbox)
    seats = [Seat(kind=SeatKind.HUMAN), Seat(kind=SeatKind.AI)]
    refused = create_game.sync_detailed(client=app, body=GameCreate(seats=seats))
    challenge = refused.headers.get("WWW-Authenticate", "")
    if refused.status_code != HTTPStatus.FORBIDDEN or not isinstance(refused.parsed, Problem):
        fail("createGame beyond the granted scopes", refused.status_code)
    if 'error="insufficient_scope"' not in challenge:
        fail("the 403's WWW-Authenticate", challenge)
    print(f"signed in as {me.parsed.id}: scopes {granted!r}")
    print(
        f"getMe {me.status_code.value}, listNotifications 200; createGame {refused.status_code.value} "
        f"{refused.parsed.code}, Bearer error=insufficient_scope"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
