"""Reports in Redis: each a key of its own, and the queue of open ones.

``<prefix>report:{<id>}``  a hash on the report's own slot: ``doc`` (the report as made, its evidence in it: JSON,
                           written once, ``HSETNX``), ``decision`` (JSON, written once, ``HSETNX``: the first
                           decision is the one)
``<prefix>reports:open``   a sorted set: the ids of open reports by when they were made (ms), oldest first

A report is written before it is queued, and a decision before it leaves the queue: a crash between the two leaves a
report made but not queued (its retry, the same report, queues it: :meth:`ReportStore.create` adds it to the queue
whether or not it is new) or decided but still queued (the queue's reader drops the decided: :meth:`open_page`).
Each command is on one key, so one slot.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import cast

import redis

from service.domain.reports import Decision, Report


class ReportStore:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix

    def _key(self, report_id: str) -> str:
        return f"{self.prefix}report:{{{report_id}}}"

    @property
    def _queue(self) -> str:
        return f"{self.prefix}reports:open"

    def create(self, report: Report) -> tuple[Report, bool]:
        """Keep ``report`` unless one with its id is kept already: the report kept, and whether it is new."""
        made = bool(self.redis.hsetnx(self._key(report.id), "doc", json.dumps(report.json())))
        kept = report if made else self.get(report.id)
        assert kept is not None
        if kept.decision is None:
            created = datetime.fromisoformat(kept.created_at.replace("Z", "+00:00"))
            self.redis.zadd(self._queue, {kept.id: int(created.timestamp() * 1000)}, nx=True)
        return kept, made

    def get(self, report_id: str) -> Report | None:
        return _report(cast("dict[str, str]", self.redis.hgetall(self._key(report_id))))

    def decide(self, report_id: str, decision: Decision) -> bool:
        """Record the decision unless one is recorded already (``False`` then); the report leaves the queue."""
        decided = bool(self.redis.hsetnx(self._key(report_id), "decision", json.dumps(decision.json())))
        self.redis.zrem(self._queue, report_id)
        return decided

    def open_page(self, after: tuple[int, str] | None, limit: int) -> tuple[list[Report], tuple[int, str] | None]:
        """Open reports, oldest first, after the cursor ``after`` = (ms, id) of the last one looked at (equal times in
        ascending id, Redis's order): up to ``limit``, and the cursor of the next page (``None``: the last).

        A cursor is a place in the order, not a count: a report decided (so gone from the queue) while a moderator
        pages moves no other report to an earlier page, so none is skipped or shown twice.  A page may be short: the
        decided ones still queued are dropped from it as they are read."""
        low: float | str = "-inf" if after is None else after[0]
        batch = limit + 16
        rows: list[tuple[str, int]] = []
        offset = 0
        while len(rows) <= limit:
            reply = self.redis.zrangebyscore(self._queue, low, "+inf", start=offset, num=batch, withscores=True)
            chunk = cast("list[tuple[str, float]]", reply)
            for member, score in chunk:
                if after is not None and int(score) == after[0] and member <= after[1]:
                    continue  # on an earlier page
                rows.append((member, int(score)))
            if len(chunk) < batch:
                break
            offset += len(chunk)
        looked = rows[:limit]
        reports = []
        for (report_id, _), report in zip(looked, self._many([r for r, _ in looked]), strict=True):
            if report is None or report.decision is not None:  # decided as it left the queue (or cut short): drop it
                self.redis.zrem(self._queue, report_id)
                continue
            reports.append(report)
        following = (looked[-1][1], looked[-1][0]) if len(rows) > limit else None
        return reports, following

    def _many(self, report_ids: list[str]) -> list[Report | None]:
        """The reports of these ids, in one round trip (a plain pipeline: each report on its own slot)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for report_id in report_ids:
                pipe.hgetall(self._key(report_id))
            replies = pipe.execute()
        return [_report(cast("dict[str, str]", fields)) for fields in replies]

    def open_count(self) -> int:
        return int(self.redis.zcard(self._queue))


def _report(fields: dict[str, str]) -> Report | None:
    """The report a hash holds (``None``: none)."""
    if not fields.get("doc"):
        return None
    data = json.loads(fields["doc"])
    if fields.get("decision"):
        data["decision"] = json.loads(fields["decision"])
    return Report.from_json(data)
