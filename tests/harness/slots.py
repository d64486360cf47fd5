"""A slot check on fakeredis: what a Redis Cluster would refuse as CROSSSLOT fails here too, before it runs.

A cluster runs a Lua script, a MULTI/EXEC transaction (with the keys it WATCHes) or a multi-key command only
when all its keys hash to one slot; a standalone Redis (and fakeredis) runs them whatever the keys.  So a
store that quietly spans two slots passes every test on one server and fails on the first cluster.  The
:class:`SlotCheckedRedis` client computes each key's slot with redis-py's own ``key_slot`` (hash tags
included) and raises :class:`CrossSlot` for any of them that would span two.

Only the stores' client is checked (``redis_pair``'s text client in ``tests/conftest.py``).  The bytes client
is RQ's and the queue side's (the agenda, the AI shares, the dispatcher's markers): they stay on a standalone
Redis in a cluster deployment (``RED7_QUEUE_URL``), and RQ's own transactions span many keys by design.
Checking by client rather than by key pattern keeps the rule simple: whatever the stores write is checked.

:class:`CrossSlot` is an ``AssertionError``, not a ``RedisError``: the service answers a Redis error with a
503 and a retry, which a test could mistake for a passing fault path; a layout bug must fail the test.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import fakeredis
import redis
from redis.crc import key_slot

#: Commands that name no key (or whose arguments are no keys).
KEYLESS = {
    "MULTI",
    "EXEC",
    "DISCARD",
    "UNWATCH",
    "PING",
    "ECHO",
    "INFO",
    "WAIT",
    "WAITAOF",
    "SCRIPT",
    "COMMAND",
    "SELECT",
    "FLUSHDB",
    "FLUSHALL",
    "DBSIZE",
    "SCAN",
    "KEYS",
    "CLIENT",
    "CONFIG",
    "TIME",
    "PUBLISH",
    "SUBSCRIBE",
    "HELLO",
    "FUNCTION",
    "RANDOMKEY",
    "LASTSAVE",
    "MEMORY",
    "CLUSTER",
    "READONLY",
    "READWRITE",
    "AUTH",
    "QUIT",
    "RESET",
}
#: Commands whose every argument is a key.
ALL_KEYS = {
    "DEL",
    "UNLINK",
    "EXISTS",
    "TOUCH",
    "MGET",
    "WATCH",
    "SINTER",
    "SUNION",
    "SDIFF",
    "SINTERSTORE",
    "SUNIONSTORE",
    "SDIFFSTORE",
    "PFCOUNT",
    "PFMERGE",
}
#: Commands whose first two arguments are keys.
TWO_KEYS = {"RENAME", "RENAMENX", "SMOVE", "LMOVE", "BLMOVE", "RPOPLPUSH", "BRPOPLPUSH", "COPY", "GEOSEARCHSTORE"}
#: Blocking pops: every argument but the timeout is a key.
BLOCKING = {"BLPOP", "BRPOP", "BZPOPMIN", "BZPOPMAX"}
SCRIPTS = {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"}


class CrossSlot(AssertionError):
    """A script, transaction or command whose keys a Redis Cluster would refuse (CROSSSLOT)."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def command_keys(args: Sequence[Any]) -> list[Any]:
    """The keys a command names (Redis's key specs for the commands a store may send; else its first argument)."""
    if not args:
        return []
    name = _text(args[0]).upper()
    rest = list(args[1:])
    if name in KEYLESS or not rest:
        return []
    if name in SCRIPTS:
        return rest[2 : 2 + int(rest[1])]
    if name in ALL_KEYS:
        return rest
    if name in TWO_KEYS:
        return rest[:2]
    if name in BLOCKING:
        return rest[:-1]
    if name in ("MSET", "MSETNX"):
        return rest[::2]
    if name in ("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"):
        return [rest[0], *rest[2 : 2 + int(rest[1])]]
    if name in ("ZUNION", "ZINTER", "ZDIFF", "SINTERCARD", "ZINTERCARD", "LMPOP", "ZMPOP"):
        return rest[1 : 1 + int(rest[0])]
    if name in ("XREAD", "XREADGROUP"):
        words = [_text(word).upper() for word in rest]
        after = rest[words.index("STREAMS") + 1 :] if "STREAMS" in words else []
        return after[: len(after) // 2]
    return rest[:1]


def check_one_slot(what: str, keys: Iterable[Any]) -> None:
    """Raise :class:`CrossSlot` if ``keys`` hash to more than one slot."""
    slots: dict[int, list[str]] = {}
    for key in keys:
        encoded = key if isinstance(key, bytes) else str(key).encode()
        slots.setdefault(key_slot(encoded), []).append(_text(key))
    if len(slots) > 1:
        spread = "; ".join(f"slot {slot}: {', '.join(sorted(set(names)))}" for slot, names in sorted(slots.items()))
        raise CrossSlot(f"{what} touches {len(slots)} cluster slots ({spread})")


class SlotCheckedPipeline(redis.client.Pipeline):
    """A pipeline whose transaction (with the keys it watched) and each script or multi-key command keep to one slot."""

    _watched: list[Any]

    def reset(self) -> None:
        super().reset()
        self._watched = []

    def watch(self, *names: Any) -> Any:
        check_one_slot("WATCH", names)
        self._watched = [*getattr(self, "_watched", []), *names]
        return super().watch(*names)

    def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        check_one_slot(f"the command {_text(args[0]).upper()}", command_keys(args))
        return super().immediate_execute_command(*args, **options)

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        stack = self.command_stack
        if self.transaction or self.explicit_transaction:
            commands = " ".join(_text(args[0]).upper() for args, _ in stack)
            keys = [*getattr(self, "_watched", []), *(key for args, _ in stack for key in command_keys(args))]
            check_one_slot(f"a transaction (MULTI {commands} EXEC)", keys)
        else:
            for args, _ in stack:
                check_one_slot(f"the command {_text(args[0]).upper()}", command_keys(args))
        return super().execute(raise_on_error)


class SlotCheckedRedis(fakeredis.FakeRedis):
    """fakeredis that fails whatever a Redis Cluster would refuse for spanning two slots (see the module)."""

    def execute_command(self, *args: Any, **options: Any) -> Any:
        check_one_slot(f"the command {_text(args[0]).upper()}", command_keys(args))
        return super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> SlotCheckedPipeline:
        return SlotCheckedPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
