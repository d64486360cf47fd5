"""Deliveries by outcome (issue 41, item 1): how many webhooks and pushes got through, failed for a while, were
refused for good, found their subscription gone, were handed to their line untried, or were given up on.

One count an attempt at one receiver (a webhook, a browser's subscription, an app's FCM registration), where it ends:
the notices' sender (:mod:`service.application.notices`) counts what each attempt met, the ``notices`` job
(``workers/notices.py``) what it handed over untried, the job runner (:mod:`service.jobqueue.metrics`) a retry job
given up on.  Labels are bounded: a channel and an outcome, never a receiver, player or game.
"""

from __future__ import annotations

from typing import Literal

from prometheus_client import Counter

#: ``webhook``, ``web_push`` (a browser's subscription), ``fcm`` (an app); ``push``: a push job (web and native) given up.
Channel = Literal["webhook", "web_push", "fcm", "push"]

#: ``delivered``; ``failed`` (worth a retry: down, slow, a 5xx); ``refused`` (no retry mends it: a 4xx, a private
#: address); ``unregistered`` (the subscription or app is gone, and forgotten); ``handed_over`` (not tried: its receiver
#: is troubled, it waits in its line); ``gave_up`` (its retry job failed for good).
Outcome = Literal["delivered", "failed", "refused", "unregistered", "handed_over", "gave_up"]

DELIVERIES = Counter("red7_deliveries", "Webhook and push deliveries, by channel and outcome", ["channel", "outcome"])


def delivery(channel: Channel, outcome: Outcome, count: int = 1) -> None:
    """Count ``count`` deliveries on ``channel`` that ended in ``outcome``."""
    if count:
        DELIVERIES.labels(channel, outcome).inc(count)
