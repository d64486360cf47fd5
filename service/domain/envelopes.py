"""How an envelope is stored: a JSON object, or, for the engine's events, a compact JSON array.

A game keeps its stream for good, and nine in ten of its events are small
engine events (a card played, a turn started) whose JSON object spelt out its
field names, an ISO timestamp and the actor every time: ~110 bytes for a few
bytes of news, ~40 KB for a finished game.  So an engine event is stored as
an array instead, ``[code, v, at, by, *fields]``:

- ``code``: the event type's place in :data:`COMPACT_TYPES` (only ever appended to);
- ``v``: the event schema version, as in the object form (upcasting is unchanged);
- ``at``: milliseconds since the epoch (or the ISO string itself, should it not be one we wrote);
- ``by``: ``ai:<n>`` as the number ``n``, ``player:<id>`` as the id alone, anything else (``system:…``) as it
  is (an actor without a colon keeps the object form: it would read as a player's id);
- the fields in the order :data:`COMPACT_FIELDS` names them, trailing ``null`` values left out.

Both forms are read for good: every stream written before this one holds
objects, and lobby events (rare, and of many shapes) are still written so.
:func:`unpack` gives the same dict for both, key for key, so nothing above
this module knows which form a payload had.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

#: Engine event types with a compact form; a type's code is its index.  Append only: stored events name these numbers.
COMPACT_TYPES: tuple[str, ...] = (
    "game_started",
    "round_dealt",
    "turn_started",
    "card_played",
    "card_drawn",
    "card_taken",
    "card_placed",
    "card_discarded",
    "player_eliminated",
    "round_won",
    "round_scored",
    "game_finished",
)

#: The order of each compact type's fields.  Written down here, not taken from the engine's dataclasses: a field
#: the engine reorders must not change what stored arrays mean (a test holds both to the same set of names).
COMPACT_FIELDS: dict[str, tuple[str, ...]] = {
    "game_started": ("players", "variant", "action_rules", "seed", "deck", "custom_deal"),
    "round_dealt": ("round", "hands", "palettes", "deck", "deck_size", "first_seat"),
    "turn_started": ("seat",),
    "card_played": ("seat", "card", "effect"),
    "card_drawn": ("seat", "card", "cause"),
    "card_taken": ("seat", "from_seat", "card"),
    "card_placed": ("seat", "card", "to"),
    "card_discarded": ("seat", "card"),
    "player_eliminated": ("seat", "reason"),
    "round_won": ("seat", "rule"),
    "round_scored": ("seat", "cards", "points"),
    "game_finished": ("winner", "reason"),
}

_CODES = {kind: code for code, kind in enumerate(COMPACT_TYPES)}
_ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
_BARE_ID = re.compile(r"[A-Za-z0-9_-]+")
_ENVELOPE_KEYS = ("at", "by", "v")


def pack(fields: dict[str, Any], *, at: str, by: str, v: int) -> str:
    """The stored payload of an event given as a dict with ``type`` (compact if its type has a compact form)."""
    kind = fields["type"]
    layout = COMPACT_FIELDS.get(kind)
    if layout is None or set(fields) - {"type"} != set(layout) or ":" not in by:
        return json.dumps({**fields, "at": at, "by": by, "v": v}, separators=(",", ":"))
    values = [fields[name] for name in layout]
    while values and values[-1] is None:
        values.pop()
    return json.dumps([_CODES[kind], v, _pack_at(at), _pack_by(by), *values], separators=(",", ":"))


def unpack(payload: str) -> dict[str, Any]:
    """The envelope a stored payload holds, as a dict (``type``, its fields, ``at``, ``by``, ``v``), either form."""
    data = json.loads(payload)
    if isinstance(data, dict):
        return data
    if not isinstance(data, list) or len(data) < 4 or not isinstance(data[0], int) or not 0 <= data[0] < len(COMPACT_TYPES):
        raise ValueError(f"not a stored envelope: {payload[:80]!r}")
    code, v, at, by, *values = data
    kind = COMPACT_TYPES[code]
    layout = COMPACT_FIELDS[kind]
    if len(values) > len(layout):
        raise ValueError(f"a stored {kind} holds {len(values)} fields, more than its {len(layout)}")
    envelope: dict[str, Any] = {"type": kind}
    envelope.update(zip(layout, values + [None] * (len(layout) - len(values)), strict=True))
    envelope.update(at=_unpack_at(at), by=_unpack_by(by), v=v)
    return envelope


@functools.lru_cache(maxsize=64)
def _pack_at(at: str) -> int | str:
    """``at`` as stored: its milliseconds when they read back as ``at`` itself.  Remembered for a few stamps: every
    event of an append (a deal: a dozen) has the same one, and parsing it and checking the round trip is most of
    what packing an event costs."""
    if not _ISO_MS.fullmatch(at):
        return at
    ms = int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000 + 0.5)
    return ms if _unpack_at(ms) == at else at


def _unpack_at(at: int | str) -> str:
    if isinstance(at, str):
        return at
    moment = datetime.fromtimestamp(at // 1000, UTC) + timedelta(milliseconds=at % 1000)  # whole numbers: no float rounding
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _pack_by(by: str) -> int | str:
    kind, _, who = by.partition(":")
    if kind == "ai" and who.isdigit() and str(int(who)) == who:
        return int(who)
    if kind == "player" and _BARE_ID.fullmatch(who):
        return who
    return by


def _unpack_by(by: int | str) -> str:
    if isinstance(by, int):
        return f"ai:{by}"
    return by if ":" in by else f"player:{by}"
