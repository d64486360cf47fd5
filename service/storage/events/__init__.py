"""The event store: one Redis stream per game, appended atomically with an expected version.

Keys of a game share the hash tag ``{<game id>}`` so that a game lives on one
Redis Cluster slot and a Lua script may touch all of them:

- ``<prefix>game:{<id>}:events``   the stream; entry ``n-0`` holds event number ``n`` (1-based)
- ``<prefix>game:{<id>}:version``  how many events the stream holds (the optimistic-lock token)
- ``<prefix>game:{<id>}:snapshot`` a hash: ``version`` and ``data`` (a cached fold; once the game is over,
  only for a while: its stream is all a finished game keeps for good)
- ``<prefix>game:{<id>}:packed``   once a finished game is compacted (:meth:`EventStore.compact`): its events
  ``1..n`` in one string, ``z1 <n> <length of event n>\n``, event ``n``'s payload (the head an append checks),
  then events ``1..n-1`` as a zlib-compressed JSON array.  The stream then holds only what was appended after
  (a rematch offered), usually nothing: the record replaces it
- ``<prefix>game:{<id>}:idem``     a hash of what answers idempotent requests again: for each
  ``<scope>:<key digest>``, the version its append made and the request's fingerprint (~70 bytes; the answer
  is that version's view, rendered again).  One hash per game, not a key per request: a key of its own cost
  ~240 bytes, 15 KB for a day of an asynchronous game.  Each record is kept at least its TTL: the hash lives
  until a TTL after the game's last idempotent append.

The version lives in its own key rather than being read with ``XLEN``: the
check and the append happen inside one script, and the key makes the
contract explicit (and cheap) for readers that only want the version.

A version number alone does not name a history: after Redis loses its last
writes (a crash between fsyncs, a failover to a lagging replica) the same
numbers are given again to other events.  So a writer that folded its game
from events it remembers passes the payload of the last one (the *head*),
and the append refuses when the stream holds something else at that number.

Where each part is: :mod:`~service.storage.events.store` (:class:`EventStore`: append, read, wait, compact,
snapshots), :mod:`~service.storage.events.terms` (what it is asked and answers), :mod:`~service.storage.events.scripts`
(its Lua), :mod:`~service.storage.events.packing` (a compacted game's record) and
:mod:`~service.storage.events.waiting` (who waits, and for how long a read may block).  Import from here: the
package is the event store's one door.
"""

from service.storage.events.store import EventStore
from service.storage.events.terms import (
    Appended,
    Idempotency,
    IdempotencyMismatch,
    NotReplicated,
    Replayed,
    StoredEvent,
    VersionConflict,
    short_fingerprint,
)
from service.storage.events.waiting import Waiter

__all__ = [
    "Appended",
    "EventStore",
    "Idempotency",
    "IdempotencyMismatch",
    "NotReplicated",
    "Replayed",
    "StoredEvent",
    "VersionConflict",
    "Waiter",
    "short_fingerprint",
]
