"""Native push: a phone app's device (its FCM registration token) registered for the player, or deleted."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.push_devices import PushDeviceService
from service.http.auth import current_player
from service.http.common import NO_STORE, TOKEN, documented_errors, json_response, red7_runtime, response_headers, v1
from service.http.examples import example
from service.http.schemas import PushDeviceCreateSchema, PushDeviceSchema


def _devices() -> PushDeviceService:
    native = red7_runtime().push.native
    assert native is not None, "the runtime always makes the native devices' service (service/runtime.py)"
    return native


@v1.route("/players/me/push-devices")
class PushDevices(MethodView):
    @documented_errors(400, 401, 404, 409, 413, 415, 422, 429)
    @v1.arguments(PushDeviceCreateSchema(), example=example("PushDeviceCreate"))
    @v1.response(201, PushDeviceSchema, headers=response_headers("Location"), example=example("PushDevice"))
    @v1.doc(operationId="createPushDevice", security=TOKEN)
    def post(self, body: dict[str, Any]) -> Response:
        """Register a native app's device for pushes: platform `fcm` and its registration token.

        The same notices as web push come to it through Firebase Cloud Messaging (which reaches iOS through APNs), in
        your language: your turn, the reminders, matches found, challenges, rematches and game ends. Each carries the
        game (or challenge) as its collapse key (`android.collapse_key`, `apns-collapse-id`: a newer one replaces one
        still pending), the time left to act as its lifetime (`android.ttl`, `apns-expiration`) and high priority in the
        last hour; its `data` holds the notice's members as strings. One entry per token: registering it again
        replaces it; at most ten devices (409 `push_device_limit_reached`). A token FCM answers UNREGISTERED for is
        forgotten. 404 `fcm_not_configured` when this server sends no native push.
        """
        made = _devices().register(current_player().id, body["platform"], body["token"])
        headers = {"Location": f"/v1/players/me/push-devices/{made.id}", **NO_STORE}
        return json_response({"id": made.id, "platform": made.platform, "created_at": made.created_at}, 201, headers)


@v1.route("/players/me/push-devices/<string:device_id>")
class PushDevice(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(204, description="Deleted: this device gets no more native pushes")
    @v1.doc(operationId="deletePushDevice", security=TOKEN)
    def delete(self, device_id: str) -> Response:
        """Delete a device (its id from createPushDevice): it gets no more native pushes. 404 `push_device_not_found`
        when you have none with this id (another player's device is none of yours)."""
        _devices().delete(current_player().id, device_id)
        return Response(status=204, mimetype=None)
