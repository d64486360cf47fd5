"""Web push: the key a browser subscribes with, and its subscription as sent and as kept; a native app's device."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.base import Strict


class PushKeysSchema(Strict):
    p256dh = fields.String(required=True, validate=validate.Length(1, 200))
    auth = fields.String(required=True, validate=validate.Length(1, 100))


class PushSubscriptionCreateSchema(Strict):
    """A browser's ``PushSubscription.toJSON()``."""

    endpoint = fields.String(required=True, validate=validate.Length(1, 2048), metadata={"example": "https://push.example/abc"})
    keys = fields.Nested(PushKeysSchema, required=True)
    expirationTime = fields.Float(allow_none=True, metadata={"description": "ignored (as browsers send it)"})


class PushKeySchema(Schema):
    public_key = fields.String(
        required=True,
        metadata={
            "description": "the application server key (VAPID, P-256, base64url): PushManager.subscribe's applicationServerKey",
            "example": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U",
        },
    )


class PushSubscriptionSchema(Schema):
    endpoint = fields.String(required=True)
    created_at = fields.String(required=True)


class PushDeviceCreateSchema(Strict):
    """A native app's registration: FCM's registration token (``FirebaseMessaging.getToken()``)."""

    platform = fields.String(required=True, validate=validate.OneOf(["fcm"]), metadata={"example": "fcm"})
    token = fields.String(
        required=True,
        validate=[
            validate.Length(1, 4096),
            validate.Regexp(r"^[A-Za-z0-9_:.\-]+$", error="a registration token: letters, digits, _ : . or -"),
        ],
        metadata={"description": "the device's registration token (FCM: about 160 characters)", "example": "dQw4w9WgXcQ:APA91bH"},
    )


class PushDeviceSchema(Schema):
    id = fields.String(required=True, metadata={"description": "the device's id: deletePushDevice takes it"})
    platform = fields.String(required=True)
    created_at = fields.String(required=True)
