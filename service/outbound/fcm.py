"""Sending a native push through Firebase Cloud Messaging's HTTP v1 API, with an OAuth2 token of a service account.

google-auth (Google's maintained library) reads the service-account file, signs the JWT assertion (RFC 7523) and
exchanges it for an access token at the file's ``token_uri``, refreshing it before it expires; a test points that
``token_uri`` at a local fake, as it points :attr:`Fcm.endpoint` (``RED7_FCM_ENDPOINT``) at one.  firebase-admin would
do the same through a whole SDK (Firestore, Auth, Storage clients and their dependencies) for the one call we make.

The endpoint is the operator's, not a player's: it is not held to the rule against private addresses
(:mod:`service.outbound.destinations`) that every player-given URL meets.  No redirect is followed all the same.

A message is the notice's texts as ``notification`` and its members as ``data`` (strings, as FCM wants them), the game
as the collapse key (``android.collapse_key``, ``apns-collapse-id``: a newer message replaces one still pending), the
time left to act as its lifetime (``android.ttl``, ``apns-expiration``) and high priority in the last hour.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

import google.auth.transport.requests
from google.oauth2 import service_account

__all__ = ["SCOPE", "DeviceGone", "Fcm", "FcmMessage", "FcmRefused", "message_body"]

#: The OAuth2 scope of FCM's HTTP v1 API.
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


class DeviceGone(Exception):
    """FCM answered 404 or UNREGISTERED: the registration token is no longer valid (the app was removed)."""


class FcmRefused(Exception):
    """FCM refused the message for good (another 4xx than 404 and 429): no retry mends it."""


@dataclass(frozen=True, slots=True)
class FcmMessage:
    """What goes to each of a player's devices: the notice, its texts, its collapse key, lifetime and priority."""

    data: dict[str, str]
    title: str
    body: str
    collapse_key: str
    ttl: int
    high: bool


def message_body(token: str, message: FcmMessage, now: float | None = None) -> dict[str, Any]:
    """The ``messages:send`` request body for one device."""
    ttl = max(0, int(message.ttl))
    return {
        "message": {
            "token": token,
            "notification": {"title": message.title, "body": message.body},
            "data": message.data,
            "android": {"collapse_key": message.collapse_key, "ttl": f"{ttl}s", "priority": "HIGH" if message.high else "NORMAL"},
            "apns": {
                "headers": {
                    "apns-collapse-id": message.collapse_key[:64],  # APNs takes at most 64 bytes
                    "apns-expiration": str(int((now or time.time()) + ttl)),
                    "apns-priority": "10" if message.high else "5",
                }
            },
        }
    }


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


class Fcm:
    """A sender for one Firebase project, from its service-account file; safe to share between threads."""

    def __init__(self, credentials_file: str, endpoint: str = "https://fcm.googleapis.com") -> None:
        self.credentials = service_account.Credentials.from_service_account_file(credentials_file, scopes=[SCOPE])  # type: ignore[no-untyped-call]
        self.project = self.credentials.project_id
        if not self.project:
            raise ValueError(f"{credentials_file} names no project_id (RED7_FCM_CREDENTIALS)")
        self.endpoint = endpoint.rstrip("/")
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"{self.endpoint}/v1/projects/{urllib.parse.quote(self.project, safe='')}/messages:send"

    def access_token(self, timeout: float = 5.0) -> str:
        """A valid access token: the one held, or a new one from the token endpoint (one refresh at a time)."""
        with self._lock:
            if not self.credentials.valid:
                self.credentials.refresh(_TimedRequest(timeout))
            return str(self.credentials.token)

    def send(self, token: str, message: FcmMessage, *, timeout: float = 5.0) -> int:
        """Send to one device; FCM's status.  Raises :class:`DeviceGone`, :class:`FcmRefused`, or ``OSError`` /
        ``urllib.error.HTTPError`` on what a retry may mend (429, 5xx, a timeout)."""
        data = json.dumps(message_body(token, message), separators=(",", ":")).encode()
        headers = {
            "Authorization": f"Bearer {self.access_token(timeout)}",
            "Content-Type": "application/json; charset=utf-8",
            "User-Agent": "red7-push/1",
        }
        request = urllib.request.Request(self.url, data=data, method="POST", headers=headers)
        try:
            with _opener.open(request, timeout=timeout) as answer:
                answer.read(65536)
                return int(answer.status)
        except urllib.error.HTTPError as error:
            detail = error.read(65536).decode("utf-8", "replace")
            if error.code == 404 or "UNREGISTERED" in detail:
                raise DeviceGone(detail[:200]) from None
            if error.code == 401:
                with self._lock:
                    self.credentials.token = None  # refreshed by the retry
            if 400 <= error.code < 500 and error.code not in (401, 408, 429):
                raise FcmRefused(f"{error.code}: {detail[:200]}") from None
            raise


class _TimedRequest(google.auth.transport.requests.Request):
    """google-auth's requests transport with a timeout on the token request (it has none by default)."""

    def __init__(self, timeout: float) -> None:
        super().__init__()
        self.timeout = timeout

    def __call__(
        self, url: str, method: str = "GET", body: Any = None, headers: Any = None, timeout: Any = None, **kwargs: Any
    ) -> Any:
        return super().__call__(url, method=method, body=body, headers=headers, timeout=timeout or self.timeout, **kwargs)  # type: ignore[no-untyped-call]
