"""Players and their bearer tokens.

A token is shown once, when it is issued; only its SHA-256 is kept (a token is
256 random bits, so a fast hash is enough: there is nothing to brute-force).
A player may hold several tokens (a phone and a browser, say), each with a
label; any of them can be revoked, so a leaked token is cut off without
locking the player out, and a lost answer to "issue a token" costs nothing
(the old token still works, and the new one can be revoked by its id).

Keys (a player's own keys share the hash tag ``{<id>}``: one Redis Cluster slot per player):

- ``<prefix>player:{<id>}`` a hash: name, time of sign-up, webhook
- ``<prefix>player:{<id>}:tokens`` token id -> JSON of its hash, label and time of issue
- ``<prefix>player:{<id>}:games`` the ids of the player's games not yet finished
- ``<prefix>player:{<id>}:finished`` a sorted set of the finished ones, scored by the time they finished,
  so that a long history is paged, never loaded whole
- ``<prefix>player:{<id>}:idem`` the idempotency records of the player's creates (a token, a game, an import;
  :mod:`service.storage.idempotency`), a day each
- ``<prefix>token:<sha256>`` the player's id: the lookup a request's token is resolved by, on a slot of its own

A token and its player are on two slots, so no write covers both atomically.  The
writes are ordered instead, so that a crash between them leaves nothing usable
half-made: a token is listed under its player *before* its lookup key makes it
work, and revoked, its lookup key goes *first* (it stops working) and it is
unlisted after.  A crash in between leaves a listed token that does not work
(never shown to anyone when it is a new one; revoked again, it goes).  Every
transaction here touches one player's keys only.  (Before this layout, the
player's keys had no braces; ``red7 migrate`` moves a store to this one:
``service/storage/migrate.py``.)
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import redis
from redis.typing import EncodableT, FieldT

from service.storage.events import Idempotency
from service.storage.idempotency import CreateRecords, made_by, record_field, record_text, seal, signup_records_key, unseal

TOKEN_PREFIX = "r7_"
MAX_TOKENS = 20  # per player: enough for every device, and a bound on what a stolen token can mint


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_id(kind: str) -> str:
    return f"{kind}_{secrets.token_hex(8)}"


def _text(value: bytes | str) -> str:
    """A reply of the store's client, which decodes responses (``decode_responses=True``): a ``str`` already."""
    return value.decode() if isinstance(value, bytes) else value


def _texts(fields: Mapping[bytes | str, bytes | str]) -> dict[str, str]:
    """A hash read with ``HGETALL``, as text (see :func:`_text`)."""
    return {_text(name): _text(value) for name, value in fields.items()}


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as the server knows it (the token itself is never kept); only id, label and time are shown."""

    id: str
    label: str
    created_at: str
    digest: str  # the SHA-256, to tell which token a request came with; not for output


class TooManyTokens(Exception):
    pass


def _new_token(label: str, created_at: str) -> tuple[str, TokenInfo]:
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, TokenInfo(new_id("t"), label, created_at, hash_token(token))


def player_key(prefix: str, player_id: str) -> str:
    return f"{prefix}player:{{{player_id}}}"


def tokens_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:tokens"


def games_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:games"


def finished_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:finished"


def records_key(prefix: str, player_id: str) -> str:
    """The idempotency records of the player's creates (:mod:`service.storage.idempotency`)."""
    return f"{player_key(prefix, player_id)}:idem"


def token_key(prefix: str, token_hash: str) -> str:
    return f"{prefix}token:{token_hash}"


def handle_key(prefix: str, handle: str) -> str:
    """A handle's claim: the id of the player it names, on a slot of its own (a handle is compared case-folded)."""
    return f"{prefix}handle:{{{handle.casefold()}}}"


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    created_at: str
    webhook_url: str | None = None
    webhook_secret: str | None = None


