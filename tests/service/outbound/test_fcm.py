"""Sending through FCM's HTTP v1 API against the tests' own FCM (``tests/harness/fcm.py``): the OAuth2 assertion it
checks, the token kept between sends, what each answer means (gone, refused, worth a retry) and a bounded wait."""

from __future__ import annotations

import json
import time
import urllib.error
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth.exceptions import RefreshError
from hypothesis import given
from hypothesis import strategies as st

from service.outbound.fcm import DeviceGone, Fcm, FcmMessage, FcmRefused, message_body
from tests.harness.fcm import FakeFcm

MESSAGE = FcmMessage({"event": "your_turn", "game_id": "g_1", "version": "4"}, "Your turn", "Your turn.", "g-1", 600, True)


@pytest.fixture
def fake():
    with FakeFcm() as fake:
        yield fake


def test_a_send_carries_a_token_from_a_checked_assertion_and_keeps_it(fake, tmp_path):
    fcm = Fcm(str(fake.write_credentials(tmp_path)), fake.base)
    assert fcm.send("phone:1", MESSAGE, timeout=5) == 200
    assert fcm.send("phone:2", MESSAGE, timeout=5) == 200
    assert not fake.refused, fake.refused
    assert fake.assertions == 1  # one access token for both: refreshed only when it expires
    assert [s.token for s in fake.sent] == ["phone:1", "phone:2"]
    android = fake.sent[0].message["android"]
    assert android == {"collapse_key": "g-1", "ttl": "600s", "priority": "HIGH"}


def test_an_assertion_signed_by_another_key_gets_no_token(fake, tmp_path):
    path = fake.write_credentials(tmp_path)
    account = json.loads(path.read_text())
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = other.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path.write_text(json.dumps({**account, "private_key": pem.decode()}))
    with pytest.raises(RefreshError):
        Fcm(str(path), fake.base).send("phone:1", MESSAGE, timeout=5)
    assert fake.refused == ["token: the signature is not the service account's"] and not fake.sent


def test_unregistered_is_gone_a_bad_request_refused_and_a_503_worth_a_retry(fake, tmp_path):
    fcm = Fcm(str(fake.write_credentials(tmp_path)), fake.base)
    fake.answers.update({"old:1": "UNREGISTERED", "bad:1": 400, "busy:1": 503})
    with pytest.raises(DeviceGone):
        fcm.send("old:1", MESSAGE, timeout=5)
    with pytest.raises(FcmRefused):
        fcm.send("bad:1", MESSAGE, timeout=5)
    with pytest.raises(urllib.error.HTTPError):  # not DeviceGone nor FcmRefused: RQ retries the job
        fcm.send("busy:1", MESSAGE, timeout=5)


def test_a_hanging_fcm_is_waited_for_no_longer_than_the_timeout(fake, tmp_path):
    fcm = Fcm(str(fake.write_credentials(tmp_path)), fake.base)
    fake.answers["slow:1"] = None
    began = time.monotonic()
    with pytest.raises(OSError):
        fcm.send("slow:1", MESSAGE, timeout=0.5)
    assert time.monotonic() - began < 2


def test_a_file_without_a_project_is_refused(tmp_path, fake):
    path = fake.write_credentials(tmp_path)
    path.write_text(json.dumps({**json.loads(path.read_text()), "project_id": ""}))
    with pytest.raises(ValueError, match="project_id"):
        Fcm(str(path), fake.base)


@given(ttl=st.integers(-10, 40 * 24 * 3600), high=st.booleans(), key=st.text(min_size=1, max_size=100))
def test_the_lifetime_and_priority_are_said_alike_to_android_and_apns(ttl, high, key):
    message = FcmMessage({"event": "x"}, "t", "b", key, ttl, high)
    body = message_body("tok", message, now=1_000_000.0)["message"]
    kept = max(0, ttl)
    assert body["android"]["ttl"] == f"{kept}s" and body["apns"]["headers"]["apns-expiration"] == str(1_000_000 + kept)
    assert body["android"]["priority"] == ("HIGH" if high else "NORMAL")
    assert body["apns"]["headers"]["apns-priority"] == ("10" if high else "5")
    assert body["apns"]["headers"]["apns-collapse-id"] == key[:64] and body["android"]["collapse_key"] == key
    assert FakeFcm.check_message(body) is None


def test_the_credentials_file_is_read_once(fake, tmp_path: Path):
    path = fake.write_credentials(tmp_path)
    fcm = Fcm(str(path), fake.base)
    path.unlink()  # read at start: the worker keeps sending
    assert fcm.send("phone:1", MESSAGE, timeout=5) == 200 and fcm.project == "red7-test"
