"""Blocks, mutes and who may reach a player: what a player may ask, and what the rest of the service asks of them.

A player blocks or mutes another by handle or id, lists them a page at a time, and lifts them; each list is bounded
(:data:`~service.domain.blocks.MAX_BLOCKS`, :data:`~service.domain.blocks.MAX_MUTES`) and every add and remove is
idempotent (blocking twice is one block, and keeps its time).  The rest of the service asks:

- challenges (:meth:`BlockService.challenge_gate`): whom the challenger blocked (refused here, the challenger's own
  doing) and who among the challenged has finished a game with them, for the inbox's script, which reads the
  challenged player's blocks and reach in the step that lists the challenge (race-free: see
  :mod:`service.storage.blocks`);
- quick match (:meth:`BlockService.apart`): the block relation among a pool's players, for the pure pairing;
- the open tables (:meth:`BlockService.keeps_apart`): whether a player and the players seated are kept apart.

And a block ends what is open between the two: their open challenges (``on_block``, which the runtime joins to
:meth:`ChallengeService.part_ways <service.application.challenges.ChallengeService.part_ways>`).

A block is private: nothing here tells the blocked player, and whatever they are refused reads like any refusal.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from service.application.players import PlayerService
from service.common.errors import Refused, bad_cursor
from service.domain.blocks import MAX_BLOCKS, MAX_MUTES, Apart, Reach, refused
from service.storage.blocks import BlockStore, ListFull
from service.storage.players import Player, PlayerStore

#: What each list is called in refusals, and its cap.
LIMITS = {"blocks": MAX_BLOCKS, "mutes": MAX_MUTES}
LIMIT_CODES = {"blocks": "block_limit_reached", "mutes": "mute_limit_reached"}


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class Listed:
    """A player in someone's list: who, under what name and handle, since when (ms)."""

    player_id: str
    name: str
    handle: str | None
    since_ms: int


@dataclass(frozen=True, slots=True)
class ListPage:
    entries: list[Listed]
    next_cursor: str | None


def _cursor(at: tuple[str, int]) -> str:
    """A page's cursor: the last entry shown, (player id, ms)."""
    return base64.urlsafe_b64encode(f"{at[1]}:{at[0]}".encode()).decode().rstrip("=")


def _parse_cursor(cursor: str) -> tuple[int, str]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        ms, player_id = text.split(":", 1)
        return int(ms), player_id
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad_cursor() from None


