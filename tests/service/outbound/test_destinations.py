"""Where a player's URL may send the workers (service/outbound/destinations.py): refused when saved, with its code and reason,
in every spelling of an address that is not public, and refused again at delivery (issue 34, item 5).

The API here runs as production does: private hosts not allowed (``RED7_WEBHOOK_PRIVATE_HOSTS`` off).  DNS is stood in
for by a table (``socket.getaddrinfo`` replaced): a test depends on no network, and a name can move between the save
and the delivery.
"""

from __future__ import annotations

import base64
import ipaddress
import socket

import fakeredis
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.application.push import new_vapid_key
from service.http.app import create_app
from service.outbound import push as web_push
from service.outbound import webhooks
from service.outbound.destinations import Destinations, UnsafeDestination, literal_address
from service.runtime import build_runtime
from tests.harness.support import Api, settings_for
from workers import context, jobs

#: Every spelling the attack on the production shape got accepted (issue 34), and the rest of each family.
NOT_PUBLIC = [
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://localhost./hook",
    "http://LOCALHOST/hook",
    "http://foo.localhost/hook",
    "http://printer.local/hook",
    "http://db.internal/hook",
    "http://router.home.arpa/hook",
    "http://[::1]/hook",
    "http://[::]/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://10.0.0.1/hook",
    "http://172.16.0.1/hook",
    "http://192.168.1.1/hook",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://0/hook",
    "http://2130706433/hook",
    "http://0x7f000001/hook",
    "http://0x7F.0.0.1/hook",
    "http://0177.0.0.1/hook",
    "http://017700000001/hook",
    "http://127.1/hook",
    "http://127.0.1/hook",
    "http://127.0.0.1./hook",
    "http://１２７.０.０.１/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[::ffff:7f00:1]/hook",
    "http://[::ffff:a9fe:a9fe]/hook",
    "http://[64:ff9b::7f00:1]/hook",
    "http://[64:ff9b::a00:1]/hook",
    "http://[2002:7f00:1::1]/hook",
    "http://[::127.0.0.1]/hook",
    "http://[fe80::1]/hook",
    "http://[fe80::1%25eth0]/hook",
    "http://[fd00::1]/hook",
    "http://[fec0::1]/hook",
    "http://user:pass@127.0.0.1/hook",
    "http://example.com@127.0.0.1/hook",
]
#: Not URLs of a host the service would call.
NOT_A_URL = [
    "ftp://hooks.example.com/",
    "hooks.example.com/hook",
    "http:///hook",
    "http://hooks..example.com/",
    "http://1.2.3.256/",
    "http://127.0.0.1\\@hooks.example.com/",
    "http://hooks.example.com/a b",
    "http://[zz]/",
    "http://hooks.example.com:99999/",
]

#: The stand-in DNS: names and the addresses they resolve to now (none: the name does not exist).
PUBLIC_ADDRESS = "93.184.215.14"


class Dns:
    def __init__(self) -> None:
        self.names: dict[str, list[str]] = {
            "hooks.example.com": [PUBLIC_ADDRESS],
            "push.example.com": [PUBLIC_ADDRESS, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
            "intranet.example.com": ["10.1.2.3"],
            "split.example.com": [PUBLIC_ADDRESS, "127.0.0.1"],  # one public answer does not make the others so
            "mapped.example.com": ["::ffff:10.0.0.1"],
        }
        self.asked: list[str] = []
        self.real = socket.getaddrinfo

    def __call__(self, host, port, *args, **kwargs):
        try:
            ipaddress.ip_address(host)
            return self.real(host, port, *args, **kwargs)  # an address (a Redis's): no name to look up
        except ValueError:
            pass
        self.asked.append(host)
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        out = []
        for address in self.names[host]:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
            out.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
        return out


@pytest.fixture
def dns(monkeypatch) -> Dns:
    table = Dns()
    monkeypatch.setattr(socket, "getaddrinfo", table)
    return table


def _api(key_prefix: str, **settings: object) -> Api:
    """An API on a fakeredis of its own (a fuzzer of addresses, not of the stores), push on."""
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    runtime = build_runtime(settings_for(key_prefix, vapid_private_key=new_vapid_key(), **settings), clients=clients)
    return Api(create_app(runtime), runtime)


@pytest.fixture
def production(key_prefix, dns) -> Api:
    """The API as production runs it: private hosts refused."""
    return _api(key_prefix, webhook_private_hosts=False)


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


#: A browser's subscription keys (a P-256 point and 16 bytes): only the endpoint is at stake here.
_POINT = ec.generate_private_key(ec.SECP256R1()).public_key()
KEYS = {
    "p256dh": _b64url(_POINT.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)),
    "auth": _b64url(bytes(range(16))),
}


def _subscription(endpoint: str) -> dict:
    """A browser's PushSubscription.toJSON()."""
    return {"endpoint": endpoint, "keys": KEYS}


def _save_webhook(api: Api, token: str, url: str):
    return api.call("PATCH", "/v1/players/me", token, json={"webhook_url": url})


def _save_push(api: Api, token: str, url: str):
    endpoint = url.replace("http://", "https://", 1) if url.startswith("http://") else url
    return api.call("POST", "/v1/players/me/push-subscription", token, json=_subscription(endpoint))


SAVES = {"webhook_url": (_save_webhook, "webhook_url_refused"), "push": (_save_push, "push_endpoint_refused")}


def _refused(response, code: str, reason: str) -> None:
    body = response.get_json()
    assert response.status_code == 422, body
    assert (body["code"], body["reason"]) == (code, reason), body
    assert body["errors"][0]["field"] in ("webhook_url", "endpoint")


