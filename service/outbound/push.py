"""Sending a web push (RFC 8030): encrypted for the subscription (RFC 8291, aes128gcm), signed for this server (RFC 8292,
VAPID), to a public address only (unless allowed), with no redirects.

pywebpush encrypts (``WebPusher.encode``: http-ece under it) and py-vapid signs; the request itself goes through
:func:`service.outbound.webhooks.post`, so that a push endpoint (whatever a browser said, like a webhook URL is whatever a player
typed) meets the same rules against private addresses and DNS rebinding (``RED7_WEBHOOK_PRIVATE_HOSTS``).

RFC 8030's headers say what the message is worth: ``TTL`` (how long the push service keeps it for a device that is
away: the time left to act), ``Urgency`` (``high`` in the last hour), ``Topic`` (the game: a newer message replaces one
still pending, so a device that wakes up gets the latest news of each game, not a backlog).
"""

from __future__ import annotations

import time
import urllib.parse
import urllib.request
from typing import Any

from py_vapid import Vapid02
from pywebpush import WebPusher

from service.outbound import webhooks

#: How long a VAPID signature is good for (seconds): RFC 8292 allows up to a day.
SIGNATURE_SECONDS = 12 * 3600


class SubscriptionGone(Exception):
    """The push service answered 404 or 410: the subscription is gone for good (the browser dropped it)."""


def vapid_headers(private_key: str, subject: str, endpoint: str, now: float | None = None) -> dict[str, str]:
    """``Authorization: vapid t=<JWT ES256>,k=<public key>`` for the endpoint's origin."""
    parts = urllib.parse.urlsplit(endpoint)
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    claims: dict[str, Any] = {
        "aud": f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}",  # the origin: no user or password
        "sub": subject,
        "exp": int((now or time.time()) + SIGNATURE_SECONDS),
    }
    signed: dict[str, str] = Vapid02.from_string(private_key).sign(claims)
    return signed


def send(
    subscription: dict[str, Any],
    payload: bytes,
    *,
    private_key: str,
    subject: str,
    ttl: int,
    urgency: str = "normal",
    topic: str | None = None,
    private_hosts: bool = False,
    timeout: float = 5.0,
    connect_timeout: float | None = None,
) -> int:
    """Push ``payload`` (at most 4,096 bytes once encrypted: RFC 8291) to one subscription; the push service's status.

    Raises :class:`SubscriptionGone` on 404 or 410, :class:`~service.outbound.webhooks.UndeliverableWebhook` on what no retry
    mends (another 4xx, a private address), and ``OSError`` / ``urllib.error.HTTPError`` on what one may.
    """
    endpoint = str(subscription["endpoint"])
    address = webhooks.check_destination(endpoint, private_hosts=private_hosts)  # before anything is signed for it
    body = WebPusher(subscription).encode(payload, "aes128gcm")["body"]
    headers = {
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(max(0, int(ttl))),
        "Urgency": urgency,
        "User-Agent": "red7-push/1",
        **vapid_headers(private_key, subject, endpoint),
    }
    if topic:
        headers["Topic"] = topic
    request = urllib.request.Request(endpoint, data=body, method="POST", headers=headers)
    try:
        return webhooks.post(
            request, private_hosts=private_hosts, timeout=timeout, connect_timeout=connect_timeout, address=address
        )
    except webhooks.UndeliverableWebhook as refused:
        if refused.status in (404, 410):
            raise SubscriptionGone(str(refused)) from None
        raise
