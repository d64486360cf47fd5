"""Where the service may send what a player's URL names (a webhook, a web push endpoint): the SSRF rule, in one place.

A URL a player gives is called by the workers, inside the deployment's network: without this rule a player could make
them POST to an internal service, the cloud's metadata address (169.254.169.254) or the machine itself.  So a
destination must be public: every address its host is, or resolves to, is global, and so is any IPv4 address an IPv6
one carries (mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4, Teredo, the old IPv4-compatible ``::a.b.c.d``).

The same rule is applied twice (issue 34): when the URL is saved (:meth:`Destinations.check`: a webhook URL, a push
subscription's endpoint), so that a player is told at once, with a reason, instead of a URL that can never be used
being kept; and at every delivery (:meth:`Destinations.address`, by ``service/outbound/webhooks.py``), since a name may
resolve elsewhere by then (the delivery then connects to the address it checked: DNS rebinding cannot move it).

A host is read as a browser's URL parser reads it (the WHATWG URL standard), since that is how push services and
receivers were given it: a host that ends in a number is an IPv4 address in any of its spellings (``2130706433``,
``0x7f000001``, ``0177.0.0.1``, ``127.1``, a trailing dot), and a name is compared without its trailing dot
(``localhost.``).  Names that are local by definition (``localhost`` and ``*.localhost``, RFC 6761; ``.local``,
RFC 6762; ``.home.arpa``, RFC 8375; ``.internal``, reserved by ICANN for private use; ``.localdomain``) are refused
without asking DNS.

``private_hosts`` (``RED7_WEBHOOK_PRIVATE_HOSTS``, on for the embedded server, whose receivers are on the developer's
machine) lets any address through, and then a save checks only the URL's shape.

Pure but for the name lookup (``socket.getaddrinfo``, looked up at each call so that tests can stand in for DNS); it
imports nothing of ours, so the application (saving) and the workers (delivering) share it from below both.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Why a destination is refused, as a stable key: not an http(s) URL of a host (``not_a_url``), a host that is or
#: resolves to an address that is not public (``not_public``), a name that resolves to nothing (``unresolvable``).
REASONS = ("not_a_url", "not_public", "unresolvable")

#: Names local by definition: the name itself, or any name under it.
LOCAL_NAMES = ("localhost", "localdomain", "local", "internal", "home.arpa")

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")  # deprecated, still routed inside some networks
#: What a URL may not hold anywhere: white space, controls, and the backslash a browser reads as a slash (so that
#: ``http://127.0.0.1\\@example.com`` is one host to us and another to a browser).
_NOT_IN_A_URL = re.compile(r"[\x00-\x20\x7f\\]")
_HEX = re.compile(r"[0-9a-f]*")
_OCTAL = re.compile(r"[0-7]*")
_DECIMAL = re.compile(r"[0-9]+")


class UnsafeDestination(ValueError):
    """A destination the rule refuses; ``reason``: one of :data:`REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Target:
    """A URL's scheme, host (ASCII, lower case, no trailing dot; an IPv6 address without brackets) and port."""

    scheme: str
    host: str
    port: int


def target_of(url: str, schemes: Sequence[str] = ("http", "https")) -> Target:
    """The URL's target, or :class:`UnsafeDestination` (``not_a_url``) for one that is not a URL of ``schemes`` with a
    host a URL parser agrees on."""
    if _NOT_IN_A_URL.search(url):
        raise UnsafeDestination("not_a_url", "the URL holds white space, a control character or a backslash")
    try:
        parts = urllib.parse.urlsplit(url)
        hostname, port = parts.hostname, parts.port
    except ValueError as exc:  # a port that is no number, an IPv6 address not closed ...
        raise UnsafeDestination("not_a_url", f"the URL cannot be read: {exc}") from None
    if parts.scheme not in schemes or not hostname:
        raise UnsafeDestination("not_a_url", f"not an {' or '.join(schemes)} URL with a host")
    if ":" in hostname:  # an IPv6 address (urlsplit takes them only in brackets)
        host = hostname
    else:
        try:
            host = hostname.encode("idna").decode("ascii").lower()  # IDNA's mapping: full-width digits are digits
        except UnicodeError as exc:
            raise UnsafeDestination("not_a_url", f"the host {hostname!r} is not a name: {exc}") from None
        host = host.removesuffix(".")
        if not host or "" in host.split("."):
            raise UnsafeDestination("not_a_url", f"the host {hostname!r} has an empty label")
    return Target(parts.scheme, host, port or (443 if parts.scheme == "https" else 80))


def literal_address(host: str) -> IPAddress | None:
    """The address ``host`` (as :func:`target_of` leaves it) spells, or ``None`` for a name.

    An IPv6 address (a zone, ``%eth0``, is refused: only link-local addresses have one); else, as the WHATWG URL
    standard reads a host, one that ends in a number is IPv4 in any spelling, and :class:`UnsafeDestination` when
    it is not a valid one (``1.2.3.256``)."""
    if ":" in host:
        if "%" in host:
            raise UnsafeDestination("not_public", f"{host} is a link-local address (it names a zone)")
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise UnsafeDestination("not_a_url", f"{host!r} is not an IPv6 address") from None
    parts = host.split(".")
    last = parts[-1]
    if not (_DECIMAL.fullmatch(last) or (last[:2] == "0x" and _HEX.fullmatch(last[2:]))):
        return None  # a name
    numbers = [_ipv4_number(part) for part in parts]
    if len(numbers) > 4 or any(n is None for n in numbers):
        raise UnsafeDestination("not_a_url", f"{host!r} ends in a number but is no IPv4 address")
    valid = [n for n in numbers if n is not None]
    if any(n > 255 for n in valid[:-1]) or valid[-1] >= 256 ** (5 - len(valid)):
        raise UnsafeDestination("not_a_url", f"{host!r} ends in a number but is no IPv4 address")
    value = valid[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(valid[:-1]))
    return ipaddress.IPv4Address(value)


def _ipv4_number(part: str) -> int | None:
    """One part of an IPv4 host as WHATWG reads it: ``0x`` hexadecimal, a leading ``0`` octal, else decimal."""
    if not part:
        return None
    if part[:2] == "0x":
        digits, base, allowed = part[2:], 16, _HEX
    elif len(part) > 1 and part[0] == "0":
        digits, base, allowed = part[1:], 8, _OCTAL
    else:
        digits, base, allowed = part, 10, _DECIMAL
    if not allowed.fullmatch(digits):
        return None
    return int(digits, base) if digits else 0


def is_public(ip: IPAddress) -> bool:
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


def is_local_name(host: str) -> bool:
    """Whether the name is local by definition (:data:`LOCAL_NAMES`, or a name under one)."""
    return any(host == name or host.endswith(f".{name}") for name in LOCAL_NAMES)


@dataclass(frozen=True, slots=True)
class Destinations:
    """The rule, with its one setting: ``private_hosts`` lets any address through (the embedded server's receivers
    are on the developer's machine)."""

    private_hosts: bool = False

    def check(self, url: str, schemes: Sequence[str] = ("http", "https")) -> None:
        """When a URL is saved: refuse it (:class:`UnsafeDestination`) unless it could be delivered to now.

        Its shape always; unless private hosts are allowed, its host too: an address spelt out must be public, a
        local name is refused, and any other name must resolve, to public addresses only (``unresolvable`` when it
        resolves to nothing: a name that does not exist, or DNS that does not answer now)."""
        target = target_of(url, schemes)
        if self.private_hosts:
            return
        try:
            self._addresses(target)
        except OSError as exc:
            raise UnsafeDestination("unresolvable", f"{target.host} does not resolve ({exc.strerror or exc})") from None

    def address(self, url: str, schemes: Sequence[str] = ("http", "https")) -> str:
        """At a delivery: the address to connect to, every address the host is or resolves to checked now.

        :class:`UnsafeDestination` for what no retry mends; ``OSError`` when the name does not resolve now (DNS may
        be down: worth a retry)."""
        return self._addresses(target_of(url, schemes))[0]

    def _addresses(self, target: Target) -> list[str]:
        literal = literal_address(target.host)
        if literal is not None:
            self._allow(literal, target.host if str(literal) == target.host else f"{target.host} ({literal})")
            return [str(literal)]
        if is_local_name(target.host) and not self.private_hosts:
            raise UnsafeDestination("not_public", f"{target.host} is a local name, not a public host")
        addresses = []
        try:  # socket.getaddrinfo looked up here, each time: tests stand in for DNS by replacing it
            found_all = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
        except UnicodeError as exc:  # a name the resolver cannot encode (a label too long ...)
            raise UnsafeDestination("not_a_url", f"the host {target.host!r} is not a name: {exc}") from None
        for *_, sockaddr in found_all:
            found = sockaddr[0]
            assert isinstance(found, str)  # an IPv4 or IPv6 address: (host, port, ...) with the host as text
            # not said which address: the refusal reaches the player, who is not to learn the network's names
            self._allow(ipaddress.ip_address(found.split("%")[0]), f"an address {target.host} resolves to")
            addresses.append(found)
        if not addresses:
            raise OSError(f"{target.host} resolves to no address")
        return addresses

    def _allow(self, ip: IPAddress, what: str) -> None:
        if not self.private_hosts and not is_public(ip):
            raise UnsafeDestination("not_public", f"{what} is not a public address (RED7_WEBHOOK_PRIVATE_HOSTS allows it)")
