"""``red7 serve``: the address it tells webhooks to link to when the embedded store runs its workers in-process."""

from __future__ import annotations

import pytest

from service.processes.cli import local_base_url


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8000, "http://127.0.0.1:8000"),
        ("0.0.0.0", 8080, "http://127.0.0.1:8080"),  # every interface: reached on loopback here
        ("::", 8000, "http://127.0.0.1:8000"),
        ("::1", 8000, "http://[::1]:8000"),
        ("red7.local", 80, "http://red7.local:80"),
    ],
)
def test_the_local_base_url_of_a_served_address(host, port, url):
    assert local_base_url(host, port) == url
