"""The log lines' two forms (``RED7_LOG_FORMAT``): JSON with the stamp's members, text with the request's id."""

from __future__ import annotations

import json
import logging

import pytest

from service.common import logformat
from service.processes.cli import main


def _record(**stamp: object) -> logging.LogRecord:
    record = logging.LogRecord("red7.x", logging.WARNING, __file__, 1, "took %s s", (2,), None)
    for name, value in stamp.items():
        setattr(record, name, value)
    return record


def test_a_json_line_has_the_time_level_logger_message_and_what_is_known_of_its_context():
    line = json.loads(logformat.JsonFormatter().format(_record(request_id="r-1", route="GET /v1/x", player_id=None)))
    assert line.pop("time").endswith("+00:00")
    assert line == {"level": "WARNING", "logger": "red7.x", "message": "took 2 s", "request_id": "r-1", "route": "GET /v1/x"}


def test_a_text_line_ends_with_its_request_id_where_there_is_one():
    assert logformat.TextFormatter().format(_record(request_id="r-1")).endswith("took 2 s [r-1]")
    assert logformat.TextFormatter().format(_record()).endswith("took 2 s")


def test_a_provider_stamps_every_record_made_in_its_context():
    inside = [True]

    def provider() -> dict[str, object] | None:
        return {"job": "ai_turn", "request_id": "r-2"} if inside[0] else None

    logformat.add_context(provider)
    logger = logging.getLogger("red7.x")
    stamped = logger.makeRecord("red7.x", logging.INFO, "f", 1, "m", (), None)
    inside[0] = False
    plain = logger.makeRecord("red7.x", logging.INFO, "f", 1, "m", (), None)
    assert (stamped.job, stamped.request_id) == ("ai_turn", "r-2")  # type: ignore[attr-defined]
    assert not hasattr(plain, "job")


def test_an_unknown_format_is_refused_before_anything_starts(monkeypatch, capsys):
    with pytest.raises(ValueError, match="json"):
        logformat.formatter("xml")
    monkeypatch.setenv("RED7_LOG_FORMAT", "xml")
    assert main(["demo"]) == 2
    assert "RED7_LOG_FORMAT" in capsys.readouterr().err
