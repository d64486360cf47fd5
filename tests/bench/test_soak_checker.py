"""The soak's history checker on histories made by hand: a clean one passes, and each planted defect is reported as
its own kind of anomaly (the proof that the checker can fail).  Fast: no process, no Redis."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bench.soak import checker
from bench.soak.__main__ import main
from bench.soak.nemesis import CLUSTER_KINDS, KINDS, schedule
from tests.faults.test_soak import CI_MINUTES, CI_SEED

NOW = 1_000_000.0


def event(n: int, by: str, at: float, kind: str = "card_played") -> dict[str, Any]:
    return {"n": n, "type": kind, "by": by, "at": at}


def clean() -> dict[str, Any]:
    """Two games: a person's against an AI (finished), and one of AIs alone (finished); a quick match; one retry."""
    person = [
        event(1, "player:p1", NOW, "game_created"),
        event(2, "player:p1", NOW + 1),
        event(3, "ai:1", NOW + 2),
        event(4, "player:p1", NOW + 3),
        event(5, "player:p1", NOW + 3),
        event(6, "service", NOW + 4, "game_finished"),
    ]
    ais = [event(n, "ai:0", NOW + n * 5) for n in range(1, 30)]
    return {
        "requests": [{"t": NOW, "who": "p1", "method": "POST", "path": "/games/g1/actions", "status": 200}],
        "acks": [
            {"game": "g1", "player": "p1", "before": 1, "version": 2, "t": NOW + 1, "key": "k1"},
            {"game": "g1", "player": "p1", "before": 3, "version": 5, "t": NOW + 3, "key": "k2"},
        ],
        "retries": [
            {"path": "/games/g1/actions", "first": {"status": 200, "version": 2}, "again": {"status": 200, "version": 2}}
        ],
        "tickets": [{"id": "t1", "player": "p1", "game_id": "g1"}, {"id": "t2", "player": "p2", "game_id": "g1"}],
        "nemesis": [{"t": NOW + 10, "end": NOW + 12, "kind": "kill_worker"}],
        "stores": {
            "at": NOW + 200,
            "games": {
                "g1": {"events": person, "status": "finished", "turn": {}},
                "g2": {"events": ais, "status": "finished", "turn": {}, "all_ai": True},
                "g3": {
                    "events": [event(1, "player:p3", NOW, "game_created")],
                    "status": "active",
                    "turn": {"seat": 0, "kind": "human", "deadline": NOW + 3600},
                },
            },
            "matches": [{"pool": "x", "game_id": "g1", "ticket_ids": ["t1", "t2"], "players": ["p1", "p2"]}],
            "ratings": {"games": 1, "ladders": {"advanced": [1, "abc", "abc"]}},
            "replays": {"g1": {"ok": True, "problems": []}, "g2": {"ok": True, "problems": []}},
        },
    }


def anomalies(history: dict[str, Any]) -> dict[str, int]:
    return {kind: count for kind, count in checker.check(history).anomalies.items() if count}


def test_a_clean_history_has_no_anomaly() -> None:
    report = checker.check(clean())
    assert report.total == 0, report.lines()
    assert report.figures["ai_resume_worst_s"] == 3.0  # g2's first event after the fault's end (NOW+12) is at NOW+15


def test_an_acknowledged_action_removed_from_its_stream_is_lost_and_leaves_a_gap() -> None:
    history = clean()
    events = history["stores"]["games"]["g1"]["events"]
    events[:] = [e for e in events if e["n"] != 2]
    assert anomalies(history) == {"lost": 1, "gap": 1}


def test_an_ack_for_an_action_never_appended_is_lost() -> None:
    history = clean()
    history["acks"].append({"game": "g1", "player": "p1", "before": 6, "version": 7, "t": NOW + 5, "key": "k3"})
    assert anomalies(history) == {"lost": 1}


def test_an_action_appended_by_someone_else_than_the_acknowledged_player_is_lost() -> None:
    history = clean()
    history["stores"]["games"]["g1"]["events"][1]["by"] = "ai:1"
    assert anomalies(history) == {"lost": 1}


def test_an_ack_for_an_action_never_written_whose_numbers_the_next_one_took_is_lost_and_nothing_else() -> None:
    """The service said v3 to a play of R7 and wrote nothing; the player, shown v2 again, discarded B5, which was
    written as v3: the first ack is lost (another action holds its number), the second is the number's own."""
    history = clean()
    person = history["stores"]["games"]["g1"]["events"]
    person[:] = [
        event(1, "player:p1", NOW, "game_created"),
        {**event(2, "player:p1", NOW + 1), "card": "Y4"},
        {**event(3, "player:p1", NOW + 3, "card_discarded"), "card": "B5"},
        event(4, "service", NOW + 4, "game_finished"),
    ]
    history["acks"] = [
        {
            "game": "g1",
            "player": "p1",
            "before": 1,
            "version": 2,
            "t": NOW + 1,
            "key": "k1",
            "steps": [{"type": "play", "card": "Y4"}],
        },
        {
            "game": "g1",
            "player": "p1",
            "before": 2,
            "version": 3,
            "t": NOW + 2,
            "key": "k2",
            "steps": [{"type": "play", "card": "R7"}],
        },
        {
            "game": "g1",
            "player": "p1",
            "before": 2,
            "version": 3,
            "t": NOW + 3,
            "key": "k3",
            "steps": [{"type": "discard", "card": "B5"}],
        },
    ]
    assert anomalies(history) == {"lost": 1}
    history["acks"].pop(1)
    assert anomalies(history) == {}, "each ack's steps are the events it claims"
    history["acks"][1]["steps"] = [{"type": "end_turn", "card": None}]  # no card: nothing to hold the events to
    assert anomalies(history) == {}
    history["acks"][1]["steps"] = [{"type": "fold"}]
    assert anomalies(history) == {}


