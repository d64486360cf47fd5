"""Web push subscriptions, as a request may ask for them: the server's key, a device's subscription made or dropped.

A subscription is one per token (a device: a browser profile, an app): made again, it replaces the one the device had.
Its endpoint is checked here by the rule every send checks it with again (``service/outbound/push.py``), the one rule of
:mod:`service.outbound.destinations`: an https URL of a public host, its name resolved now (http, and addresses that are not
public, only where ``RED7_WEBHOOK_PRIVATE_HOSTS`` allows them).  The pushes themselves are sent by the workers, on a
queue of their own (``workers/jobs.py``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.application.commands import utc_now
from service.application.push_devices import PushDeviceService
from service.common.errors import NotFound, Refused
from service.outbound.destinations import Destinations, UnsafeDestination
from service.storage.push import PushSubscriptions, Subscription

__all__ = ["PushService", "Subscription", "new_vapid_key", "public_key_of"]

#: The longest endpoint taken (push services' URLs are a few hundred characters).
ENDPOINT_LENGTH = 2048


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_vapid_key() -> str:
    """A new VAPID private key: a P-256 key, raw (32 bytes), base64url."""
    key = ec.generate_private_key(ec.SECP256R1())
    return _b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def public_key_of(private_key: str) -> str:
    """The application server key browsers subscribe with (``applicationServerKey``): the uncompressed P-256 point,
    base64url."""
    raw = _unb64url(private_key)
    if len(raw) != 32:
        raise ValueError("a VAPID private key is 32 bytes, base64url (RED7_VAPID_PRIVATE_KEY)")
    key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return _b64url(point)


class PushService:
    """The server's key and each device's subscription."""

    def __init__(
        self,
        store: PushSubscriptions,
        private_key: str = "",
        *,
        private_hosts: bool = False,
        clock: Callable[[], str] = utc_now,
        native: PushDeviceService | None = None,
    ) -> None:
        self.store = store
        self.native = native  # the native apps' devices (FCM), beside the browsers' subscriptions
        self.public_key = public_key_of(private_key) if private_key else None
        self.private_hosts = private_hosts
        self.clock = clock

    def key(self) -> str:
        """The application server key; ``push_not_configured`` when this server sends no push."""
        if self.public_key is None:
            raise NotFound("push_not_configured", "This server has no VAPID key (RED7_VAPID_PRIVATE_KEY): it sends no web push.")
        return self.public_key

    def subscribe(self, player_id: str, device: str, endpoint: str, p256dh: str, auth: str) -> Subscription:
        """The device's subscription, replacing the one it had."""
        self.key()
        try:
            point, secret = _unb64url(p256dh), _unb64url(auth)
        except (ValueError, TypeError):
            point = secret = b""
        if len(point) != 65 or point[0] != 4 or len(secret) != 16:
            raise Refused(
                "invalid_request",
                "keys.p256dh is a P-256 point (65 bytes) and keys.auth 16 bytes, base64url: "
                "as PushSubscription.toJSON() gives them.",
                errors=[{"field": "keys", "message": "not a subscription's keys", "location": "json"}],
            )
        self._check(endpoint)  # after what costs nothing: it may ask DNS
        subscription = Subscription(endpoint, p256dh, auth, self.clock())
        self.store.put(player_id, device, subscription)
        return subscription

    def unsubscribe(self, player_id: str, device: str) -> None:
        if not self.store.delete(player_id, device):
            raise NotFound("push_subscription_not_found", "This token (device) has no push subscription.")

    def subscription(self, player_id: str, device: str) -> Subscription | None:
        return self.store.get(player_id, device)

    def devices(self, player_id: str) -> dict[str, Subscription]:
        """Every device's subscription of the player, by device: where a push to them goes."""
        return self.store.of(player_id)

    def gone(self, player_id: str, endpoint: str) -> None:
        """A push service said this endpoint is gone: its subscriptions are forgotten."""
        self.store.drop_endpoint(player_id, endpoint)

    def has(self, player_id: str) -> bool:
        """Whether a push reaches the player: a browser's subscription (with a VAPID key) or a native device (with FCM)."""
        if self.native is not None and self.native.has(player_id):
            return True
        return self.public_key is not None and self.store.count(player_id) > 0

    def on_account_deleted(self, player_id: str) -> None:
        self.store.forget(player_id)
        if self.native is not None:
            self.native.on_account_deleted(player_id)

    def _check(self, endpoint: str) -> None:
        """An https URL (http too where private hosts are allowed) of a public host, by the rule every send checks it
        with again (:mod:`service.outbound.destinations`: every spelling of a private address, local names, and a name
        resolved now, to public addresses only)."""
        wanted = ("https", "http") if self.private_hosts else ("https",)
        try:
            if len(endpoint) > ENDPOINT_LENGTH:
                raise UnsafeDestination("not_a_url", f"the endpoint is longer than {ENDPOINT_LENGTH} characters")
            Destinations(self.private_hosts).check(endpoint, wanted)
        except UnsafeDestination as refused:
            raise Refused(
                "push_endpoint_refused",
                f"The endpoint must be a public {' or '.join(wanted)} URL of at most {ENDPOINT_LENGTH} characters: {refused}.",
                reason=refused.reason,
                errors=[{"field": "endpoint", "message": str(refused), "location": "json"}],
            ) from None
