"""Handles: who holds each one (a claim key per handle) and the index that finds them by prefix.

A handle is unique without regard to case: it is stored on the player as given ("Ana_B") and compared
*folded* (:func:`fold`: "ana_b").  Uniqueness is a claim, one key per folded handle on a Redis Cluster slot
of its own, taken with one script (``SET`` if nobody holds it):

- ``<prefix>handle:{<folded>}`` ``"<player id> <ms>"``: who claimed it and when (the server's clock, in ms)
- ``<prefix>handles`` a sorted set, every member ``"<folded> <player id>"`` at score 0: a prefix search is
  one ``ZRANGEBYLEX`` (the space sorts below every character a handle may hold, so "ana" comes before
  "ana-b" and "ana_b")

The claim, the player's record and the index are on three slots, so no write covers them all.  The writes are
ordered instead (:class:`~service.storage.players.PlayerStore` does it), like a token's: the claim is taken
*before* the player's record points to the handle, and released after it no longer does.  A claim is therefore
in one of three states:

- *held by its player*: the player's record names the handle (folded alike);
- *set aside*: the player gave it up and keeps it a while (``hold``: the key has a TTL) so that nobody else can
  pose as them under it at once; only they may take it back, and it frees itself when the TTL runs out;
- *pending*: claimed, and the record does not name it (yet).  A claim on its way, or one a crash left
  behind between the two writes: a lookup ignores it (the record decides), and once it is older than
  :data:`TAKEOVER_AFTER_MS`, another player may take it over (:meth:`HandleClaims.claim`), so a crash never
  keeps a handle from anyone for good.  A writer that has held its claim for half that time refreshes it
  before its record points to it (:data:`FRESH_FOR`), so a takeover never races a live write.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import redis

#: A pending claim (nobody's record names it) may be taken over by another player once it is this old (ms).
TAKEOVER_AFTER_MS = 5 * 60 * 1000
#: How long (s, by the claimant's clock) a claim may be relied on before its record points to it: half the
#: takeover age, so a claim in use is never taken over, whatever the clocks of the two writers.
FRESH_FOR = TAKEOVER_AFTER_MS / 2000

#: KEYS[1] the claim; ARGV[1] the claimant, ARGV[2] a value it saw and may take over ("": none), ARGV[3] how old
#: that value must be (ms).  Claims (``{1, value}``) when nobody holds the handle, when the claimant does (its
#: time is refreshed, and a TTL dropped: a handle set aside is taken back), or when it is the value seen, still
#: pending (no TTL) and old enough.  Else ``{0, value, pttl, age}``: what holds it.
_CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mine = ARGV[1] .. ' ' .. now
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], mine)
  return {1, mine}
end
local owner, at = string.match(held, '^(%S+) (%d+)$')
local age = now - (tonumber(at) or 0)
local pttl = redis.call('PTTL', KEYS[1])
if owner == ARGV[1] or (ARGV[2] ~= '' and held == ARGV[2] and pttl == -1 and age >= tonumber(ARGV[3])) then
  redis.call('SET', KEYS[1], mine)
  return {1, mine}
end
return {0, held, pttl, age}
"""

#: KEYS[1] the claim; ARGV[1] the player; ARGV[2] ms to keep it set aside (0: free it now).  Only the player's own.
_LET_GO = """
local held = redis.call('GET', KEYS[1])
if not held or string.match(held, '^(%S+) ') ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > 0 then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('DEL', KEYS[1])
"""


#: Whether a player's record names a (folded) handle: what tells a claim held from a pending one.
NamesIt = Callable[[str, str], bool]


def fold(handle: str) -> str:
    """How handles are compared: ASCII letters in lower case (a handle holds no other letters)."""
    return handle.lower()


def claim_key(prefix: str, handle: str) -> str:
    return f"{prefix}handle:{{{fold(handle)}}}"


def index_key(prefix: str) -> str:
    return f"{prefix}handles"


