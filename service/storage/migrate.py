"""``red7 migrate``: move a store from the key layout before Redis Cluster to today's, in place.

Before, a player's keys had no hash tag: ``<prefix>player:<id>``, ``...:<id>:tokens``, ``:games`` and
``:finished`` fell on four slots, and the transactions over them could not run on a cluster.  Today they
are ``<prefix>player:{<id>}...`` (:mod:`service.storage.players`).  Nothing else moves: a game's keys were
hash-tagged by the game from the start, and a token's lookup key, a replay and a stream ticket are one key
each, on slots of their own, under the same names.

One player at a time, each of its old keys is *copied* into its new name, and only when all of them are
copied are the old ones deleted.  A copy is made with single-key commands only (read the old key, write
the new one, its TTL with it), so it runs on a cluster as on one server, and it *merges* into a new key
that exists already (a hash's fields, a set's members, a sorted set's members with their scores): so
every step is safe to repeat.  Killed at any point, a rerun finds the players whose old keys remain and
finishes them; run again when done, it finds nothing to do and changes nothing.  At every moment each of a
player's keys exists under one name or the other, never under neither.

The service reads the new layout only: stop it (server and workers), migrate, start the new version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import redis

from service.storage.players.keys import player_key

#: Writes per command when a big hash, set or sorted set is copied.
BATCH = 500

T = TypeVar("T")
_GLOB = re.compile(r"([*?\[\]\\])")


@dataclass
class Report:
    """What a migration did."""

    players: int = 0  # players moved to the new layout
    keys: int = 0  # old keys copied to their new names (and deleted)
    merged: int = 0  # of those, copied into a new key that was there already (a step repeated after a stop)
    remaining: int = 0  # players of the old layout left when it stopped early (``limit``)
    moved: list[str] = field(default_factory=list)  # the players moved, in order

    def summary(self) -> str:
        if not self.players and not self.remaining:
            return "nothing to move: every player is in the cluster layout (player:{<id>})"
        text = f"moved {self.players} players ({self.keys} keys"
        text += f", {self.merged} merged into keys a stopped run had copied)" if self.merged else ")"
        if self.remaining:
            text += f"; {self.remaining} players still in the old layout (run it again)"
        return text


def old_layout(client: redis.Redis, prefix: str) -> dict[str, list[str]]:
    """The keys of the old layout (``<prefix>player:<id>...``, no braces) by player id, found in one scan."""
    start = f"{prefix}player:"
    found: dict[str, list[str]] = {}
    for key in client.scan_iter(match=_GLOB.sub(r"\\\1", start) + "*", count=1000):
        name = _text(key)
        rest = name[len(start) :]
        if rest and not rest.startswith("{"):
            found.setdefault(rest.split(":", 1)[0], []).append(name)
    return {player_id: sorted(keys) for player_id, keys in sorted(found.items())}


def new_name(prefix: str, player_id: str, old_key: str) -> str:
    """``<prefix>player:<id><rest>`` -> ``<prefix>player:{<id>}<rest>``."""
    return player_key(prefix, player_id) + old_key[len(f"{prefix}player:{player_id}") :]


def copy_key(client: redis.Redis, source: str, target: str) -> bool:
    """Copy ``source`` into ``target`` with single-key commands, merging into what ``target`` holds; and its TTL.

    Returns whether ``target`` existed already.  ``False`` if ``source`` is gone (nothing to copy).
    """
    kind = _text(client.type(source))
    existed = bool(client.exists(target))
    if kind == "none":
        return existed
    if kind == "string":
        value = client.get(source)
        if value is not None:
            client.set(target, value)
    elif kind == "hash":
        for chunk in _chunks(client.hscan_iter(source, count=BATCH)):
            client.hset(target, mapping=dict(chunk))
    elif kind == "set":
        for members in _chunks(client.sscan_iter(source, count=BATCH)):
            client.sadd(target, *members)
    elif kind == "zset":
        for pairs in _chunks(client.zscan_iter(source, count=BATCH)):
            client.zadd(target, dict(pairs))
    else:  # a player's keys are strings, hashes, sets and sorted sets; anything else is not ours to guess at
        raise ValueError(f"{source}: a {kind} is not a key of a player's")
    ttl = int(client.pttl(source))
    if ttl > 0:
        client.pexpire(target, ttl)
    return existed


def migrate_player(client: redis.Redis, prefix: str, player_id: str, keys: list[str], report: Report) -> None:
    """Move one player's old ``keys``: copy every one first, then delete them (each step safe to repeat)."""
    for key in keys:
        if copy_key(client, key, new_name(prefix, player_id, key)):
            report.merged += 1
    for key in keys:
        client.delete(key)
    report.keys += len(keys)


def migrate(
    client: redis.Redis, prefix: str, *, limit: int | None = None, progress: Callable[[str], None] | None = None
) -> Report:
    """Move every player of the old layout to the new one; at most ``limit`` players if given (then run it again)."""
    report = Report()
    pending = old_layout(client, prefix)
    for player_id, keys in pending.items():
        if limit is not None and report.players >= limit:
            break
        migrate_player(client, prefix, player_id, keys, report)
        report.players += 1
        report.moved.append(player_id)
        if progress is not None and report.players % 1000 == 0:
            progress(f"{report.players} of {len(pending)} players moved")
    report.remaining = len(pending) - report.players
    return report


def _chunks(items: Iterable[T]) -> Iterator[list[T]]:
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= BATCH:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
