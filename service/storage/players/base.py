"""What every part of the player's store shares: the client and prefix, the keys of one player, the per-process
caches and their lock, the handle claims and index, and the reads of a player's record that each part makes.

The parts (:mod:`.accounts`, :mod:`.tokens`, :mod:`.handles`, :mod:`.records`, :mod:`.game_lists`) each add the
methods of one concern; :class:`~service.storage.players.store.PlayerStore` is all of them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import redis

from service.storage.changes import ChangeWatch
from service.storage.handles import HandleClaims, HandleIndex, fold
from service.storage.players.keys import finished_key, games_key, player_key, records_key, token_key, tokens_key
from service.storage.players.model import AccountGone, Grant, Player, PlayerTag, as_text, as_texts, stored_player

#: Set fields of a player's record only while it is a player's (it has a name): never on a deleted account's tombstone.
#: KEYS[1] the record; ARGV field, value, ...  Returns 1 if written, 0 if the record is no player's.
_SET_IF_PLAYER = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class PlayerBase:
    """The state the parts of the player's store share (see the module)."""

    def __init__(
        self, client: redis.Redis, prefix: str = "red7:", cache_seconds: float = 10.0, watch: ChangeWatch | None = None
    ) -> None:
        self.redis = client
        self.prefix = prefix
        self.cache_seconds = cache_seconds
        self.watch = watch  # the tokens' lookup keys (family "token"): a cached lookup read without a round trip
        self._by_token: dict[str, tuple[float, Grant]] = {}
        self._webhooks: dict[str, tuple[float, str | None]] = {}
        self._tags: dict[str, tuple[float, PlayerTag]] = {}
        self._revocations = 0  # revocations in this process, so that a lookup racing one is not cached
        self._lock = threading.Lock()
        self.claims = HandleClaims(client, prefix)
        self.index = HandleIndex(client, prefix)
        self._set_if_player = client.register_script(_SET_IF_PLAYER)

    def _player_key(self, player_id: str) -> str:
        return player_key(self.prefix, player_id)

    def _token_key(self, token_hash: str) -> str:
        return token_key(self.prefix, token_hash)

    def _games_key(self, player_id: str) -> str:
        return games_key(self.prefix, player_id)

    def _finished_key(self, player_id: str) -> str:
        return finished_key(self.prefix, player_id)

    def _tokens_key(self, player_id: str) -> str:
        return tokens_key(self.prefix, player_id)

    def create_records_key(self, player_id: str) -> str:
        """Where the player's creates (a game, a challenge, a match ticket, an import) keep their idempotency records
        (:class:`~service.storage.idempotency.CreateRecords`): on the player's slot."""
        return records_key(self.prefix, player_id)

    def get(self, player_id: str) -> Player | None:
        return stored_player(player_id, as_texts(self.redis.hgetall(self._player_key(player_id))))

    def names(self, player_ids: Iterable[str]) -> dict[str, str | None]:
        """Each player's name as it is now, in one round trip (a plain pipeline of single-slot reads): ``None`` for an
        id that names no player now (a deleted account, or no account: ``operator``, the word filter)."""
        ids = list(dict.fromkeys(player_ids))
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in ids:
                pipe.hmget(self._player_key(player_id), ["name", "deleted_at"])
            replies = pipe.execute()
        return {
            player_id: as_text(name) if name is not None and deleted is None else None
            for player_id, (name, deleted) in zip(ids, replies, strict=True)
        }

    def _got(self, player_id: str) -> Player:
        """The player as stored now; :class:`AccountGone` if the account was deleted."""
        player = self.get(player_id)
        if player is None:
            raise AccountGone(player_id)
        return player

    def _forget(self, player_id: str) -> None:
        """Drop what this process cached of the player (other processes: within ``cache_seconds``)."""
        with self._lock:
            self._by_token = {k: v for k, v in self._by_token.items() if v[1].player.id != player_id}
            self._webhooks.pop(player_id, None)
            self._tags.pop(player_id, None)

    def _names(self, player_id: str, folded: str) -> bool:
        """Whether the player's record names the handle (folded): a claim of theirs is held, not pending."""
        handle = self.redis.hget(self._player_key(player_id), "handle")
        return handle is not None and fold(as_text(handle)) == folded