def index_member(handle: str, player_id: str) -> str:
    return f"{fold(handle)} {player_id}"


class HandleTaken(Exception):
    """Another player holds the handle (or set it aside, or is claiming it now)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim this process made: its value, and when (monotonic seconds) it made it."""

    handle: str
    value: str
    made: float

    @property
    def fresh(self) -> bool:
        return time.monotonic() - self.made < FRESH_FOR


@dataclass(frozen=True, slots=True)
class Found:
    """An index entry: the folded handle and the player it was written for (their record says whether it holds)."""

    folded: str
    player_id: str


class HandleClaims:
    """The claim keys: take one, let one go (now or after a while), read who holds one."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix
        self._claim = client.register_script(_CLAIM)
        self._let_go = client.register_script(_LET_GO)

    def claim(self, handle: str, player_id: str, names_it: NamesIt) -> Claim:
        """Claim ``handle`` for ``player_id``, or raise :class:`HandleTaken`.

        ``names_it(player_id, folded)`` says whether that player's record names the handle: a pending claim of
        another player is taken over only when it does not, and only once it is :data:`TAKEOVER_AFTER_MS` old.
        """
        key = claim_key(self.prefix, handle)
        reply = cast("list[object]", self._claim(keys=[key], args=[player_id, "", TAKEOVER_AFTER_MS]))
        if reply[0] == 1:
            return Claim(handle, str(reply[1]), time.monotonic())
        held, pttl, age = str(reply[1]), int(cast("int", reply[2])), int(cast("int", reply[3]))
        owner = held.split(" ", 1)[0]
        if pttl != -1 or age < TAKEOVER_AFTER_MS or names_it(owner, fold(handle)):
            raise HandleTaken(handle)
        reply = cast("list[object]", self._claim(keys=[key], args=[player_id, held, TAKEOVER_AFTER_MS]))
        if reply[0] != 1:
            raise HandleTaken(handle)
        return Claim(handle, str(reply[1]), time.monotonic())

    def refresh(self, claim: Claim, player_id: str) -> Claim:
        """The same claim, made fresh again (:class:`HandleTaken` if it was taken over meanwhile)."""
        if claim.fresh:
            return claim
        return self.claim(claim.handle, player_id, lambda owner, folded: True)

    def let_go(self, handle: str, player_id: str, keep_ms: int = 0) -> None:
        """Free the player's claim on ``handle`` now, or set it aside for ``keep_ms``; another's claim stays."""
        self._let_go(keys=[claim_key(self.prefix, handle)], args=[player_id, max(0, keep_ms)])

    def owner(self, handle: str) -> str | None:
        """The player whose claim ``handle`` is (held, set aside or pending: their record says which)."""
        held = self.redis.get(claim_key(self.prefix, handle))
        if held is None:
            return None
        text = held.decode() if isinstance(held, bytes) else str(held)
        return text.split(" ", 1)[0]


class HandleIndex:
    """The sorted set a prefix search reads.  An entry is a hint: the player's record says whether it holds."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.key = index_key(prefix)

    def add(self, handle: str, player_id: str) -> None:
        self.redis.zadd(self.key, {index_member(handle, player_id): 0})

    def remove(self, handle: str, player_id: str) -> None:
        self.redis.zrem(self.key, index_member(handle, player_id))

    def starting(self, prefix: str, after: Found | None, count: int) -> list[Found]:
        """Up to ``count`` entries whose handle starts with ``prefix`` (folded), after ``after``, in index order."""
        folded = fold(prefix)
        low = f"({after.folded} {after.player_id}" if after is not None else f"[{folded}"
        high = f"({folded}\x7f"  # every character of a member sorts below DEL
        members = self.redis.zrangebylex(self.key, low, high, start=0, num=count)
        found = []
        for member in members:
            text = member.decode() if isinstance(member, bytes) else str(member)
            handle, _, player_id = text.partition(" ")
            found.append(Found(handle, player_id))
        return found
