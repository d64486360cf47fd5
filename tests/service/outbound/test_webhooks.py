"""Where webhooks may go: public addresses only (unless allowed), whatever form the address takes, and only to the
address that was checked."""

from __future__ import annotations

import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from service.outbound import webhooks


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://[fd00::1]/",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::1]/",
        "http://[::127.0.0.1]/",
        "http://[fec0::1]/",
        "http://2130706433/",
        "http://0x7f000001/",
    ],
)
def test_private_and_loopback_destinations_are_undeliverable(url):
    with pytest.raises(webhooks.UndeliverableWebhook):
        webhooks.check_destination(url, private_hosts=False)
    webhooks.check_destination(url, private_hosts=True)


def test_public_addresses_and_odd_urls():
    webhooks.check_destination("https://93.184.216.34/hook", private_hosts=False)  # a public literal: no lookup
    webhooks.check_destination("https://[2606:2800:220:1:248:1893:25c8:1946]/", private_hosts=False)
    webhooks.check_destination("https://[64:ff9b::5db8:d822]/", private_hosts=False)  # NAT64 of a public address
    for url in ("ftp://example.org/", "http:///nohost", "http://[zz]/"):
        with pytest.raises(webhooks.UndeliverableWebhook):
            webhooks.check_destination(url, private_hosts=False)


class Rebinding:
    """A resolver whose first answer for ``hooks.example`` is ``first`` and every later one ``then`` (DNS rebinding)."""

    def __init__(self, first: str, then: str) -> None:
        self.answers = [first, then]
        self.lookups: list[str] = []
        self.real = socket.getaddrinfo

    def __call__(self, host, port, *args, **kwargs):
        if host != "hooks.example":
            return self.real(host, port, *args, **kwargs)
        self.lookups.append(host)
        address = self.answers[min(len(self.lookups), 2) - 1]
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]


def _post(url: str, *, private_hosts: bool = False) -> int:
    request = urllib.request.Request(url, data=b"{}", method="POST", headers={"Content-Type": "application/json"})
    return webhooks.post(request, private_hosts=private_hosts, timeout=2.0)


@pytest.mark.parametrize(("scheme", "port"), [("http", 80), ("https", 443)])
def test_the_connection_goes_to_the_address_that_was_checked(monkeypatch, scheme, port):
    """The check sees a public address; a second lookup would say 127.0.0.1: there must be no second lookup."""
    resolver = Rebinding("93.184.216.34", "127.0.0.1")
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    connections = []

    def refuse(address, *args, **kwargs):
        connections.append(address)
        raise ConnectionRefusedError("not in a test")

    monkeypatch.setattr(socket, "create_connection", refuse)
    with pytest.raises(urllib.error.URLError):
        _post(f"{scheme}://hooks.example/hook")
    assert connections == [("93.184.216.34", port)] and resolver.lookups == ["hooks.example"]


def test_https_to_the_checked_address_is_verified_against_the_host_name(monkeypatch):
    """The TLS handshake names the URL's host (SNI), and the certificate is checked against it, not against the address."""
    monkeypatch.setattr(socket, "getaddrinfo", Rebinding("93.184.216.34", "127.0.0.1"))
    opened: list[socket.socket] = []
    connections, names = [], []

    def connect(address, *args, **kwargs):
        connections.append(address)
        opened.append(socket.socket())
        return opened[-1]

    def handshake(context, sock, *args, server_hostname=None, **kwargs):
        names.append((server_hostname, context.check_hostname, context.verify_mode))
        raise ssl.SSLError("no handshake in a test")

    monkeypatch.setattr(socket, "create_connection", connect)
    monkeypatch.setattr(ssl.SSLContext, "wrap_socket", handshake)
    try:
        with pytest.raises(urllib.error.URLError):
            _post("https://hooks.example/hook")
    finally:
        for sock in opened:
            sock.close()
    assert connections == [("93.184.216.34", 443)] and names == [("hooks.example", True, ssl.CERT_REQUIRED)]


class _Receiver(BaseHTTPRequestHandler):
    hosts: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        _Receiver.hosts.append(self.headers["Host"])
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_a_pinned_delivery_reaches_the_checked_receiver_with_the_hosts_own_name(monkeypatch):
    """With private hosts allowed (RED7_WEBHOOK_PRIVATE_HOSTS), the receiver on 127.0.0.1 is what the lookup said
    first; 127.0.0.2, what it says next, listens to nothing.  The Host header still names the URL's host."""
    _Receiver.hosts = []
    server = HTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setattr(socket, "getaddrinfo", Rebinding("127.0.0.1", "127.0.0.2"))
        assert _post(f"http://hooks.example:{server.server_port}/hook", private_hosts=True) == 204
    finally:
        server.shutdown()
        server.server_close()
    assert _Receiver.hosts == [f"hooks.example:{server.server_port}"]


def test_a_delivery_waits_the_connect_timeout_to_connect_and_the_read_timeout_for_an_answer(monkeypatch):
    """Two settings (RED7_WEBHOOK_CONNECT_TIMEOUT, RED7_WEBHOOK_READ_TIMEOUT): a receiver that takes the connection
    and never answers is given up on after the read timeout, however long the connect timeout."""
    listener = socket.create_server(("127.0.0.1", 0))  # the kernel accepts; nobody ever answers
    real, timeouts = socket.create_connection, []

    def connect(address, timeout, *args):
        timeouts.append(timeout)
        return real(address, timeout, *args)

    monkeypatch.setattr(socket, "create_connection", connect)
    request = urllib.request.Request(f"http://127.0.0.1:{listener.getsockname()[1]}/hook", data=b"{}", method="POST")
    started = time.monotonic()
    try:
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            webhooks.post(request, private_hosts=True, timeout=0.3, connect_timeout=7.0)
    finally:
        listener.close()
    assert timeouts == [7.0] and time.monotonic() - started < 3.0
