"""What is shown of a deleted account: its seats read "deleted player", wherever a game is read.

A game's stream is append-only and a replay is verified against it, so a deleted player's events stay as they
were written, under the pseudonymous id they always had; only the name their seat was taken under is no longer
shown.  A view names the seat :data:`DELETED_NAME` (:mod:`service.http.views`), and the feeds and replays read
the stream through :func:`erase_names`, so that the replay built from it names the seat so throughout (header,
events and sentences alike): it verifies as any other, since the verifier replays the file's own events.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

#: How a table names the seat of a deleted account.
DELETED_NAME = "deleted player"


def seated_in(envelopes: Iterable[dict[str, Any]]) -> set[str]:
    """The players who took a seat in these stored envelopes (the ones whose names they hold)."""
    return {data["player_id"] for data in envelopes if data.get("type") == "seat_taken" and data.get("player_id")}


def erase_names(data: dict[str, Any], deleted: Collection[str]) -> dict[str, Any]:
    """A stored envelope as it may be shown: a deleted player's name replaced (the id stays: it names nobody now)."""
    if deleted and data.get("type") == "seat_taken" and data.get("player_id") in deleted:
        return {**data, "name": DELETED_NAME}
    return data
