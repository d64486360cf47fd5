"""Players: their accounts, bearer tokens, handles, records and lists of games, in Redis.

One module per concern, each a part of :class:`PlayerStore`: :mod:`~service.storage.players.accounts` (sign-up,
changes, deletion and the order of its writes), :mod:`~service.storage.players.tokens` (issue, revocation, the
lookup and its cache), :mod:`~service.storage.players.handles` (a player's handle, the search by handle, what a
table shows), :mod:`~service.storage.players.records` (games played and won),
:mod:`~service.storage.players.game_lists` (games open and finished); :mod:`~service.storage.players.base` is
what they share, :mod:`~service.storage.players.model` what they deal in, and
:mod:`~service.storage.players.keys` the key layout (for the stores that keep lists on a player's slot: the
application asks :meth:`PlayerStore.create_records_key` instead).  Import from here: the package is the players'
one door.
"""

from service.storage.handles import Found, HandleTaken
from service.storage.players.model import (
    MAX_TOKENS,
    AccountGone,
    Grant,
    Player,
    PlayerTag,
    Record,
    TokenInfo,
    TooManyTokens,
    hash_token,
    new_id,
)
from service.storage.players.store import PlayerStore

__all__ = [
    "MAX_TOKENS",
    "AccountGone",
    "Found",
    "Grant",
    "HandleTaken",
    "Player",
    "PlayerStore",
    "PlayerTag",
    "Record",
    "TokenInfo",
    "TooManyTokens",
    "hash_token",
    "new_id",
]
