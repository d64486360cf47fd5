"""Players' calendars in Redis: a stream per player, through the event store's appends, on the player's slot.

``<prefix>calendar:{<player id>}:events``, ``:version``, ``:idem``: the stream of the player's calendar
(:mod:`service.domain.calendars`), its version and the records of idempotent answers, under the player's hash tag, so that
a Redis Cluster keeps it on the slot of the player's other keys (:mod:`service.storage.players`).
"""

from __future__ import annotations

from service.storage.events import EventStore


class CalendarStreams(EventStore):
    """The event store's streams under keys of their own, ``calendar:{<player id>}:...``: appends checked against the
    expected version (and head), as a game's are."""

    def _key(self, stream: str, part: str) -> str:
        return f"{self.prefix}calendar:{{{stream}}}:{part}"