class PlayerStore:
    """Players in Redis, with a short-lived per-process cache of token lookups.

    Every request starts by resolving its token; the cache spares it two round
    trips.  A change made here drops the player from this process's cache; other
    processes see it when their entry expires (``cache_seconds``).
    """

    def __init__(self, client: redis.Redis, prefix: str = "red7:", cache_seconds: float = 10.0) -> None:
        self.redis = client
        self.prefix = prefix
        self.cache_seconds = cache_seconds
        self._by_token: dict[str, tuple[float, Player]] = {}
        self._webhooks: dict[str, tuple[float, str | None]] = {}
        self._revocations = 0  # revocations in this process, so that a lookup racing one is not cached
        self._lock = threading.Lock()

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

    def create(self, name: str, created_at: str) -> tuple[Player, str]:
        """A new player and its first token (the only time the token exists in clear)."""
        player = Player(new_id("p"), name, created_at)
        token, info = _new_token("first token", created_at)
        self._sign_up(player, info)
        return player, token

    def create_once(self, name: str, created_at: str, idempotency: Idempotency) -> tuple[Player, str, bool]:
        """:meth:`create`, once per key of the caller's address (``idempotency.scope``); ``True``: a retry's answer.

        The record (the player's id, time and first token, sealed) is claimed first, on the address's slot, then
        the player is made as it says: a retry finds the record and makes whatever of the player is not there yet
        (see :mod:`service.storage.idempotency`), never a second player.
        """
        token, info = _new_token("first token", created_at)
        player = Player(new_id("p"), name, created_at)
        made = {"id": player.id, "at": created_at, "token_id": info.id, "token": seal(token, idempotency)}
        first = CreateRecords(self.redis).claim(signup_records_key(self.prefix, idempotency.scope), idempotency, made)
        if first is None:
            self._sign_up(player, info)
            return player, token, False
        token = unseal(first["token"], idempotency)
        player = Player(first["id"], name, first["at"])
        info = TokenInfo(first["token_id"], "first token", first["at"], hash_token(token))
        if not self.redis.exists(self._player_key(player.id)):
            self._sign_up(player, info)  # the first attempt stopped before it made the player
        elif self.redis.hexists(self._tokens_key(player.id), info.id):
            self._enable_token(player.id, info)  # it may have stopped before the token worked (unless revoked since)
        return player, token, True

    def _sign_up(self, player: Player, info: TokenInfo) -> None:
        with self.redis.pipeline(transaction=True) as pipe:  # the player's slot: the player and its token, listed
            pipe.hset(self._player_key(player.id), mapping={"name": player.name, "created_at": player.created_at})
            self._list_token(pipe, player.id, info)
            pipe.execute()
        self._enable_token(player.id, info)  # then the token works

    def _list_token(self, pipe: redis.client.Pipeline, player_id: str, info: TokenInfo) -> None:
        record = {"hash": info.digest, "label": info.label, "created_at": info.created_at}
        pipe.hset(self._tokens_key(player_id), info.id, json.dumps(record))

    def _enable_token(self, player_id: str, info: TokenInfo) -> None:
        """Make a listed token work: its lookup key, on its own slot, written after the listing (see the module)."""
        self.redis.set(self._token_key(info.digest), player_id)

    def _adopt_legacy_token(self, player_id: str) -> None:
        """Players made before tokens were listed kept one token as ``token_hash`` on the player: list it like the others."""
        hash_key = self._player_key(player_id)
        stored = self.redis.hget(hash_key, "token_hash")
        if not stored:
            return
        digest = _text(stored)
        created_at = _text(self.redis.hget(hash_key, "created_at") or "")
        record = {"hash": digest, "label": "first token", "created_at": created_at}
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hsetnx(self._tokens_key(player_id), "t_" + digest[:16], json.dumps(record))
            pipe.hdel(hash_key, "token_hash")
            pipe.execute()

    def issue_token(self, player_id: str, label: str, created_at: str) -> tuple[TokenInfo, str]:
        """Another token for the player, unless they already hold ``MAX_TOKENS``."""
        info, token, _ = self.issue_token_once(player_id, label, created_at, None)
        return info, token

    def issue_token_once(
        self, player_id: str, label: str, created_at: str, idempotency: Idempotency | None
    ) -> tuple[TokenInfo, str, bool]:
        """:meth:`issue_token`, once per key (``True``: a retry's answer, the token issued then).

        The record (the token's id, label, time and the token, sealed) is written in the transaction that lists the
        token, on the player's slot: a retry finds both or neither.
        """
        self._adopt_legacy_token(player_id)
        token, info = _new_token(label, created_at)
        records = records_key(self.prefix, player_id)
        field = record_field(idempotency) if idempotency is not None else ""
        stored = None
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    # two issues at once cannot both pass the limit (redis-py leaves Pipeline.watch unannotated)
                    pipe.watch(self._tokens_key(player_id), records)  # type: ignore[no-untyped-call]
                    if idempotency is not None and (stored := pipe.hget(records, field)) is not None:
                        break  # issued before, for this key
                    if pipe.hlen(self._tokens_key(player_id)) >= MAX_TOKENS:
                        raise TooManyTokens
                    pipe.multi()
                    self._list_token(pipe, player_id, info)
                    if idempotency is not None:
                        made = {"id": info.id, "label": label, "at": created_at, "token": seal(token, idempotency)}
                        pipe.hset(records, field, record_text(idempotency, made))
                        pipe.expire(records, idempotency.ttl)
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        if stored is None or idempotency is None:
            self._enable_token(player_id, info)
            return info, token, False
        first = made_by(_text(stored), idempotency)
        token = unseal(first["token"], idempotency)
        info = TokenInfo(first["id"], first["label"], first["at"], hash_token(token))
        if self.redis.hexists(self._tokens_key(player_id), info.id):
            self._enable_token(player_id, info)  # the first attempt may have stopped before it worked (not if revoked)
        return info, token, True

    def tokens(self, player_id: str) -> list[TokenInfo]:
        """The player's tokens, oldest first."""
        self._adopt_legacy_token(player_id)
        infos = []
        for token_id, text in self.redis.hgetall(self._tokens_key(player_id)).items():
            record = json.loads(text)
            infos.append(TokenInfo(_text(token_id), record["label"], record["created_at"], record["hash"]))
        return sorted(infos, key=lambda info: (info.created_at, info.id))

    def revoke_token(self, player_id: str, token_id: str) -> bool:
        """Revoke one token; ``False`` if the player has no such token.

        This process forgets it at once; others within ``cache_seconds``.
        """
        self._adopt_legacy_token(player_id)
        text = self.redis.hget(self._tokens_key(player_id), token_id)
        if text is None:
            return False
        digest = json.loads(text)["hash"]
        self.redis.delete(self._token_key(digest))  # it stops working first (its own slot) ...
        self.redis.hdel(self._tokens_key(player_id), token_id)  # ... and is unlisted after
        with self._lock:
            self._by_token.pop(digest, None)
            self._revocations += 1  # a lookup that read Redis before this must not cache what it read
        return True

    def get(self, player_id: str) -> Player | None:
        data = _texts(self.redis.hgetall(self._player_key(player_id)))
        if not data:
            return None
        return Player(
            player_id,
            data["name"],
            data["created_at"],
            data.get("webhook_url") or None,
            data.get("webhook_secret") or None,
        )

    def webhook_url(self, player_id: str) -> str | None:
        """Where the player wants notifications, if anywhere (cached like token lookups)."""
        now = time.monotonic()
        with self._lock:
            hit = self._webhooks.get(player_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        stored = self.redis.hget(self._player_key(player_id), "webhook_url")
        url = _text(stored) if stored else None
        with self._lock:
            if len(self._webhooks) > 50_000:
                self._webhooks.clear()
            self._webhooks[player_id] = (now + self.cache_seconds, url)
        return url

    def by_token(self, token: str) -> Player | None:
        return self.by_token_digest(hash_token(token))

    def by_handle(self, handle: str) -> Player | None:
        """The player a handle names (case-folded), through its claim key (:func:`handle_key`).

        The smallest lookup challenges need: claiming a handle (at sign-up or later) is issue 20's part 1, which
        replaces this with its own.
        """
        player_id = self.redis.get(handle_key(self.prefix, handle))
        return self.get(_text(player_id)) if player_id else None

    def by_token_digest(self, digest: str) -> Player | None:
        """The player a token (known by its SHA-256) belongs to, while it is not revoked."""
        now = time.monotonic()
        with self._lock:
            hit = self._by_token.get(digest)
        if hit is not None and hit[0] > now:
            return hit[1]
        revocations = self._revocations
        player_id = self.redis.get(self._token_key(digest))
        player = self.get(_text(player_id)) if player_id else None
        if player is not None:
            with self._lock:
                if len(self._by_token) > 50_000:
                    self._by_token.clear()
                if self._revocations == revocations:
                    self._by_token[digest] = (now + self.cache_seconds, player)
        return player

    def update(self, player_id: str, *, name: str | None = None, webhook_url: str | None = None) -> Player:
        """Change the name or the webhook; a new webhook gets a new signing secret (returned once)."""
        mapping: dict[FieldT, EncodableT] = {}  # HSET's types: its Mapping is invariant in the field
        if name is not None:
            mapping["name"] = name
        if webhook_url is not None:
            mapping["webhook_url"] = webhook_url
            mapping["webhook_secret"] = secrets.token_urlsafe(32) if webhook_url else ""
        if mapping:
            self.redis.hset(self._player_key(player_id), mapping=mapping)
            with self._lock:
                self._by_token = {k: v for k, v in self._by_token.items() if v[1].id != player_id}
                self._webhooks.pop(player_id, None)
        player = self.get(player_id)
        assert player is not None
        return player

    def add_game(self, player_id: str, game_id: str) -> None:
        """Index a game under a player *before* the game records the seat.

        Games live on their own cluster slots, so this cannot be atomic with
        the append; written first, a failed append leaves a harmless extra
        entry that readers drop (they check the seat in the game itself).
        """
        self.redis.sadd(self._games_key(player_id), game_id)

    def count_games(self, player_id: str) -> int:
        """How many games the player's index holds as not finished (it may hold a few too many; never too few)."""
        return int(self.redis.scard(self._games_key(player_id)))

    def game_ids(self, player_id: str) -> set[str]:
        """The player's games that were not finished when last seen."""
        return {_text(game_id) for game_id in self.redis.smembers(self._games_key(player_id))}

    def forget_game(self, player_ids: set[str], game_id: str) -> None:
        """Unlist a game for these players (a cancelled one).

        Each player is on a slot of their own: one plain pipeline (no transaction) of single-slot writes, each
        safe to repeat, which a cluster client splits by node.
        """
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.srem(self._games_key(player_id), game_id)
            pipe.execute()

    def archive_game(self, player_ids: set[str], game_id: str, finished_ms: int) -> None:
        """Move a finished game from its players' open games to their finished ones (idempotent).

        As in :meth:`forget_game`, single-slot writes in a plain pipeline; for each player the game is listed as
        finished before it leaves the open ones, so a write lost in between leaves it listed twice (readers check
        the game itself), never nowhere.
        """
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(self._finished_key(player_id), {game_id: finished_ms})
                pipe.srem(self._games_key(player_id), game_id)
            pipe.execute()

    def finished_ids(self, player_id: str, before: tuple[int, str] | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` finished games, newest first, after the cursor ``before`` = (score, id) of the last one seen.

        Games finished at the same millisecond are ordered by id, descending
        (Redis's own order for equal scores), so the cursor never skips or repeats one.
        """
        key = self._finished_key(player_id)
        top: float | str = "+inf" if before is None else before[0]
        found: list[tuple[str, int]] = []
        offset = 0
        while len(found) < count:
            # WITHSCORES on the text client: (member, score) pairs; redis-py's type covers every form of the reply.
            reply = self.redis.zrevrangebyscore(key, top, "-inf", start=offset, num=count + 16, withscores=True)
            chunk = cast("list[tuple[str, float]]", reply)
            for game_id, score in chunk:
                if before is not None and int(score) == before[0] and game_id >= before[1]:
                    continue  # seen on an earlier page
                found.append((game_id, int(score)))
            if len(chunk) < count + 16:
                break
            offset += len(chunk)
        return found[:count]
