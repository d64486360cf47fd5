"""Settings: every field is set by the variable derived from its name, old names still read, bad values named."""

from __future__ import annotations

import dataclasses
import logging
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from service.common import config
from service.common.config import RENAMED, Settings, SettingsError, variable
from tests.harness.documents import section

ROOT = Path(__file__).resolve().parents[3]
HINTS = typing.get_type_hints(Settings)


def sample(field: dataclasses.Field) -> tuple[str, object]:
    """A value unlike the field's default, as the environment spells it and as the setting holds it."""
    kind, default = HINTS[field.name], field.default
    if kind is bool:
        return ("no", False) if default else ("yes", True)
    if kind is int:
        return str(default + 7), default + 7
    if kind is float:
        return str(default + 2.5), default + 2.5
    if kind == tuple[str, ...]:
        return " a, b ,c", ("a", "b", "c")
    if field.name == "queue_url":  # a list of URLs, checked as it is read
        return "redis://q0:6379/0, redis://q1:6379/0", "redis://q0:6379/0, redis://q1:6379/0"
    return f"{field.name}-value", f"{field.name}-value"


def test_every_field_is_set_by_red7_and_its_name_in_capitals():
    every = dataclasses.fields(Settings)
    env = {variable(f.name): sample(f)[0] for f in every}
    settings = Settings.from_env(env)
    assert {f.name: getattr(settings, f.name) for f in every} == {f.name: sample(f)[1] for f in every}
    assert variable("max_games_in_play") == "RED7_MAX_GAMES_IN_PLAY"


def test_an_empty_environment_gives_the_defaults_and_the_embedded_store():
    settings = Settings.from_env({})
    assert settings == Settings(webhook_private_hosts=True, rated_min_account_age=0, rated_min_games=0)
    assert settings.embedded and settings.webhook_private_hosts  # the embedded server's receivers are local
    stored = Settings.from_env({"REDIS_URL": "redis://r:6379/0"})
    assert not stored.webhook_private_hosts
    assert (stored.rated_min_account_age, stored.rated_min_games) == (86400, 3), "a real store's accounts need history"


def test_redis_url_is_read_under_the_name_hosting_platforms_set_too():
    assert Settings.from_env({"REDIS_URL": "redis://a:1/0"}).redis_url == "redis://a:1/0"
    both = {"REDIS_URL": "redis://a:1/0", "RED7_REDIS_URL": "redis://b:2/0"}
    assert Settings.from_env(both).redis_url == "redis://b:2/0"


@pytest.mark.parametrize(("old", "field"), sorted(RENAMED.items()))
def test_the_names_of_earlier_releases_still_read_with_one_warning(old, field, caplog, monkeypatch):
    monkeypatch.setattr(config, "_warned", set())
    kind = HINTS[field]
    value, expected = ("17", 17) if kind is int else ("games", "games")
    with caplog.at_level(logging.WARNING, logger="red7.settings"):
        assert getattr(Settings.from_env({old: value}), field) == expected
        Settings.from_env({old: value})  # read again by another part of the process
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and old in warnings[0] and variable(field) in warnings[0]
    assert getattr(Settings.from_env({old: value, variable(field): "5" if kind is int else "new"}), field) in (5, "new")


@pytest.mark.parametrize(
    ("name", "raw", "form"),
    [
        ("RED7_WORKER_THREADS", "eight", "a whole number"),
        ("RED7_WORKER_THREADS", "-1", "a whole number"),
        ("RED7_EXPERT_SECONDS", "1s", "a number of seconds"),
        ("RED7_AI_DELAY", "nan", "a number of seconds"),
        ("RED7_ALLOW_CUSTOM_DECKS", "maybe", "1/true/yes/on"),
        ("RED7_MAX_GAMES_PER_PLAYER", "many", "a whole number"),  # an old name: the error names it as set
    ],
)
def test_a_bad_value_is_refused_naming_the_variable_and_the_form(name, raw, form):
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({name: raw})
    assert str(refused.value).startswith(f"{name}={raw!r}: expected ") and form in str(refused.value)


def test_a_bad_value_stops_red7_at_start_saying_which_variable():
    run = subprocess.run(
        [sys.executable, "-m", "service.processes.cli", "worker"],
        env={"PATH": "/usr/bin:/bin", "REDIS_URL": "redis://127.0.0.1:1/0", "RED7_WORKER_THREADS": "lots"},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert run.returncode == 2
    assert "RED7_WORKER_THREADS='lots': expected a whole number" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_documented_settings_table_names_every_variable_and_no_other():
    table = section("docs/running.md", "Settings").split("| setting |", 1)[1].split("\n\n", 1)[0]
    named = set()
    for cell in (row.split("|")[1] for row in table.splitlines()[2:] if row.startswith("|")):
        for name in __import__("re").findall(r"`(RED7_[A-Z_]+|REDIS_URL)`", cell):
            named.add(name)
    wanted = {variable(f.name) for f in dataclasses.fields(Settings)} - {"RED7_REDIS_URL"} | {"REDIS_URL"}
    assert named == wanted, (sorted(wanted - named), sorted(named - wanted))


def test_the_queue_url_names_one_redis_or_several_shards():
    """One URL works as it always did; several, comma-separated, are the queue's shards in order (service/jobqueue/shards.py),
    a Sentinel URL's own commas (between its sentinels) kept inside it."""
    assert Settings(redis_url="redis://s:1/0").queue_urls == ("redis://s:1/0",)
    assert Settings(redis_url="redis://s:1/0", queue_url="redis://q:2/0").queue_urls == ("redis://q:2/0",)
    assert Settings().queue_urls == ()  # embedded: the in-memory Redis
    listed = "redis://q0:6379/0, redis+sentinel://u:pw@a:26379,b:26379/q1/2,rediss://q2:6380/1 ,unix:///run/q3.sock?db=1"
    assert Settings.from_env({"REDIS_URL": "redis://s:1/0", "RED7_QUEUE_URL": listed}).queue_urls == (
        "redis://q0:6379/0",
        "redis+sentinel://u:pw@a:26379,b:26379/q1/2",
        "rediss://q2:6380/1",
        "unix:///run/q3.sock?db=1",
    )


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("redis://q0:6379/0,,redis://q1:6379/0", "an empty URL"),
        ("redis://q0:6379/0,", "an empty URL"),
        ("redis://q0:6379/0,redis+cluster://c:7000", "RQ cannot run on a Redis Cluster"),
        ("q0:6379", "is not a queue's Redis"),
        ("redis://q0:6379/0,redis://q0:6379/0", "named twice"),
    ],
)
def test_a_queue_url_list_that_cannot_work_is_refused_naming_the_variable(value, said):
    with pytest.raises(SettingsError, match="RED7_QUEUE_URL") as refused:
        Settings.from_env({"REDIS_URL": "redis://s:1/0", "RED7_QUEUE_URL": value})
    assert said in str(refused.value)
    with pytest.raises(SettingsError, match="RED7_QUEUE_URL"):  # built directly, it is refused when first connected
        assert not Settings(redis_url="redis://s:1/0", queue_url=value).queue_urls
