"""The analyses' store claims an analysis in one transaction on the game's slot, on every store the service runs on:
the slot-checked fakeredis, the real Redis and (``on_cluster``) a Redis Cluster, whose client runs no transaction
unless asked for one (a claim there once answered every request for an analysis 503: found by the soak's cluster
mode, ``python -m bench.soak --cluster``)."""

from __future__ import annotations

import pytest

from service.storage.analyses import AnalysisStore

NOW = 1_700_000_000_000
STALE = 60_000


@pytest.mark.on_cluster
@pytest.mark.parametrize("kind", ["game", "replay"])
def test_a_claim_queues_the_analysis_once_and_again_when_it_went_stale_or_its_method_changed(
    redis_client, key_prefix, kind
) -> None:
    analyses = AnalysisStore(redis_client, key_prefix, kind)
    assert analyses.claim("g1", 3, NOW, STALE, by="p1", ttl=600 if kind == "replay" else None)
    assert not analyses.claim("g1", 3, NOW + 1000, STALE, by="p2"), "queued and heard of: not claimed twice"
    record = analyses.get("g1")
    assert record is not None and (record.status, record.version, record.by, record.asked) == ("queued", 3, "p1", NOW)
    assert analyses.claim("g1", 4, NOW + 2000, STALE, by="p2"), "another method's: claimed again"
    assert analyses.claim("g1", 4, NOW + 2000 + STALE + 1, STALE, by="p3"), "not heard of within the stale time"
    assert analyses.get("g1").by == "p3"  # type: ignore[union-attr]
