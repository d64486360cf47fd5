"""A push service of the tests' own, on loopback: it decrypts what it is sent and checks who signed it.

It plays what a browser's push service does with a Web Push (RFC 8030): it takes the POST at the subscription's
endpoint, checks the VAPID signature (RFC 8292: a JWT, ES256, with the public key beside it, for this origin) and
decrypts the body with the subscription's private key and auth secret (RFC 8291, aes128gcm), as the browser would.
Each endpoint answers what the test says (201; 410: gone for good; or it hangs).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from tests.harness.log_secrets import register
from tests.harness.loopback import LoopbackServer


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class Device:
    """A browser's subscription: its endpoint, and the keys only the browser holds."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        """``PushSubscription.toJSON()``."""
        point = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        keys = {"p256dh": register(b64url(point)), "auth": register(b64url(self.auth))}  # no log line may hold them
        return {"endpoint": self.endpoint, "expirationTime": None, "keys": keys}


@dataclass
class Received:
    at: float
    device: str
    message: dict[str, Any]
    headers: dict[str, str]  # names in lower case


class PushService:
    """``/push/<device>`` endpoints on a loopback port; ``answers[device]``: the status to give (``None``: hang)."""

    def __init__(self, server_key: str) -> None:
        self.server_key = server_key  # the VAPID public key signatures must carry
        self.devices: dict[str, Device] = {}
        self.answers: dict[str, int | None] = {}
        self.received: list[Received] = []
        self.refused: list[str] = []
        self.stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                name = self.path.rsplit("/", 1)[-1]
                status = outer.answers.get(name, 201)
                if status is None:
                    outer.stop.wait(120)
                    return
                if status < 300:
                    problem = outer.check(name, {k.lower(): v for k, v in self.headers.items()}, body)
                    if problem:
                        outer.refused.append(problem)
                        status = 400
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = LoopbackServer(Handler, "push-service")

    @property
    def base(self) -> str:
        return self.server.base

    def device(self, name: str) -> Device:
        self.devices[name] = Device(f"{self.base}/push/{name}")
        return self.devices[name]

    def check(self, name: str, headers: dict[str, str], body: bytes) -> str | None:
        """Verify the VAPID signature and decrypt; the message is kept, or what is wrong is said."""
        auth = headers.get("authorization", "")
        if not auth.startswith("vapid ") or not Vapid02.verify(auth):
            return f"{name}: no valid VAPID signature: {auth[:40]}"
        parts = dict(part.split("=", 1) for part in auth[len("vapid ") :].split(","))
        if parts["k"] != self.server_key:
            return f"{name}: signed with another key"
        claims = json.loads(base64.urlsafe_b64decode(parts["t"].split(".")[1] + "=="))
        if claims["aud"] != self.base or claims["exp"] < time.time():
            return f"{name}: the claims are for {claims['aud']}, until {claims['exp']}"
        if headers.get("content-encoding") != "aes128gcm":
            return f"{name}: not aes128gcm"
        device = self.devices[name]
        plain = http_ece.decrypt(body, private_key=device.key, auth_secret=device.auth, version="aes128gcm")
        self.received.append(Received(time.time(), name, json.loads(plain), headers))
        return None

    def close(self) -> None:
        self.stop.set()
        self.server.close()
