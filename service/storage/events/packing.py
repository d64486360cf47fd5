"""The packed record of a compacted game: events ``1..n`` in one string, its head readable without unpacking.

``z1 <n> <length of event n>\n``, event ``n``'s payload (the head an append checks), then events ``1..n-1`` as a
zlib-compressed JSON array (:meth:`~service.storage.events.store.EventStore.compact`; the scripts read the header).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence

#: The packed record's format, its first bytes.
PACKED = b"z1"


def pack(payloads: Sequence[str]) -> bytes:
    """Events ``1..n`` as one record: a header (``z1 <n> <length of the head>``), event ``n`` as it is (the head an
    append checks, read without unpacking), then events ``1..n-1``: a JSON array, zlib-compressed."""
    head = payloads[-1].encode()
    body = zlib.compress(json.dumps(list(payloads[:-1]), separators=(",", ":")).encode(), 9)
    return b"%s %d %d\n%s%s" % (PACKED, len(payloads), len(head), head, body)


def packed_upto(record: bytes) -> int:
    """How many events a packed record holds (its header's ``n``)."""
    fields = record.split(b"\n", 1)[0].split(b" ")
    if fields[0] != PACKED or len(fields) < 3:
        raise ValueError(f"not a packed record: {record[:32]!r}")
    return int(fields[1])


def unpack(record: bytes) -> list[str]:
    """The payloads of events ``1..n`` of a packed record, as they were appended."""
    header, _, rest = record.partition(b"\n")
    _, upto, size = header.split(b" ")
    head, body = rest[: int(size)], rest[int(size) :]
    payloads: list[str] = json.loads(zlib.decompress(body)) if int(upto) > 1 else []
    if int(upto) > 1 and len(payloads) != int(upto) - 1:
        raise ValueError(f"a packed record of {int(upto)} events holds {len(payloads) + 1}")
    return [*payloads, head.decode()]
