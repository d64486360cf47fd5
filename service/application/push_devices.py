"""Native push devices, as a request may ask for them: a registration token kept for the player, or dropped.

A device is one per registration token (an app on a phone): registered again, it replaces its entry.  A player has
at most :data:`MAX_DEVICES` (an app registers one; a player has a few phones, not dozens; each costs a request per
notice).  Only ``fcm`` exists as a platform (FCM also reaches iOS, through APNs); a server without
``RED7_FCM_CREDENTIALS`` takes no device (``fcm_not_configured``), so an app knows to fall back on other means.
"""

from __future__ import annotations

from collections.abc import Callable

from service.application.commands import utc_now
from service.common.errors import NotFound, Refused
from service.outbound.fcm import Fcm
from service.storage.push_devices import Device, PushDevices

__all__ = ["MAX_DEVICES", "PLATFORMS", "Device", "PushDeviceService"]

#: The devices a player may have at once.
MAX_DEVICES = 10
#: The platforms a device may be registered with.
PLATFORMS = ("fcm",)


class PushDeviceService:
    """Each player's devices, and the FCM sender (``None``: this server sends no native push)."""

    def __init__(self, store: PushDevices, fcm: Fcm | None = None, *, clock: Callable[[], str] = utc_now) -> None:
        self.store, self.fcm, self.clock = store, fcm, clock

    def register(self, player_id: str, platform: str, token: str) -> Device:
        """The device, replacing the entry of the same token; ``push_device_limit_reached`` past :data:`MAX_DEVICES`."""
        if self.fcm is None:
            raise NotFound(
                "fcm_not_configured", "This server has no FCM service account (RED7_FCM_CREDENTIALS): it sends no native push."
            )
        device = Device(platform, token, self.clock())
        if not self.store.has(player_id, device.id) and self.store.count(player_id) >= MAX_DEVICES:
            raise Refused(
                "push_device_limit_reached",
                f"A player may register {MAX_DEVICES} devices: delete one first (deletePushDevice).",
                limit=MAX_DEVICES,
            )
        self.store.put(player_id, device)
        return device

    def delete(self, player_id: str, id_: str) -> None:
        if not self.store.delete(player_id, id_):
            raise NotFound("push_device_not_found", "You have no push device with this id.")

    def devices(self, player_id: str) -> list[Device]:
        """The player's devices, where a native push goes (none when this server sends none)."""
        return list(self.store.of(player_id).values()) if self.fcm is not None else []

    def gone(self, player_id: str, device: Device) -> None:
        """FCM said this token is no longer registered: it is forgotten."""
        self.store.delete(player_id, device.id)

    def has(self, player_id: str) -> bool:
        return self.fcm is not None and self.store.count(player_id) > 0

    def on_account_deleted(self, player_id: str) -> None:
        self.store.forget(player_id)