# --- at save ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", SAVES)
@pytest.mark.parametrize("url", NOT_PUBLIC)
def test_every_spelling_of_an_address_that_is_not_public_is_refused_at_save(production, dns, field, url):
    save, code = SAVES[field]
    token = production.player("Ana")["token"]
    _refused(save(production, token, url), code, "not_public")
    assert dns.asked == []  # an address spelt out, or a name local by definition: DNS is not asked
    assert production.call("GET", "/v1/players/me", token).get_json()["webhook_url"] is None


@pytest.mark.parametrize("field", SAVES)
@pytest.mark.parametrize("url", NOT_A_URL)
def test_what_is_not_a_url_of_a_host_is_refused_at_save(production, field, url):
    save, code = SAVES[field]
    token = production.player("Ana")["token"]
    response = save(production, token, url)
    body = response.get_json()
    assert response.status_code == 422 and body["code"] in (code, "invalid_request"), body
    if body["code"] == code:
        assert body["reason"] == "not_a_url", body


@pytest.mark.parametrize("field", SAVES)
def test_names_are_resolved_at_save_and_must_resolve_to_public_addresses_only(production, dns, field):
    save, code = SAVES[field]
    token = production.player("Ana")["token"]
    for name in ("intranet.example.com", "split.example.com", "mapped.example.com"):
        _refused(save(production, token, f"https://{name}/hook"), code, "not_public")
    refused = save(production, token, "https://nowhere.example.com/hook")
    _refused(refused, code, "unresolvable")
    assert "10.1.2.3" not in str(production.responses[-4][1].get_json())  # the network's addresses are not told
    assert save(production, token, "https://hooks.example.com/hook").status_code in (200, 201)
    assert save(production, token, "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook").status_code in (200, 201)
    assert save(production, token, f"https://{PUBLIC_ADDRESS}/hook").status_code in (200, 201)


def test_the_embedded_run_keeps_its_private_host_switch(key_prefix, dns):
    """``RED7_WEBHOOK_PRIVATE_HOSTS`` (on for the embedded server): a receiver on the developer's machine is taken,
    and a save asks no DNS."""
    api = _api(key_prefix, webhook_private_hosts=True)
    token = api.player("Ana")["token"]
    for url in ("http://127.0.0.1:8080/hook", "http://localhost/hook", "http://2130706433/", "http://nowhere.lan/"):
        assert _save_webhook(api, token, url).status_code == 200, url
        assert api.call("POST", "/v1/players/me/push-subscription", token, json=_subscription(url)).status_code == 201
    assert dns.asked == []
    assert _save_webhook(api, token, "ftp://x/").get_json()["reason"] == "not_a_url"  # the shape still counts


# --- at delivery -----------------------------------------------------------------------------------------------


def test_a_name_that_resolves_elsewhere_by_the_delivery_is_refused_then(production, dns, monkeypatch):
    """Resolved at save (public then) and again at delivery: DNS that now answers a private address stops it there,
    before any connection."""
    token = production.player("Ana")["token"]
    me = _save_webhook(production, token, "https://hooks.example.com/hook").get_json()
    dns.names["hooks.example.com"] = ["10.0.0.7"]
    connections: list[tuple] = []
    monkeypatch.setattr(socket, "create_connection", lambda *args, **kwargs: connections.append(args))
    with context.installed(production.runtime), pytest.raises(jobs.PermanentJobError, match="not a public address"):
        jobs.notify("g_x", 1, me["id"], "your_turn")
    assert connections == []


@pytest.mark.parametrize("url", NOT_PUBLIC)
def test_delivery_refuses_every_spelling_too(url, dns):
    """The workers check with the same rule: a URL saved before the save checked it is refused when delivered."""
    with pytest.raises(webhooks.UndeliverableWebhook):
        webhooks.check_destination(url, private_hosts=False)
    with pytest.raises(webhooks.UndeliverableWebhook):
        web_push.send(
            _subscription(url.replace("http://", "https://", 1)),
            b"{}",
            private_key=new_vapid_key(),
            subject="mailto:ops@example.com",
            ttl=60,
        )


# --- the rule's parts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("0", "0.0.0.0"),
        ("0x", "0.0.0.0"),
        ("8.8.8.8", "8.8.8.8"),
        ("3232235777", "192.168.1.1"),
        ("::1", "::1"),
        ("hooks.example.com", None),
        ("1x.example", None),
    ],
)
def test_a_host_that_ends_in_a_number_is_read_as_a_browser_reads_it(host, address):
    found = literal_address(host)
    assert (None if found is None else found) == (None if address is None else ipaddress.ip_address(address))


@pytest.mark.parametrize("host", ["1.2.3.256", "256.1.1.1", "1.2.3.4.5", "09.1.1.1", "1.0x100.0.0"])
def test_a_host_that_ends_in_a_number_but_is_no_ipv4_address_is_refused(host):
    with pytest.raises(UnsafeDestination) as refused:
        literal_address(host)
    assert refused.value.reason == "not_a_url"


def test_public_destinations_pass_and_give_the_address_to_connect_to(dns):
    rule = Destinations()
    assert rule.address("https://hooks.example.com/hook") == PUBLIC_ADDRESS
    assert rule.address("https://[64:ff9b::5db8:d80e]/") == "64:ff9b::5db8:d80e"  # NAT64 of a public address
    assert rule.address(f"http://{int(ipaddress.IPv4Address(PUBLIC_ADDRESS))}/") == PUBLIC_ADDRESS
    with pytest.raises(OSError):  # at delivery, a name that does not resolve now is worth a retry
        rule.address("https://nowhere.example.com/")
