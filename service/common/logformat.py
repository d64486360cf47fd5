"""Log lines an operator can follow: each record stamped with what it happened for (the request's id, its route, the
player, or the job and the request that caused it), written as readable text or, with ``RED7_LOG_FORMAT=json``, as
one JSON object a line for a log collector.

The stamp is taken when a record is made (a record factory), so every handler sees it, a test's ``caplog`` included.
Who knows the context registers a provider: the HTTP entry point (the request being answered) and the job queue (the
job being run).  Neither is a context variable of ours: each reads its framework's own (Flask's request, RQ's job).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

#: The members a record is stamped with, ``None`` where unknown.
FIELDS = ("request_id", "route", "player_id", "job")
FORMATS = ("text", "json")

Provider = Callable[[], dict[str, Any] | None]
_providers: list[Provider] = []
_base_factory = logging.getLogRecordFactory()
#: Fields a thread stamps on its next lines whatever the providers say (:func:`stamped_with`).
_pinned = threading.local()


def _stamped(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _base_factory(*args, **kwargs)  # no member set where unknown: a line's ``extra`` may still name it
    for provider in _providers:
        found = provider()
        if found:
            for name, value in found.items():
                setattr(record, name, value)
    for name, value in getattr(_pinned, "fields", {}).items():
        setattr(record, name, value)
    return record


@contextmanager
def stamped_with(fields: dict[str, Any]) -> Iterator[None]:
    """This thread's lines stamped with ``fields`` meanwhile, over what the providers say.  Not ``extra=``: logging
    refuses an ``extra`` member a provider already set (a KeyError, which lost a job's line when RQ still named a job
    as current)."""
    before = getattr(_pinned, "fields", {})
    _pinned.fields = {**before, **fields}
    logging.setLogRecordFactory(_stamped)
    try:
        yield
    finally:
        _pinned.fields = before


def add_context(provider: Provider) -> None:
    """Stamp every record made from now on with what ``provider`` returns (a dict of :data:`FIELDS`, or ``None``
    outside its context); a provider added twice is kept once."""
    if provider not in _providers:
        _providers.append(provider)
    logging.setLogRecordFactory(_stamped)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the stamp's members known, the error."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The readable line, with the request's id (or the job's) in brackets where there is one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(name)s %(levelname)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        request_id = getattr(record, "request_id", None)
        return f"{text} [{request_id}]" if request_id else text


def formatter(kind: str) -> logging.Formatter:
    """The formatter ``RED7_LOG_FORMAT`` names (``text`` or ``json``)."""
    if kind not in FORMATS:
        raise ValueError(f"RED7_LOG_FORMAT must be one of {', '.join(FORMATS)}, not {kind!r}")
    return JsonFormatter() if kind == "json" else TextFormatter()


def configure(kind: str = "text", level: int = logging.INFO) -> None:
    """The process's log lines, as ``kind`` says: on standard error, from ``level`` up."""
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(kind))
    logging.basicConfig(level=level, handlers=[handler])  # not forced: a handler already there (a test's) stays
    logging.setLogRecordFactory(_stamped)
