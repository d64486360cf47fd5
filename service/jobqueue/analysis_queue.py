"""The analyses' queue: players served in turn, a share of the analysts each, leases that outlive no analyst.

An analysis takes a minute of a core, and one player may ask for dozens (each a finished game of theirs, or a replay
they imported): on a first-come-first-served queue (RQ's lists) a player who asked for a hundred put everyone who
asked after them behind a hundred minutes.  Here nobody waits behind another player's backlog:

- *Rounds.*  Each analysis asked for is given a round when it is queued (start-time fair queuing, with every
  analysis counted as one unit of work): one more than the player's last, and never less than one more than the
  round being served now.  The analysts take the lowest round first (ties: the earlier asked).  So players are served
  in turn, one analysis each a round, each player's own in the order they asked, and a player who asks now is served
  within the next round whatever others queued before: a hundred asked at once are the next hundred rounds of
  *that* player, not the next hundred analyses.
- *Shares.*  A player has at most ``per_player`` analyses running at once (1 by default), as a player's games have
  their share of AI turns (:mod:`service.jobqueue.shares`): while theirs run, their next waits and the analysts take someone
  else's.  So with more analysts than that, another player's analysis starts as soon as an analyst is free, not
  after the busy player's.
- *Leases.*  An analysis taken is leased to its analyst for :data:`LEASE_MS`, renewed while it runs.  An analyst that
  dies (``kill -9``, its host gone) renews nothing: the next take finds the lease lapsed and puts the analysis back in
  its round, ahead of the later ones, for another analyst.  A stopping analyst gives it back at once.

The queue's Redis may lose all of it (see :mod:`service.jobqueue.agenda`); the stores keep every analysis asked for and not
done, with who asked and when (:mod:`service.storage.analyses`), and the ticker puts them back
(``workers.ticker.Ticker.seed``).  An analyst still running one when the queue came back empty renews its lease into
the new queue, so the analysis put back is not taken twice, unless its take came first (then two analysts compute the
same result: harmless).

Keys, under one hash tag (``{analyses}``) so that each script touches one slot (the queue's Redis is never a cluster,
but its scripts declare their keys all the same):

- ``<prefix>analyses:{analyses}:queue`` a sorted set: ``<player> <subject>`` waiting, scored by round;
- ``<prefix>analyses:{analyses}:asked`` a hash: the same member, when it was asked (ms): the tie-break in a round;
- ``<prefix>analyses:{analyses}:rounds`` a hash: each player's last round given (gone once it is taken), and
  ``:served`` the round served last;
- ``<prefix>analyses:{analyses}:leases`` a sorted set: the subjects being analysed, scored by when their lease lapses;
- ``<prefix>analyses:{analyses}:held`` a hash: subject -> ``<player> <round> <asked> <analyst>``.

A subject is ``game:<id>`` or ``replay:<id>`` (:func:`subject`).  The same subject asked for by two players waits in
both their turns; whichever comes first runs it, and the other finds it done (or running: a leased subject is never
taken again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import redis

#: How long an analysis taken stays its analyst's without a renewal (ms): its analyst renews it every
#: :data:`RENEW_EVERY` seconds while it runs, so only a dead analyst's lapses.
LEASE_MS = 20_000
RENEW_EVERY = 5.0

#: A take looks at most this many waiting entries for one whose player is under their share.
SCAN_MOST = 1000

#: KEYS: queue, asked, rounds.  ARGV: player, subject, asked (ms).  Answers 1 if queued now, 0 if it was already.
PUSH_SCRIPT = """
local member = ARGV[1] .. ' ' .. ARGV[2]
if redis.call('ZSCORE', KEYS[1], member) then return 0 end
local served = tonumber(redis.call('HGET', KEYS[3], ':served') or '0')
local last = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
local round = math.max(served, last) + 1
redis.call('ZADD', KEYS[1], round, member)
redis.call('HSET', KEYS[2], member, ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], round)
return 1
"""

#: KEYS: queue, asked, rounds, leases, held.  ARGV: now (ms), lease until (ms), the share (0: none), the analyst,
#: how many entries to look at most.  Lapsed leases go back to their round first.  Answers {subject, player} or nil.
TAKE_SCRIPT = """
local now = tonumber(ARGV[1])
for _, subject in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)) do
  local holder = redis.call('HGET', KEYS[5], subject)
  redis.call('ZREM', KEYS[4], subject)
  redis.call('HDEL', KEYS[5], subject)
  if holder then
    local player, round, asked = string.match(holder, '^(%S+) (%S+) (%S+)')
    local member = player .. ' ' .. subject
    redis.call('ZADD', KEYS[1], 'NX', round, member)
    redis.call('HSETNX', KEYS[2], member, asked)
  end
