"""Where a player's data lives: the key builders, for the player's store and the stores that keep their own lists
on the player's slot (challenges, match tickets, push subscriptions, the migration).  The application asks a store
for a key it needs (:meth:`~service.storage.players.base.PlayerBase.create_records_key`), never builds one.

A player's own keys share the hash tag ``{<id>}``: one Redis Cluster slot per player:

- ``<prefix>player:{<id>}`` a hash: name, time of sign-up, webhook, handle (as given) and the handle set aside
  last (``held_handle``), ``record`` once the player's record is complete (below); once the account is
  deleted, only ``deleted_at`` (a tombstone: the id answers nobody, and a retried sign-up cannot bring it back)
- ``<prefix>player:{<id>}:tokens`` token id -> JSON of its hash, label, time of issue and scopes (none: every scope)
- ``<prefix>player:{<id>}:games`` the ids of the player's games not yet finished
- ``<prefix>player:{<id>}:finished`` a sorted set of the finished ones, scored by the time they finished,
  so that a long history is paged, never loaded whole
- ``<prefix>player:{<id>}:played``, ``:won`` the player's record: the ids of the finished games they played and
  won (sets: a game counts once however often its finish is indexed; :mod:`service.application.records`
  says what counts and rebuilds them from ``:finished``)
- ``<prefix>player:{<id>}:archive``, ``:archive:entries``, ``:archive:hidden`` the player's public archive of
  finished games and whether they hide it (kept by ``service/storage/archive.py``)
- ``<prefix>player:{<id>}:idem`` the idempotency records of the player's creates (a token, a game, an import;
  :mod:`service.storage.idempotency`), a day each
- ``<prefix>player:{<id>}:feed`` a stream of the notices the player was sent (their feed and inbox,
  :mod:`service.storage.player_feeds`), and ``:feed:read`` the id of the newest one they have read
- ``<prefix>token:<sha256>`` the player's id, then the token's scopes space-separated if it has a set (the id alone:
  every scope, as every token stored before scopes holds it): the lookup a request's token is resolved by, on a slot
  of its own

(Before this layout, the player's keys had no braces; ``red7 migrate`` moves a store to this one:
``service/storage/migrate.py``.)
"""

from __future__ import annotations


def player_key(prefix: str, player_id: str) -> str:
    return f"{prefix}player:{{{player_id}}}"


def tokens_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:tokens"


def games_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:games"


def finished_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:finished"


def played_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:played"


def won_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:won"


def records_key(prefix: str, player_id: str) -> str:
    """The idempotency records of the player's creates (:mod:`service.storage.idempotency`)."""
    return f"{player_key(prefix, player_id)}:idem"


def token_key(prefix: str, token_hash: str) -> str:
    return f"{prefix}token:{token_hash}"


def feed_key(prefix: str, player_id: str) -> str:
    """The player's feed of notices: a stream (:mod:`service.storage.player_feeds`)."""
    return f"{player_key(prefix, player_id)}:feed"


def feed_read_key(prefix: str, player_id: str) -> str:
    """The id of the newest notice of the player's feed they have read (every device's)."""
    return f"{player_key(prefix, player_id)}:feed:read"