class BlockService:
    """Each player's blocks, mutes and reach (see the module)."""

    def __init__(
        self, store: BlockStore, players: PlayerStore, accounts: PlayerService, *, clock: Callable[[], int] = now_ms
    ) -> None:
        self.store = store
        self.players = players
        self.accounts = accounts
        self.clock = clock
        #: Called with the blocker and the blocked player's id after each block (again for a block there already):
        #: what ends between two players once one blocks the other (their open challenges: service/runtime.py).
        self.on_block: list[Callable[[Player, str], None]] = []

    # --- a player's lists ---------------------------------------------------------------------------

    def add(self, player: Player, which: str, ref: str) -> Listed:
        """Block (``which`` = ``blocks``) or mute (``mutes``) the player ``ref`` names (handle or id): the entry, as
        it was made the first time."""
        other = self._other(player, ref)
        try:
            self.store.add(which, player.id, other.id, self.clock(), LIMITS[which])
        except ListFull:
            raise Refused(
                LIMIT_CODES[which],
                f"You have {LIMITS[which]} players in this list, as many as a player may: remove one first.",
                limit=LIMITS[which],
            ) from None
        if which == "blocks":
            for part in self.on_block:
                part(player, other.id)
        return self._entry(player.id, which, other)

    def remove(self, player: Player, which: str, ref: str) -> Player:
        """Lift a block or mute (none there: nothing to do); the player ``ref`` names."""
        other = self._other(player, ref)
        self.store.remove(which, player.id, other.id)
        return other

    def page(self, player: Player, which: str, limit: int, cursor: str | None = None) -> ListPage:
        """The player's list, newest first, ``limit`` at a time."""
        before = None if cursor is None else _parse_cursor(cursor)
        rows = self.store.page(which, player.id, before, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        tags = self.players.tags({other for other, _ in rows})
        shown = []
        for other, since in rows:
            found = self.players.get(other)
            name = found.name if found is not None else "deleted player"
            shown.append(Listed(other, name, tags[other].handle if other in tags else None, since))
        return ListPage(shown, _cursor(rows[-1]) if more and rows else None)

    def _other(self, player: Player, ref: str) -> Player:
        other = self.accounts.find(ref)
        if other.id == player.id:
            raise Refused("cannot_block_yourself", "You cannot block or mute yourself.", field="player")
        return other

    def _entry(self, player_id: str, which: str, other: Player) -> Listed:
        at = self.store.since(which, player_id, other.id)
        return Listed(other.id, other.name, other.handle, self.clock() if at is None else at)

    # --- who may reach a player -------------------------------------------------------------------

    def reach(self, player_id: str) -> Reach:
        return reach_of(self.store, player_id)

    def set_reach(self, player_id: str, *, challenge: str | None = None, talk: str | None = None) -> Reach:
        """Change who may challenge the player, or talk to them at a table (``None``: unchanged)."""
        wanted = {k: v for k, v in (("challenge", challenge), ("talk", talk)) if v is not None}
        Reach(**wanted)  # checked before anything is stored
        self.store.set_reach(player_id, wanted)
        return self.reach(player_id)

    # --- what the rest of the service asks (the functions below, over this service's store) -----------

    def challenge_gate(self, challenger: Player, challenged: Sequence[tuple[str, str]]) -> set[str]:
        return challenge_gate(self.store, challenger.id, challenged)

    def apart(self, player_ids: Iterable[str]) -> Apart:
        return apart_among(self.store, player_ids)

    def keeps_apart(self, player_id: str, others: Collection[str]) -> bool:
        return kept_apart(self.store, player_id, others)

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's blocks and mutes go, both ways, and its settings (safe to repeat)."""
        self.store.erase(player_id)


def reach_of(store: BlockStore, player_id: str) -> Reach:
    """Who may challenge the player and talk to them at a table (the defaults for what they never set)."""
    return reach_from(store.reach(player_id))


def reach_from(stored: Mapping[str, str]) -> Reach:
    """A player's reach from their stored settings (:meth:`BlockStore.reach`): the defaults for what they never set."""
    default = Reach()
    return Reach(stored.get("challenge", default.challenge), stored.get("talk", default.talk))


def challenge_gate(store: BlockStore, challenger: str, challenged: Sequence[tuple[str, str]]) -> set[str]:
    """Before a challenge is listed: refuse it if the challenger blocked any of the ``challenged`` (id, name), and say
    which of them have finished a game with the challenger (for those whose reach is ``played``: a record only grows,
    so it may be read before; the challenged players' blocks and reach are read by the inbox's script itself)."""
    mine = [name for player_id, name in challenged if store.has("blocks", challenger, player_id)]
    if mine:
        raise refused(mine)
    return {
        player_id
        for player_id, _ in challenged
        if reach_of(store, player_id).challenge == "played" and store.played_together(challenger, player_id)
    }


def apart_among(store: BlockStore, player_ids: Iterable[str]) -> Apart:
    """The block relation among these players (a block either way keeps a pair apart)."""
    players = set(player_ids)
    blocks = store.blocks_of(players)
    return Apart({blocker: [p for p in blocked if p in players] for blocker, blocked in blocks.items()})


def kept_apart(store: BlockStore, player_id: str, others: Collection[str]) -> bool:
    """Whether a block either way stands between the player and any of ``others``."""
    if not others:
        return False
    apart = apart_among(store, [player_id, *others])
    return any(apart(player_id, other) for other in others)