end
local running = {}
for _, holder in ipairs(redis.call('HVALS', KEYS[5])) do
  local player = string.match(holder, '^(%S+)')
  running[player] = (running[player] or 0) + 1
end
local share = tonumber(ARGV[3])
local best, best_round, best_asked = nil, nil, nil
local looked, most, past = 0, tonumber(ARGV[5]), false
while looked < most and not past do
  local page = redis.call('ZRANGE', KEYS[1], looked, looked + 99, 'WITHSCORES')
  if #page == 0 then break end
  for i = 1, #page, 2 do
    local member, round = page[i], tonumber(page[i + 1])
    if best_round and round > best_round then past = true break end
    local player = string.match(member, '^(%S+) ')
    if share == 0 or (running[player] or 0) < share then
      local asked = tonumber(redis.call('HGET', KEYS[2], member) or '0')
      if not best or asked < best_asked then best, best_round, best_asked = member, round, asked end
    end
  end
  looked = looked + 100
end
if not best then return nil end
local player, subject = string.match(best, '^(%S+) (.+)$')
redis.call('ZREM', KEYS[1], best)
redis.call('HDEL', KEYS[2], best)
local served = tonumber(redis.call('HGET', KEYS[3], ':served') or '0')
if best_round > served then redis.call('HSET', KEYS[3], ':served', best_round) end
if tonumber(redis.call('HGET', KEYS[3], player) or '-1') == best_round then redis.call('HDEL', KEYS[3], player) end
if redis.call('ZSCORE', KEYS[4], subject) then return {'', player} end
redis.call('ZADD', KEYS[4], ARGV[2], subject)
redis.call('HSET', KEYS[5], subject, player .. ' ' .. best_round .. ' ' .. best_asked .. ' ' .. ARGV[4])
return {subject, player}
"""

#: KEYS: leases, held.  ARGV: subject, lease until (ms), the analyst, the holder's line (``<player> <round> <asked>``).
#: Answers 1 if the lease is the analyst's (renewed, or written again into a queue that lost it), 0 if another's.
RENEW_SCRIPT = """
local holder = redis.call('HGET', KEYS[2], ARGV[1])
if holder and string.match(holder, '(%S+)$') ~= ARGV[3] then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if not holder then redis.call('HSET', KEYS[2], ARGV[1], ARGV[4] .. ' ' .. ARGV[3]) end
return 1
"""

#: KEYS: queue, asked, leases, held.  ARGV: subject, the analyst, whether to put it back in its round ('1') or drop it.
RELEASE_SCRIPT = """
local holder = redis.call('HGET', KEYS[4], ARGV[1])
if not holder or string.match(holder, '(%S+)$') ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
if ARGV[3] == '1' then
  local player, round, asked = string.match(holder, '^(%S+) (%S+) (%S+)')
  local member = player .. ' ' .. ARGV[1]
  redis.call('ZADD', KEYS[1], 'NX', round, member)
  redis.call('HSETNX', KEYS[2], member, asked)
end
return 1
"""

KINDS = ("game", "replay")


def subject(kind: str, subject_id: str) -> str:
    """What the queue calls an analysis: its kind (``game``: a game of this service, ``replay``: an imported replay)
    and its id."""
    if kind not in KINDS:
        raise ValueError(f"an analysis is of a game or a replay, not {kind!r}")
    return f"{kind}:{subject_id}"


def parse(name: str) -> tuple[str, str]:
    """A subject's kind and id."""
    kind, _, subject_id = name.partition(":")
    return kind, subject_id


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class Taken:
    """An analysis an analyst took: what of (:func:`subject`), whose turn it was, and its place (to renew it into a
    queue that lost it)."""

    subject: str
    player: str


