"""Web push: the server's key, and each device's subscription (one per token), so that a browser hears of a turn."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.players import hash_token
from service.http.auth import bearer_token, current_player
from service.http.common import (
    NO_STORE,
    PUBLIC,
    TOKEN,
    documented_errors,
    json_response,
    red7_runtime,
    response_headers,
    v1,
)
from service.http.examples import example
from service.http.schemas import PushKeySchema, PushSubscriptionCreateSchema, PushSubscriptionSchema


@v1.route("/push/key")
class PushKey(MethodView):
    @documented_errors(404, 429)
    @v1.response(200, PushKeySchema, example=example("PushKey"))
    @v1.doc(operationId="getPushKey", security=PUBLIC)
    def get(self) -> Response:
        """The application server key (VAPID) a browser subscribes with (`PushManager.subscribe`'s
        `applicationServerKey`). 404 `push_not_configured` when this server sends no web push."""
        return json_response({"public_key": red7_runtime().push.key()}, 200, {"Cache-Control": "no-cache"})


@v1.route("/players/me/push-subscription")
class PushSubscriptionResource(MethodView):
    @documented_errors(400, 401, 404, 413, 415, 422, 429)
    @v1.arguments(PushSubscriptionCreateSchema(), example=example("PushSubscriptionCreate"))
    @v1.response(201, PushSubscriptionSchema, headers=response_headers("Location"), example=example("PushSubscription"))
    @v1.doc(operationId="createPushSubscription", security=TOKEN)
    def post(self, body: dict[str, Any]) -> Response:
        """Subscribe this device (the token of the request) to web pushes: give `PushSubscription.toJSON()`.

        One subscription per token: subscribing again replaces it. Pushes come for your turn, the reminders (a fifth of
        a correspondence turn left, one hour left), matches found, challenges, rematches and game ends; each is
        encrypted for the subscription (aes128gcm), signed with the server's VAPID key, its `Topic` the game (a newer
        one replaces one still pending), its `TTL` the time left to act, its `Urgency` high in the last hour. An endpoint
        its push service answers 404 or 410 for is forgotten. The endpoint must be an https URL of a public host (422
        `push_endpoint_refused`, with a `reason`: `not_a_url`; `not_public`, an address that is loopback, private,
        link-local or carries one, in any spelling, or a name local by definition or resolving to such an address;
        `unresolvable`), checked when it is saved and again at every push.
        """
        player = current_player()
        keys = body["keys"]
        made = red7_runtime().push.subscribe(player.id, _device(), body["endpoint"], keys["p256dh"], keys["auth"])
        headers = {"Location": "/v1/players/me/push-subscription", **NO_STORE}
        return json_response({"endpoint": made.endpoint, "created_at": made.created_at}, 201, headers)

    @documented_errors(401, 404, 429)
    @v1.response(204, description="Unsubscribed: this device gets no more web pushes")
    @v1.doc(operationId="deletePushSubscription", security=TOKEN)
    def delete(self) -> Response:
        """Unsubscribe this device (the token of the request) from web pushes."""
        red7_runtime().push.unsubscribe(current_player().id, _device())
        return Response(status=204, mimetype=None)


def _device() -> str:
    """The device a request comes from: its token, known by its digest."""
    return hash_token(bearer_token() or "")
