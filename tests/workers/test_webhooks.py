"""Where webhooks may go: public addresses only (unless allowed), whatever form the address takes."""

from __future__ import annotations

import pytest

from workers import webhooks


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8080/hook", "http://localhost/hook", "http://10.1.2.3/", "http://192.168.0.10/",
     "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://[fd00::1]/", "http://0.0.0.0/",
     "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::1]/", "http://[::127.0.0.1]/",
     "http://[fec0::1]/", "http://2130706433/", "http://0x7f000001/"],
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