class AnalysisQueue:
    """One queue Redis's analyses (see the module)."""

    def __init__(self, connection: redis.Redis, prefix: str = "red7:", per_player: int = 1, lease_ms: int = LEASE_MS) -> None:
        self.redis = connection
        self.per_player = per_player
        self.lease_ms = lease_ms
        base = f"{prefix}analyses:{{analyses}}"
        self.queue_key, self.asked_key, self.rounds_key = f"{base}:queue", f"{base}:asked", f"{base}:rounds"
        self.leases_key, self.held_key = f"{base}:leases", f"{base}:held"
        self._push = connection.register_script(PUSH_SCRIPT)
        self._take = connection.register_script(TAKE_SCRIPT)
        self._renew = connection.register_script(RENEW_SCRIPT)
        self._release = connection.register_script(RELEASE_SCRIPT)

    def push(self, player: str, name: str, asked_ms: int) -> bool:
        """Queue ``name`` (:func:`subject`) in ``player``'s turn; ``False`` if it waits there already."""
        keys = [self.queue_key, self.asked_key, self.rounds_key]
        return bool(self._push(keys=keys, args=[player or "-", name, asked_ms]))

    def take(self, analyst: str, now_ms: int) -> Taken | None:
        """The next analysis for ``analyst`` (leased to it from ``now_ms``), or ``None`` if none may start now.

        A waiting entry of a subject another analyst runs is dropped, and taken as nothing (``Taken.subject`` empty):
        the caller asks again.
        """
        keys = [self.queue_key, self.asked_key, self.rounds_key, self.leases_key, self.held_key]
        reply = self._take(keys=keys, args=[now_ms, now_ms + self.lease_ms, self.per_player, analyst, SCAN_MOST])
        if not reply:
            return None
        return Taken(_text(reply[0]), _text(reply[1]))

    def renew(self, taken: Taken, analyst: str, now_ms: int) -> bool:
        """Keep the lease ``now_ms`` + :data:`LEASE_MS`; ``False`` if another analyst holds it now (this one was
        counted dead, and its analysis taken again): it may stop."""
        keys = [self.leases_key, self.held_key]
        args: list[str | int] = [taken.subject, now_ms + self.lease_ms, analyst, f"{taken.player} 0 {now_ms}"]
        return bool(self._renew(keys=keys, args=args))

    def finish(self, taken: Taken, analyst: str) -> None:
        """The analysis is over (done, failed, or gone): its lease ends and its player's share has a place again."""
        self._release(keys=[self.queue_key, self.asked_key, self.leases_key, self.held_key], args=[taken.subject, analyst, "0"])

    def give_back(self, taken: Taken, analyst: str) -> None:
        """A stopping analyst's analysis goes back in its round at once, for another."""
        self._release(keys=[self.queue_key, self.asked_key, self.leases_key, self.held_key], args=[taken.subject, analyst, "1"])

    def waiting(self) -> list[tuple[str, str]]:
        """The analyses waiting, as (player, subject), in the order they would be taken with no share reached."""
        # WITHSCORES: (member, score) pairs; redis-py's type covers every form of the reply.
        scored = cast("list[tuple[bytes | str, float]]", self.redis.zrange(self.queue_key, 0, -1, withscores=True))
        rounds = [(_text(m), r) for m, r in scored]
        asked = self.redis.hmget(self.asked_key, [m for m, _ in rounds]) if rounds else []
        ordered = sorted(zip(rounds, asked, strict=True), key=lambda entry: (entry[0][1], int(_text(entry[1] or 0))))
        return [(member.partition(" ")[0], member.partition(" ")[2]) for (member, _), _ in ordered]

    def running(self) -> dict[str, str]:
        """The subjects being analysed, each with the player whose turn it was."""
        held = self.redis.hgetall(self.held_key)
        return {_text(name): _text(holder).split(" ", 1)[0] for name, holder in held.items()}

    def clear(self) -> None:
        """Forget everything (what a queue Redis that lost its data holds): tests and benchmarks."""
        self.redis.delete(self.queue_key, self.asked_key, self.rounds_key, self.leases_key, self.held_key)