def test_two_acks_of_one_event_are_duplicated_and_acks_out_of_order_are_reordered() -> None:
    history = clean()
    history["acks"].append({"game": "g1", "player": "p1", "before": 4, "version": 5, "t": NOW + 4, "key": "k9"})
    assert anomalies(history) == {"duplicated": 1, "reordered": 1}


def test_a_game_left_on_an_ai_or_past_a_deadline_is_stuck() -> None:
    history = clean()
    history["stores"]["games"]["g3"]["turn"] = {"seat": 1, "kind": "ai", "deadline": None}
    assert anomalies(history) == {"stuck": 1}
    history["stores"]["games"]["g3"]["turn"] = {"seat": 0, "kind": "human", "deadline": NOW + 200 - 60}
    assert anomalies(history) == {"stuck": 1}


def test_quick_match_seating_a_player_twice_or_a_ticket_twice_is_reported() -> None:
    history = clean()
    history["stores"]["matches"].append({"pool": "x", "game_id": "g9", "ticket_ids": ["t1"], "players": ["p1"]})
    assert anomalies(history) == {"ticket_matched_twice": 1, "seated_twice": 1}
    history = clean()
    history["stores"]["matches"][0]["players"] = ["p1", "p1"]
    assert anomalies(history) == {"seated_twice": 1}


def test_a_ladder_unlike_its_rebuild_a_replay_that_fails_a_changed_retry_a_500_and_a_stall_are_reported() -> None:
    history = clean()
    history["stores"]["ratings"]["ladders"]["basic"] = [2, "abc", "abd"]
    history["stores"]["replays"]["g1"] = {"ok": False, "problems": ["step 3 differs"]}
    history["retries"][0]["again"] = {"status": 200, "version": 3}
    history["requests"].append({"t": NOW, "who": "p1", "method": "GET", "path": "/games/g1", "status": 500})
    history["stores"]["games"]["g2"]["events"] = [event(1, "ai:0", NOW), event(2, "ai:0", NOW + 100)]
    history["stores"]["games"]["g2"]["status"] = "active"
    history["stores"]["games"]["g2"]["turn"] = {"seat": 0, "kind": "human", "deadline": None}
    assert anomalies(history) == {"ladder_rebuild": 1, "replay": 1, "idempotency": 1, "server_error": 1, "ai_stall": 1}


def test_503s_and_unanswered_retries_are_no_anomaly() -> None:
    history = clean()
    history["requests"].append({"t": NOW, "who": "p1", "method": "GET", "path": "/games/g1", "status": 503})
    history["retries"][0]["again"] = {"status": 0}
    assert anomalies(history) == {}


@given(st.data())
def test_any_acknowledged_event_removed_is_found(data: st.DataObject) -> None:
    history = clean()
    acked = [n for ack in history["acks"] for n in range(ack["before"] + 1, ack["version"] + 1)]
    removed = data.draw(st.sampled_from(acked))
    tampered = copy.deepcopy(history)
    tampered["stores"]["games"]["g1"]["events"] = [e for e in history["stores"]["games"]["g1"]["events"] if e["n"] != removed]
    found = anomalies(tampered)
    assert found["lost"] >= 1


def test_the_cli_checks_a_saved_history_and_exits_1_on_an_anomaly(tmp_path, capsys) -> None:
    saved = tmp_path / "history.json"
    saved.write_text(json.dumps(clean()))
    assert main(["--check", str(saved)]) == 0
    tampered = clean()
    tampered["acks"][0]["version"] = 3  # the AI's event claimed as the player's
    saved.write_text(json.dumps(tampered))
    assert main(["--check", str(saved)]) == 1
    assert "lost 1" in capsys.readouterr().out


def test_a_feed_whose_ids_go_back_or_that_resets_is_reported() -> None:
    history = clean()
    history["streams"] = [{"game": "g1", "ids": [1, 2, 3], "resets": 0}]
    assert anomalies(history) == {}
    history["streams"].append({"game": "g1", "ids": [1, 3, 2], "resets": 0})
    history["streams"].append({"game": "g2", "ids": [4, 5], "resets": 1})
    assert anomalies(history) == {"stream": 2}


def test_the_same_seed_gives_the_same_schedule_and_every_kind_comes_in_a_short_soak() -> None:
    assert schedule(11, 600) == schedule(11, 600)
    assert schedule(11, 600) != schedule(12, 600)
    short = schedule(CI_SEED, 60 * CI_MINUTES)
    assert {p.kind for p in short} == set(KINDS)
    assert all(b.at > a.at for a, b in itertools.pairwise(short))


def test_failovers_come_only_in_cluster_mode_in_the_place_of_a_killed_stores_server() -> None:
    plain, clustered = schedule(5, 600), schedule(5, 600, cluster=True)
    assert clustered == schedule(5, 600, cluster=True)
    assert "failover" not in {p.kind for p in plain} and "kill_stores" not in {p.kind for p in clustered}
    assert {p.kind for p in clustered} == set(CLUSTER_KINDS) and len(CLUSTER_KINDS) == len(KINDS)
    assert [p.kind.replace("kill_stores", "failover") for p in plain] == [p.kind for p in clustered]
