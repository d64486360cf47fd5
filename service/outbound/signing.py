"""A webhook's signature: how a receiver knows a notice came from this server, and when it was sent.

The body is signed with the player's webhook secret, over the timestamp and the body together, so that a notice
replayed later, or with another body, does not verify (docs/live-feeds.md, "Webhooks").
"""

from __future__ import annotations

import hashlib
import hmac
import time
import urllib.request

SIGNATURE_HEADER = "X-Red7-Signature"
TIMESTAMP_HEADER = "X-Red7-Timestamp"


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The webhook signature: HMAC-SHA256 over ``"<timestamp>.<body>"``, hex, prefixed ``v1=``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


def signed_post(url: str, secret: str, body: bytes) -> urllib.request.Request:
    """The POST of ``body`` to ``url``, stamped with the time now and signed with ``secret``."""
    timestamp = str(int(time.time()))
    return urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "red7-webhooks/1",
            TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(secret, timestamp, body),
        },
    )
