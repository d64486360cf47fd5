"""Delivering a webhook: to a public address only (unless allowed), with no redirects.

A webhook URL is whatever a player typed, and the workers run inside the
deployment's network: without these checks a player could make them POST to
an internal service (SSRF).  The rule is :mod:`service.outbound.destinations`'s, the
one the URL was checked by when it was saved.  Redirects are not followed for the same reason
(and because urllib would turn the POST into a GET without its body).  The host is
looked up once: the connection goes to the address that was checked, so a name
that answers with another address the second time (DNS rebinding) cannot send
it elsewhere.
"""

from __future__ import annotations

import http.client
import socket
import urllib.error
import urllib.request
from functools import partial
from typing import Any

from service.outbound.destinations import Destinations, UnsafeDestination


class UndeliverableWebhook(Exception):
    """A webhook that cannot be delivered however often it is tried; ``status``: the receiver's answer, if it gave one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


def _connect_to(
    address: str, connect_timeout: float | None, destination: tuple[str, int], timeout: Any, *args: Any
) -> socket.socket:
    """``socket.create_connection`` to ``address`` instead of the host name it is given, within ``connect_timeout``
    (``None``: ``timeout``); its reads then wait up to ``timeout`` each (http.client passes its own)."""
    sock = socket.create_connection((address, destination[1]), timeout if connect_timeout is None else connect_timeout, *args)
    if timeout is None or isinstance(timeout, int | float):  # not socket's "global default" marker
        sock.settimeout(timeout)
    return sock


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a checked address; the Host header still names the host of the URL."""

    def __init__(self, host: str, *, address: str, connect_timeout: float | None = None, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._create_connection = partial(_connect_to, address, connect_timeout)  # http.client opens its socket so


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to a checked address; SNI and the certificate check use the host of the URL (``self.host``)."""

    def __init__(self, host: str, *, address: str, connect_timeout: float | None = None, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._create_connection = partial(_connect_to, address, connect_timeout)


class _Pinned(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """urllib's http and https handlers, connecting to ``address`` whatever the host name resolves to by now."""

    def __init__(self, address: str, connect_timeout: float | None = None) -> None:
        super().__init__()
        self.address, self.connect_timeout = address, connect_timeout

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_PinnedHTTPConnection, address=self.address, connect_timeout=self.connect_timeout), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_PinnedHTTPSConnection, address=self.address, connect_timeout=self.connect_timeout), req)


def check_destination(url: str, *, private_hosts: bool) -> str:
    """Refuse a URL whose host is not a public address (every address it resolves to is checked, by the rule the
    save checked it with: :mod:`service.outbound.destinations`); the address to connect to.

    A name that does not resolve now raises ``OSError``: DNS may be down, so that is worth a retry.
    """
    try:
        return Destinations(private_hosts).address(url)
    except UnsafeDestination as refused:
        raise UndeliverableWebhook(f"{url!r}: {refused}") from None


def post(
    request: urllib.request.Request,
    *,
    private_hosts: bool,
    timeout: float = 5.0,
    connect_timeout: float | None = None,
    address: str | None = None,
) -> int:
    """POST ``request``; the receiver's status.  4xx (but 408 and 429) and 3xx are undeliverable; the rest retryable.

    ``connect_timeout`` bounds the connection (``None``: ``timeout``), ``timeout`` each read after it.  ``address``:
    the one :func:`check_destination` gave for this URL just before (else it is checked here).
    """
    if address is None:
        address = check_destination(request.full_url, private_hosts=private_hosts)
    # No proxy: it would look the name up again itself, and the connection must go to the address checked.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects, _Pinned(address, connect_timeout))
    try:
        with opener.open(request, timeout=timeout) as response:
            status: int = response.status  # an http.client.HTTPResponse (typeshed: Any, for any URL scheme)
            return status
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:
            raise UndeliverableWebhook(f"the webhook answered {error.code}: redirects are not followed", error.code) from None
        if 400 <= error.code < 500 and error.code not in (408, 429):
            raise UndeliverableWebhook(f"the webhook refused the event with {error.code}", error.code) from None
        raise
