"""The time keepers' Prometheus metrics (issue 41, item 1): how many of the agenda's looks are overdue (the ticker's),
how long a matchmaker pass takes and how many tickets wait in each quick-match pool (the matchmaker's).

Each is set by the process holding the role (:mod:`workers.ticker`, :mod:`workers.matchmaker`); a ``red7 worker``
that does not hold it says 0, so a sum over the workers is the holder's figure.  Labels are bounded: a queue shard's
index, and a pool's key (``advanced-plain-rated-60s``: a variant, the action rules or not, rated or not, a time
control from the fixed lists of :class:`service.domain.matchmaking.Kind`; a key that names no pool is never a label).
"""

from __future__ import annotations

from prometheus_client import Gauge, Histogram

#: A look on the agenda this far (s) past its time is overdue: the ticker looks four times a second, so a look due
#: for longer waits behind others (a sweep of more than its batch) or for a ticker at all.
OVERDUE_AFTER = 5.0

DEADLINES_OVERDUE = Gauge(
    "red7_deadlines_overdue",
    f"Games on the agenda whose look (a deadline, a paced AI, a check on a job) is over {OVERDUE_AFTER:g} s late",
    ["shard"],
    multiprocess_mode="livemax",
)
MATCH_PASS_SECONDS = Histogram(
    "red7_matchmaker_pass_seconds",
    "How long one matchmaker pass over every pool took",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
MATCH_TICKETS = Gauge(
    "red7_matchmaking_tickets",
    "Quick-match tickets waiting in a pool, as the matchmaker's last pass found them",
    ["pool"],
    multiprocess_mode="livemax",
)


def overdue(shard: int, count: int) -> None:
    DEADLINES_OVERDUE.labels(str(shard)).set(count)


def pass_took(seconds: float, waiting: dict[str, int]) -> None:
    """A pass took ``seconds`` and left ``waiting`` tickets in each pool it looked at."""
    MATCH_PASS_SECONDS.observe(seconds)
    for pool, count in waiting.items():
        MATCH_TICKETS.labels(pool).set(count)


def not_matching(pools: list[str]) -> None:
    """This process does not hold the matchmaker's role (any more): its figures are the holder's to give."""
    for pool in pools:
        MATCH_TICKETS.labels(pool).set(0)
