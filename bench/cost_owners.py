"""Who asks Redis for what: the commands of a stretch of play, by the part of the service that sent them.

``INFO commandstats`` counts commands by name, which cannot tell RQ's ``HSET``
from ours.  Redis's ``MONITOR`` shows every command with its keys and its
connection, those run inside scripts included, so each is put down to its
owner by the key it touches.  ``MONITOR`` costs the server more than the
commands it shows: it runs in a phase of its own, apart from the CPU figures.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import redis

#: Owners by what their keys hold, the first that matches (keys under the service's prefix, ``red7:``).
OWNERS: tuple[tuple[str, str], ...] = (
    ("rq:", "RQ: each job's life, its workers' heartbeats"),
    ("limits:", "rate limits"),
    (":idem", "idempotency records"),
    ("game:{", "event store: appends, reads, snapshots"),
    ("agenda", "agenda (games to look at again)"),
    ("ai-turns:", "fair shares of AI turns"),
    ("ai-line:", "fair shares of AI turns"),
    ("jobs:{", "job markers (no job queued twice)"),
    ("pulse", "worker pulses, the ticker's role"),
    ("ticker", "worker pulses, the ticker's role"),
    ("player:{", "players and tokens"),
    ("token:", "players and tokens"),
)

#: Commands that name no key of their own: put down to the owner of the command beside them on the same connection.
NO_KEY = frozenset({"MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH"})


def owner_of(command: str) -> str | None:
    """The owner of one command line as MONITOR gives it (``NAME arg …``); ``None`` for keyless ones."""
    parts = command.split()
    name = parts[0].upper() if parts else ""
    if name in NO_KEY:
        return None
    if name in ("EVALSHA", "EVAL") and len(parts) > 3:
        key = parts[3]  # EVALSHA sha numkeys key …
    elif name in ("WAIT", "PING", "HELLO", "CLIENT", "INFO", "SELECT", "SCRIPT", "ECHO"):
        return "connections (HELLO, PING, WAIT, …)"
    else:
        key = parts[1] if len(parts) > 1 else ""
    for marker, owner in OWNERS:
        if marker in key:
            return owner
    return f"other ({name})"


def tally(commands: list[tuple[str, str]]) -> Counter[str]:
    """Commands by owner, from ``(connection, command)`` pairs in the order MONITOR gave them."""
    out: Counter[str] = Counter()
    last: dict[str, str] = {}  # each connection's last owner, for its MULTI/EXEC
    pending: dict[str, int] = {}  # keyless commands waiting for the next owner on their connection
    for connection, command in commands:
        owner = owner_of(command)
        if owner is None:
            if command.split()[0].upper() == "MULTI" or connection not in last:
                pending[connection] = pending.get(connection, 0) + 1
            else:
                out[last[connection]] += 1
            continue
        out[owner] += 1 + pending.pop(connection, 0)
        last[connection] = owner
    for count in pending.values():
        out["other (transactions)"] += count
    return out


@contextmanager
def monitored(client: redis.Redis, *, skip: set[str] | None = None) -> Iterator[list[tuple[str, str]]]:
    """Collect every command Redis runs while the block runs, as ``(connection, command)`` pairs.

    ``skip``: connections (``host:port``) whose commands are the caller's own probes.
    """
    seen: list[tuple[str, str]] = []
    ready, done = threading.Event(), threading.Event()
    connection = client.connection_pool.get_connection()
    connection.send_command("MONITOR")

    def listen() -> None:
        ready.set()
        while not done.is_set():
            if not connection.can_read(timeout=0.1):
                continue
            line = connection.read_response()
            text = line.decode() if isinstance(line, bytes) else str(line)
            if text == "OK":
                continue
            # 1732630000.123456 [0 127.0.0.1:54321] "HSET" "key" …  (lua scripts' commands: [0 lua])
            head, _, quoted = text.partition("] ")
            where = head.rsplit(" ", 1)[-1]
            if skip and where in skip:
                continue
            words = [w.strip('"') for w in quoted.split('" "')]
            seen.append((where, " ".join(words)))

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    ready.wait(5)
    try:
        yield seen
    finally:
        done.set()
        thread.join(5)
        connection.disconnect()
