"""No secret in any log line across the whole test suite (issue 41, item 2): a pytest plugin that reads every log record
of the session, and the logs of the processes the fault tests start, and fails the test during which a secret appeared.

What it knows as a secret:

- every value ``secrets.token_urlsafe`` returns in this process (wrapped for the session): our bearer tokens, a
  webhook's secret, stream tickets, OAuth refresh tokens, join codes;
- every OAuth authorization code authlib generates (its ``generate_token`` wrapped where the code grant calls it);
- what a test hands to :func:`register` (a browser's push keys: ``tests/workers/push_service.py``);
- anywhere, ours by their look: a token (``r7_`` and 43 URL-safe characters) or a stream ticket (``st_`` and 32).
  Processes of their own (gunicorn, ``red7 worker``) make secrets this process never sees: their logs are held to
  these looks (:func:`scan_file`, called by ``tests/harness/deployment.py`` as it stops them).

Cheap at 3,300 tests: a record's text is cut into runs of URL-safe characters, each run (and its head and tail, of
each length a secret has) looked up in a set; nothing is formatted that the record does not already hold.  A leak
fails the test it happened in, at its teardown, naming the logger and the first characters of the secret.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: Our secrets by their look (service/storage/players/model.py's TOKEN_PREFIX, service/storage/stream_tickets.py's).
LOOKS = re.compile(r"\b(?:r7_[A-Za-z0-9_-]{43}|st_[A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])")
#: A run of the characters URL-safe base64 (and authlib's codes) are made of.
RUN = re.compile(r"[A-Za-z0-9_-]{8,}")
#: A LogRecord's own attributes: any other is an ``extra`` a formatter may print (the JSON lines do).
STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class Watch(logging.Handler):
    """The session's secrets, and the leaks found since the last :meth:`take`."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.known: set[str] = set()
        self.lengths: set[int] = set()
        self.leaks: list[str] = []

    def register(self, secret: str) -> str:
        if len(secret) >= 8:
            self.known.add(secret)
            self.lengths.add(len(secret))
        return secret

    def found_in(self, text: str) -> str | None:
        """The secret ``text`` holds, if any."""
        if "_" in text and (look := LOOKS.search(text)):
            return look.group()
        known, lengths = self.known, self.lengths
        for run in RUN.findall(text):
            if run in known:
                return run
            for length in lengths:
                if length < len(run) and (run[:length] in known or run[-length:] in known):
                    return run[:length] if run[:length] in known else run[-length:]
        return None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            texts = [record.getMessage()]
        except Exception:  # a record logging cannot format is logging's to report
            return
        if record.exc_info and record.exc_info[1] is not None:
            texts.append(str(record.exc_info[1]))
        texts += [str(v) for k, v in vars(record).items() if k not in STANDARD and isinstance(v, str | int | dict | list)]
        for text in texts:
            if secret := self.found_in(text):
                self.leaks.append(f"{record.name} logged a secret ({secret[:6]}…): {_hidden(text, secret)}")
                return

    def scan_file(self, path: Path) -> None:
        """A process's log (a file), held to the looks of our secrets and to the secrets this process knows."""
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            if secret := self.found_in(line):
                self.leaks.append(f"{path.name}:{number} holds a secret ({secret[:6]}…): {_hidden(line, secret)}")

    def take(self) -> list[str]:
        leaks, self.leaks = self.leaks, []
        return leaks


WATCH = Watch()


def _hidden(text: str, secret: str) -> str:
    """The line as the report shows it: the secret cut to its first characters (the report is no place for it)."""
    return text.replace(secret, secret[:6] + "…")[:200]


def register(secret: str) -> str:
    """Know ``secret`` as one (a test's own: a browser's push keys); it is returned."""
    return WATCH.register(secret)


def scan_file(path: Path) -> None:
    WATCH.scan_file(path)


def _wrapped(make: Any) -> Any:
    def made(*args: Any, **kwargs: Any) -> Any:
        return WATCH.register(make(*args, **kwargs))

    made.__wrapped__ = make  # type: ignore[attr-defined]
    return made


#: Sessions configured in this process (a test of this plugin runs one inside the suite's: pytester).
_sessions = 0


def pytest_configure(config: pytest.Config) -> None:
    global _sessions
    _sessions += 1
    if _sessions > 1:
        return
    secrets.token_urlsafe = _wrapped(secrets.token_urlsafe)
    try:
        from authlib.oauth2.rfc6749.grants import authorization_code
    except ImportError:
        pass
    else:
        authorization_code.generate_token = _wrapped(authorization_code.generate_token)
    logging.getLogger().addHandler(WATCH)
    ours = logging.getLogger("red7")
    if ours.level == logging.NOTSET:  # our lines from INFO up, as the processes log them (logformat.configure)
        ours.setLevel(logging.INFO)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _sessions
    _sessions -= 1
    if _sessions:
        return
    logging.getLogger().removeHandler(WATCH)
    secrets.token_urlsafe = getattr(secrets.token_urlsafe, "__wrapped__", secrets.token_urlsafe)


@pytest.fixture(autouse=True)
def no_secret_logged() -> Iterator[None]:
    """Fail the test (at its teardown) during which a secret was logged."""
    WATCH.take()
    yield
    if leaks := WATCH.take():
        pytest.fail("a secret in the logs:\n" + "\n".join(leaks), pytrace=False)
