"""The reports' and moderation's keys, on every store: a report kept once and queued oldest first, decided once;
a player's standing; the audit log appended in order; every command on one slot (the slot-checked fakeredis)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.domain.reports import Decision, Evidence, Report, report_id
from service.storage.moderation import ModerationStore, Sanction, Standing
from service.storage.reports import ReportStore


def a_report(reporter: str, reported: str, at: str, reason: str = "harassment") -> Report:
    evidence = Evidence("Bo", "bo_b", "g_0123456789abcdef", 7)
    return Report(report_id(reporter, reported, reason, None, None), reporter, reported, reason, "", at, evidence)


@pytest.fixture
def reports(redis_client, key_prefix) -> ReportStore:
    return ReportStore(redis_client, key_prefix)


@pytest.fixture
def moderation(redis_client, key_prefix) -> ModerationStore:
    return ModerationStore(redis_client, key_prefix)


@pytest.mark.on_cluster
def test_a_report_is_kept_once_queued_oldest_first_and_decided_once(reports):
    later = a_report("p_a", "p_b", "2026-11-28T10:00:00.000Z")
    earlier = a_report("p_c", "p_b", "2026-11-28T09:00:00.000Z")
    assert reports.create(later) == (later, True)
    assert reports.create(earlier)[1] is True
    again = a_report("p_a", "p_b", "2026-11-28T11:00:00.000Z")  # the same report, sent again later
    kept, made = reports.create(again)
    assert not made and kept == later, "the first one's evidence and time stand"
    page, following = reports.open_page(None, 1)
    assert [r.id for r in page] == [earlier.id] and following == (
        int(datetime(2026, 11, 28, 9, tzinfo=UTC).timestamp() * 1000),
        earlier.id,
    )
    decision = Decision("p_m", "warn", "first time", "2026-11-28T12:00:00.000Z")
    assert reports.decide(earlier.id, decision) is True
    assert reports.decide(earlier.id, Decision("p_n", "ban", "no", "2026-11-28T12:00:01.000Z")) is False
    decided = reports.get(earlier.id)
    assert decided is not None and decided.decision == decision and decided.status == "decided"
    assert [r.id for r in reports.open_page(None, 10)[0]] == [later.id]
    assert reports.get("r_0000000000000000") is None


@pytest.mark.on_cluster
def test_the_queue_pages_past_a_hundred_with_none_missed_or_repeated_while_reports_are_decided(reports):
    """250 open reports, many made in the same millisecond, read 100 at a time while a moderator decides some already
    shown and some still ahead: every report still open is shown once, oldest first (equal times by id)."""
    made = []
    for n in range(250):
        at = f"2026-11-28T10:00:{n // 10:02d}.000Z"  # ten reports a millisecond, in no order of their ids
        report = a_report(f"p_reporter{n}", "p_b", at)
        reports.create(report)
        made.append(report)
    order = sorted(made, key=lambda r: (r.created_at, r.id))
    decision = Decision("p_m", "dismiss", "seen", "2026-11-28T12:00:00.000Z")
    shown: list[str] = []
    cursor = None
    ahead_decided = {order[150].id, order[151].id, order[249].id}
    while True:
        page, cursor = reports.open_page(cursor, 100)
        shown.extend(r.id for r in page)
        if cursor is None:
            break
        for report in page[:5]:  # decided once shown: the queue shrinks before the cursor
            reports.decide(report.id, decision)
        for ahead in ahead_decided:
            reports.decide(ahead, decision)
    assert len(shown) == len(set(shown)), "none repeated"
    assert shown == [r.id for r in order if r.id not in ahead_decided], "none missed, oldest first"
    assert reports.open_page(None, 100)[0][0].id == order[5].id


@pytest.mark.on_cluster
def test_a_players_standing_notices_and_the_audit_log(moderation):
    assert moderation.standing("p_a") == Standing()
    moderation.accept_terms("p_a", "v2")
    ban = Sanction("ban", None, "abuse", "2026-11-28T12:00:00.000Z")
    mute = Sanction("mute", "2026-11-29T12:00:00.000Z", "spam", "2026-11-28T12:00:00.000Z")
    moderation.sanction("p_a", ban)
    moderation.sanction("p_a", mute, field="mute")
    assert moderation.standing("p_a") == Standing("v2", ban, mute)
    moderation.sanction("p_a", None)
    assert moderation.standing("p_a") == Standing("v2", None, mute)
    moderation.set_moderator("p_m", True)
    assert moderation.is_moderator("p_m") and not moderation.is_moderator("p_a")
    moderation.set_moderator("p_m", False)
    assert moderation.moderators() == []
    moderation.tell("p_a", {"code": "notice.warned", "params": {}})
    moderation.tell("p_a", {"code": "notice.muted", "params": {}})
    assert [n["code"] for n in moderation.notices("p_a")] == ["notice.muted", "notice.warned"]
    first = moderation.log({"by": "p_m", "player_id": "p_a", "action": "ban", "reason": "x", "at": "t", "report_id": None})
    second = moderation.log({"by": "operator", "player_id": "p_a", "action": "unban", "reason": "y", "at": "t"})
    entries = moderation.read_log()
    assert [(e.id, e.action, e.report_id) for e in entries] == [(first, "ban", None), (second, "unban", None)]
    assert [e.id for e in moderation.read_log(first)] == [second]
    moderation.add_words(["grumpkin", "snorkle"])
    moderation.remove_words(["snorkle"])
    assert moderation.words() == {"grumpkin"}
