"""A Firebase Cloud Messaging of the tests' own, on loopback: an OAuth2 token endpoint and FCM's HTTP v1 send.

It plays Google's two parts the way they judge a sender.  The token endpoint takes a JWT bearer assertion (RFC 7523)
and checks it as Google would: an RS256 signature by the service account's key (verified here with the public half,
by ``cryptography``, not by the library that signed it), ``iss`` the account's e-mail, ``aud`` Google's token endpoint
(the audience Google wants, wherever the request went), the FCM scope, a time window; then it gives an access token.
The send endpoint takes ``POST /v1/projects/<project>/messages:send`` with that token and checks the message's shape
(a token, the texts, string data, the Android collapse key, ``ttl`` and priority, the APNs headers).  Each registration
token answers what the test says (200; ``"UNREGISTERED"``: 404 with FCM's error; or ``None``: it hangs until closed).

Use it as a context manager or call :meth:`FakeFcm.close`: the server is stopped by the test that started it.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.harness.loopback import LoopbackServer

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
PROJECT = "red7-test"
ACCOUNT = "red7-push@red7-test.iam.gserviceaccount.com"
#: The audience Google's token endpoint wants in an assertion, wherever the request is sent (google-auth puts it).
AUDIENCE = "https://oauth2.googleapis.com/token"


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Sent:
    """A message FCM took: when, for which registration token, and the whole ``message``."""

    at: float
    token: str
    message: dict[str, Any]


class FakeFcm:
    """The fake's two endpoints; :meth:`write_credentials` writes the service-account file that trusts it."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.answers: dict[str, str | int | None] = {}  # registration token -> 200, "UNREGISTERED", a status, None: hang
        self.sent: list[Sent] = []
        self.refused: list[str] = []  # what a check found wrong (a test asserts it stays empty)
        self.tokens_issued: set[str] = set()
        self.assertions = 0
        self.stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/token":
                    status, answer = outer.token(body)
                else:
                    status, answer = outer.send(self.path, self.headers.get("Authorization", ""), body)
                if status == 0:
                    outer.stop.wait(60)  # hangs until the test closes the fake
                    return
                raw = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self.server = LoopbackServer(Handler, "fcm")

    @property
    def base(self) -> str:
        return self.server.base

    def write_credentials(self, folder: Path) -> Path:
        """A service-account file as the Firebase console gives one, its ``token_uri`` this fake's."""
        pem = self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        account = {
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "test-key-1",
            "private_key": pem.decode(),
            "client_email": ACCOUNT,
            "client_id": "1",
            "token_uri": f"{self.base}/token",
        }
        path = folder / "fcm-service-account.json"
        path.write_text(json.dumps(account))
        return path

    # --- the token endpoint ----------------------------------------------------------------------------------------

    def token(self, body: bytes) -> tuple[int, dict[str, Any]]:
        form = urllib.parse.parse_qs(body.decode())
        problem = self.check_assertion(form)
        if problem:
            self.refused.append(f"token: {problem}")
            return 400, {"error": "invalid_grant", "error_description": problem}
        self.assertions += 1
        token = secrets.token_urlsafe(24)
        self.tokens_issued.add(token)
        return 200, {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}

    def check_assertion(self, form: dict[str, list[str]]) -> str | None:
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return f"grant_type {form.get('grant_type')}"
        parts = (form.get("assertion") or [""])[0].split(".")
        if len(parts) != 3:
            return "the assertion is not a JWT"
        header, claims = json.loads(_unb64(parts[0])), json.loads(_unb64(parts[1]))
        if header.get("alg") != "RS256":
            return f"alg {header.get('alg')}"
        try:
            self.key.public_key().verify(_unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except Exception:
            return "the signature is not the service account's"
        now = time.time()
        if claims.get("iss") != ACCOUNT:
            return f"iss {claims.get('iss')}"
        if claims.get("aud") != AUDIENCE:
            return f"aud {claims.get('aud')}"
        if SCOPE not in str(claims.get("scope", "")).split():
            return f"scope {claims.get('scope')}"
        if not (claims.get("iat", 0) - 60 <= now <= claims.get("exp", 0)) or claims["exp"] - claims["iat"] > 3600:
            return f"time window iat {claims.get('iat')} exp {claims.get('exp')}"
        return None

    # --- the send endpoint -----------------------------------------------------------------------------------------

    def send(self, path: str, authorization: str, body: bytes) -> tuple[int, dict[str, Any]]:
        if path != f"/v1/projects/{PROJECT}/messages:send":
            self.refused.append(f"send: path {path}")
            return 404, {"error": {"code": 404, "status": "NOT_FOUND", "message": path}}
        if not authorization.startswith("Bearer ") or authorization[len("Bearer ") :] not in self.tokens_issued:
            self.refused.append("send: no access token of ours")
            return 401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}}
        message = json.loads(body).get("message", {})
        problem = self.check_message(message)
        if problem:
            self.refused.append(f"send: {problem}")
            return 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": problem}}
        answer = self.answers.get(message["token"], 200)
        if answer is None:
            return 0, {}
        if answer == "UNREGISTERED":
            detail = {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}
            return 404, {
                "error": {"code": 404, "status": "NOT_FOUND", "message": "Requested entity was not found.", "details": [detail]}
            }
        if answer != 200:
            return int(answer), {"error": {"code": answer, "status": "UNAVAILABLE"}}
        self.sent.append(Sent(time.time(), message["token"], message))
        return 200, {"name": f"projects/{PROJECT}/messages/{len(self.sent)}"}

    @staticmethod
    def check_message(message: dict[str, Any]) -> str | None:
        """FCM's rules for what we send: what it would refuse with INVALID_ARGUMENT, and what our notices promise."""
        if not isinstance(message.get("token"), str) or not message["token"]:
            return "no token"
        notification = message.get("notification", {})
        if not (isinstance(notification.get("title"), str) and isinstance(notification.get("body"), str)):
            return "no notification title and body"
        data = message.get("data", {})
        if not data or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            return "data must map strings to strings"
        android = message.get("android", {})
        if not android.get("collapse_key") or android.get("priority") not in ("HIGH", "NORMAL"):
            return f"android {android}"
        if not re.fullmatch(r"[0-9]+s", str(android.get("ttl", ""))):
            return f"android.ttl {android.get('ttl')}"
        headers = message.get("apns", {}).get("headers", {})
        if headers.get("apns-collapse-id") != android["collapse_key"][:64] or headers.get("apns-priority") not in ("5", "10"):
            return f"apns headers {headers}"
        if not str(headers.get("apns-expiration", "")).isdigit():
            return f"apns-expiration {headers.get('apns-expiration')}"
        return None

    def close(self) -> None:
        self.stop.set()
        self.server.close()

    def __enter__(self) -> FakeFcm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
