"""The player's store: every part of it (accounts, tokens, handles, records, game lists) on one object, which the
runtime builds once and hands to the application."""

from __future__ import annotations

from service.storage.players.accounts import Accounts
from service.storage.players.game_lists import GameLists
from service.storage.players.handles import Handles
from service.storage.players.records import Records


class PlayerStore(Accounts, Handles, Records, GameLists):
    """Players in Redis, with a short-lived per-process cache of token lookups.

    Every request starts by resolving its token; the cache spares it two round
    trips.  A change made here drops the player from this process's cache; other
    processes see a new name or handle when their entry expires (``cache_seconds``),
    and a token revoked or deleted with its account at once (see :mod:`~service.storage.players.tokens`: ``watch``).
    """
