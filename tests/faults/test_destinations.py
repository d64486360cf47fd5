"""Addresses as production checks them: gunicorn with no private-host switch (``RED7_WEBHOOK_PRIVATE_HOSTS`` unset),
a VAPID key, redis-server.  Every spelling of a loopback, private or link-local address the attack got accepted with
200 (issue 34) is refused when saved, as a webhook URL and as a push endpoint, each with its code and reason."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.application.push import new_vapid_key
from tests.harness.deployment import Client
from tests.service.outbound.test_destinations import _b64url

#: What the attack saved with 200 (webhook_url, then push endpoints), and their neighbours.
SPELLINGS = [
    "127.0.0.1:8080",
    "localhost",
    "[::1]",
    "169.254.169.254",
    "10.0.0.1",
    "2130706433",
    "0x7f000001",
    "127.1",
    "0177.0.0.1",
    "localhost.",
    "foo.localhost",
    "127.0.0.1.",
    "[64:ff9b::7f00:1]",
    "[::ffff:127.0.0.1]",
    "0.0.0.0",
]


def test_every_spelling_of_a_private_address_is_refused_when_saved_in_production(deployment):
    base = deployment.api(RED7_VAPID_PRIVATE_KEY=new_vapid_key())
    ana = Client(base).sign_up("Ana")
    point = ec.generate_private_key(ec.SECP256R1()).public_key()
    keys = {
        "p256dh": _b64url(point.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)),
        "auth": _b64url(bytes(16)),
    }
    for host in SPELLINGS:
        hook = ana.json("PATCH", "/players/me", expect=422, json={"webhook_url": f"http://{host}/hook"})
        assert (hook["code"], hook["reason"]) == ("webhook_url_refused", "not_public"), (host, hook)
        push = ana.json(
            "POST", "/players/me/push-subscription", expect=422, json={"endpoint": f"https://{host}/push", "keys": keys}
        )
        assert (push["code"], push["reason"]) == ("push_endpoint_refused", "not_public"), (host, push)
    me = ana.json("GET", "/players/me")
    assert me["webhook_url"] is None
    assert not ana.server_errors()
