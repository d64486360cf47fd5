"""A tournament's notices by webhook: the entry confirmed, a round's game made (with the player's game), a withdrawal
after timeouts, a round over, the tournament over, each in the player's language, queued by the dispatcher and
delivered signed by the ``notify`` and ``notices`` jobs as a challenge's are (the tournament in the game's place)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from service.application.followups import Due, tournament_notice
from service.domain import tournaments as rules
from tests.harness.tournaments import iso, play_round
from tests.workers.test_jobs import Receiver, receiver, verify  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def hooked(api, name: str, url: str, language: str | None = None) -> dict:
    player = api.player(name)
    changes = {"webhook_url": url, **({"language": language} if language else {})}
    me = api.call("PATCH", "/v1/players/me", player["token"], json=changes).get_json()
    return {**player, "secret": me["webhook_secret"]}


def told() -> list[dict]:
    return [json.loads(body) for _, body in Receiver.received]


def test_entrants_hear_of_their_entry_their_round_and_the_end_in_their_language(api, receiver):  # noqa: F811 (the fixture)
    runtime = api.runtime
    service = runtime.tournaments
    ana, bo, cy = hooked(api, "Ana", receiver, "de"), hooked(api, "Bo", receiver), hooked(api, "Cy", receiver)
    organiser = api.player("Dan")
    now = datetime.now(UTC)
    settings = rules.Settings(
        format="swiss",
        table_size=3,
        rounds=2,
        entries_open=iso(now - timedelta(minutes=1)),
        entries_close=iso(now + timedelta(seconds=2)),
        min_players=3,
        max_players=8,
    )
    made, _ = service.create(runtime.players.get(organiser["id"]), "Told", settings)
    for player in (ana, bo, cy):
        service.join(made.id, runtime.players.get(player["id"]))
    api.run_jobs()
    entered = sorted(t["player_id"] for t in told() if t["event"] == "tournament_entered")
    assert entered == sorted(p["id"] for p in (ana, bo, cy)), "the organiser, who did not enter, hears nothing"
    (headers, body) = next((h, b) for h, b in Receiver.received if json.loads(b)["player_id"] == ana["id"])
    assert verify(ana["secret"], headers, body)
    first = json.loads(body)
    assert first == {
        "event": "tournament_entered",
        "tournament_id": made.id,
        "version": first["version"],
        "player_id": ana["id"],
        "sent_at": first["sent_at"],
        "tournament_url": f"/v1/tournaments/{made.id}",
        "lang": "de",
        "title": "Anmeldung bestätigt",
        "body": "Du bist für ein Turnier angemeldet.",
        "title_code": "push.tournament_entered.title",
        "body_code": "push.tournament_entered.body",
        "notification_id": first["notification_id"],  # its id in Ana's own feed
    }
    Receiver.received.clear()
    closing = datetime.fromisoformat(settings.entries_close.replace("Z", "+00:00"))
    time.sleep(max(0.0, (closing - datetime.now(UTC)).total_seconds()))
    service.tick(made.id)
    api.run_jobs()
    table = service.load(made.id).rounds[0].tables[0]
    started = {t["player_id"]: t for t in told() if t["event"] == "tournament_round_started"}
    assert set(started) == set(table.players)
    assert {t["game_id"] for t in started.values()} == {table.game_id}
    assert started[bo["id"]]["game_url"] == f"/v1/games/{table.game_id}" and started[bo["id"]]["title"] == "New round"
    Receiver.received.clear()
    play_round(runtime, made.id)
    api.run_jobs()
    kinds = sorted((t["player_id"], t["event"]) for t in told() if t["event"].startswith("tournament_"))
    everyone = [p["id"] for p in (ana, bo, cy)]
    closed_then_started = [(p, kind) for p in everyone for kind in ("tournament_round_closed", "tournament_round_started")]
    assert kinds == sorted(closed_then_started)
    Receiver.received.clear()
    play_round(runtime, made.id)
    api.run_jobs()
    kinds = sorted((t["player_id"], t["event"]) for t in told() if t["event"].startswith("tournament_"))
    assert kinds == sorted((p, "tournament_finished") for p in everyone), "the last round's close is the end, told once"
    ana_told = next(t for t in told() if t["player_id"] == ana["id"] and t["event"] == "tournament_finished")
    assert ana_told["title"] == "Turnier beendet"


def test_a_tournament_notice_names_a_tournament_kind():
    assert tournament_notice("tournament_round_started", "t_1", 4, "p_1", "t_1_r1_0") == Due(
        "notify", "t_1", 4, ("p_1", "tournament_round_started", "t_1_r1_0")
    )
    with pytest.raises(ValueError):
        tournament_notice("your_turn", "t_1", 4, "p_1")


def test_the_events_say_who_hears_what():
    t = rules.Tournament("t_1")
    t.entrants = {p: rules.Entrant(p, p, 1500, 1, n) for n, p in enumerate(("a", "b", "c", "d"))}
    t.entrants["d"].withdrawn = "choice"
    started = rules.RoundStarted(1, (rules.Table("t_1_r1_0", ("a", None, "b")),), ("c",), (), None)
    assert rules.notices_of(t, [started]) == [
        ("a", "tournament_round_started", "t_1_r1_0"),
        ("b", "tournament_round_started", "t_1_r1_0"),
        ("c", "tournament_round_started", None),
    ]
    assert rules.notices_of(t, [rules.PlayerWithdrew("a", "choice")]) == []
    assert rules.notices_of(t, [rules.PlayerWithdrew("a", "timeouts")]) == [("a", "tournament_withdrawn", None)]
    closed = rules.RoundClosed(1, ())
    assert [n[0] for n in rules.notices_of(t, [closed])] == ["a", "b", "c"], "the field still in hears of a round over"
    ended = rules.notices_of(t, [closed, rules.TournamentFinished("completed")])
    assert ended == [(p, "tournament_finished", None) for p in "abcd"]
