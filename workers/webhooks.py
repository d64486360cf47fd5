"""Delivering a webhook: to a public address only (unless allowed), with no redirects.

A webhook URL is whatever a player typed, and the workers run inside the
deployment's network: without these checks a player could make them POST to
an internal service (SSRF).  Redirects are not followed for the same reason
(and because urllib would turn the POST into a GET without its body).
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.error
import urllib.parse
import urllib.request


class UndeliverableWebhook(Exception):
    """A webhook that cannot be delivered however often it is tried."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirects)


def check_destination(url: str, *, private_hosts: bool) -> None:
    """Refuse a URL whose host is not a public address (every address it resolves to is checked).

    A name that does not resolve now raises ``OSError``: DNS may be down, so
    that is worth a retry.
    """
    try:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UndeliverableWebhook(f"{url!r} is not an http(s) URL")
        host = parts.hostname.encode("idna").decode("ascii")
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except (UnicodeError, ValueError) as exc:
        raise UndeliverableWebhook(f"the host of {url!r} cannot be looked up: {exc}") from None
    if private_hosts:
        return
    for *_, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        host_address = address[0]
        assert isinstance(host_address, str)  # an IPv4 or IPv6 address: (host, port, ...) with the host as text
        ip = ipaddress.ip_address(host_address.split("%")[0])
        if not _is_public(ip):
            raise UndeliverableWebhook(f"{host} is {ip}, not a public address (RED7_WEBHOOK_PRIVATE_HOSTS allows it)")


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")  # deprecated, still routed inside some networks


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Global, and so is any IPv4 address an IPv6 one carries (mapped, 6to4, Teredo, NAT64, IPv4-compatible)."""
    if not ip.is_global:
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return True
    if ip in _SITE_LOCAL:
        return False
    carried = [ip.ipv4_mapped, ip.sixtofour, ip.teredo[1] if ip.teredo else None]
    if ip in _NAT64 or int(ip) >> 32 == 0:  # NAT64, or the old IPv4-compatible ::a.b.c.d
        carried.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return all(v4 is None or v4.is_global for v4 in carried)


def post(request: urllib.request.Request, *, private_hosts: bool, timeout: float = 5.0) -> int:
    """POST ``request``; the receiver's status.  4xx (but 408 and 429) and 3xx are undeliverable; the rest retryable."""
    check_destination(request.full_url, private_hosts=private_hosts)
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            status: int = response.status  # an http.client.HTTPResponse (typeshed: Any, for any URL scheme)
            return status
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:
            raise UndeliverableWebhook(f"the webhook answered {error.code}: redirects are not followed") from None
        if 400 <= error.code < 500 and error.code not in (408, 429):
            raise UndeliverableWebhook(f"the webhook refused the event with {error.code}") from None
        raise
