"""Players and their bearer tokens.

A token is shown once, when it is issued; only its SHA-256 is kept (a token is
256 random bits, so a fast hash is enough: there is nothing to brute-force).
A player may hold several tokens (a phone and a browser, say), each with a
label; any of them can be revoked, so a leaked token is cut off without
locking the player out, and a lost answer to "issue a token" costs nothing
(the old token still works, and the new one can be revoked by its id).

Keys (a player's own keys share the hash tag ``{<id>}``: one Redis Cluster slot per player):

- ``<prefix>player:{<id>}`` a hash: name, time of sign-up, webhook, handle (as given) and the handle set aside
  last (``held_handle``), ``record`` once the player's record is complete (below); once the account is
  deleted, only ``deleted_at`` (a tombstone: the id answers nobody, and a retried sign-up cannot bring it back)
- ``<prefix>player:{<id>}:tokens`` token id -> JSON of its hash, label and time of issue
- ``<prefix>player:{<id>}:games`` the ids of the player's games not yet finished
- ``<prefix>player:{<id>}:finished`` a sorted set of the finished ones, scored by the time they finished,
  so that a long history is paged, never loaded whole
- ``<prefix>player:{<id>}:played``, ``:won`` the player's record: the ids of the finished games they played and
  won (sets: a game counts once however often its finish is indexed; :mod:`service.application.records`
  says what counts and rebuilds them from ``:finished``)
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

A handle's claim and the index of handles are on slots of their own too (:mod:`service.storage.handles`): the
claim is taken before the record names the handle, the index entry written before it too (a reader checks the
record), and both let go of after the record no longer names it.  Deleting an account follows the same order:
the record becomes a tombstone first (nothing of the player works or shows from then on), then the handle and
the tokens' lookup keys go; a crash in between leaves only what nothing resolves to any more.  Nothing written
after writes to a tombstone: a change of the record checks it in the same script or transaction, and a token
issued as the account goes is unmade by its own issue (:meth:`PlayerStore._enable_token`).

A token's lookup is cached in the process (``cache_seconds``), yet a token revoked or deleted with its account stops
working in every process at once.  A write (``fresh``) asks the store whether the token still works (one round
trip: its lookup key); a read trusts the cache only while Redis's tracking of
the tokens' lookup keys (:class:`~service.storage.changes.ChangeWatch`, family ``token``) says nobody changed the
token's key since it was read, and asks like a write otherwise (no watch: a cluster, a Redis without tracking, a
watch not heard from lately).  Revoking deletes the lookup key, whose change Redis sends every watching process
before it answers the revocation: a process that answers a request after that has it in hand (changes.py).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import cast

import redis
from redis.typing import EncodableT, FieldT

from service.storage.changes import ChangeWatch
from service.storage.events import Idempotency
from service.storage.handles import Claim, Found, HandleClaims, HandleIndex, HandleTaken, fold
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


def _player(player_id: str, data: Mapping[str, str]) -> Player | None:
    """The player a record holds; ``None`` for none, or a deleted account's tombstone (it has no name)."""
    if "name" not in data or "deleted_at" in data:
        return None
    return Player(
        player_id,
        data["name"],
        data["created_at"],
        data.get("webhook_url") or None,
        data.get("webhook_secret") or None,
        data.get("handle") or None,
        data.get("language") or None,
    )


def _same(handle: str | None, other: str | None) -> bool:
    return handle is not None and other is not None and fold(handle) == fold(other)


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as the server knows it (the token itself is never kept); only id, label and time are shown."""

    id: str
    label: str
    created_at: str
    digest: str  # the SHA-256, to tell which token a request came with; not for output


class TooManyTokens(Exception):
    pass


class AccountGone(Exception):
    """The account was deleted (or never was): nothing of it is written, and a token issued as it went was unmade."""


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


def played_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:played"


def won_key(prefix: str, player_id: str) -> str:
    return f"{player_key(prefix, player_id)}:won"


def records_key(prefix: str, player_id: str) -> str:
    """The idempotency records of the player's creates (:mod:`service.storage.idempotency`)."""
    return f"{player_key(prefix, player_id)}:idem"


def token_key(prefix: str, token_hash: str) -> str:
    return f"{prefix}token:{token_hash}"


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    created_at: str
    webhook_url: str | None = None
    webhook_secret: str | None = None
    handle: str | None = None
    language: str | None = None  # the language the player chose for the service's texts (service/common/texts.py)


@dataclass(frozen=True, slots=True)
class PlayerTag:
    """What a table shows of the player in a seat: their handle, or that the account was deleted."""

    handle: str | None
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Record:
    """Finished games the player played and won; ``complete``: kept since sign-up, or rebuilt since."""

    played: int
    won: int
    complete: bool


__all__ = [
    "AccountGone",
    "Found",
    "HandleTaken",
    "Player",
    "PlayerStore",
    "PlayerTag",
    "Record",
    "TokenInfo",
    "TooManyTokens",
]

#: Set fields of a player's record only while it is a player's (it has a name): never on a deleted account's tombstone.
#: KEYS[1] the record; ARGV field, value, ...  Returns 1 if written, 0 if the record is no player's.
_SET_IF_PLAYER = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class PlayerStore:
    """Players in Redis, with a short-lived per-process cache of token lookups.

    Every request starts by resolving its token; the cache spares it two round
    trips.  A change made here drops the player from this process's cache; other
    processes see a new name or handle when their entry expires (``cache_seconds``),
    and a token revoked or deleted with its account at once (see the module: ``watch``).
    """

    def __init__(
        self, client: redis.Redis, prefix: str = "red7:", cache_seconds: float = 10.0, watch: ChangeWatch | None = None
    ) -> None:
        self.redis = client
        self.prefix = prefix
        self.cache_seconds = cache_seconds
        self.watch = watch  # the tokens' lookup keys (family "token"): a cached lookup read without a round trip
        self._by_token: dict[str, tuple[float, Player]] = {}
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

    def create(self, name: str, created_at: str, handle: str | None = None) -> tuple[Player, str]:
        """A new player and its first token (the only time the token exists in clear); :class:`HandleTaken`."""
        player = Player(new_id("p"), name, created_at, handle=handle)
        token, info = _new_token("first token", created_at)
        claim = self.claims.claim(handle, player.id, self._names) if handle else None
        self._sign_up(player, info, claim)
        return player, token

    def create_once(
        self, name: str, created_at: str, idempotency: Idempotency, handle: str | None = None
    ) -> tuple[Player, str, bool]:
        """:meth:`create`, once per key of the caller's address (``idempotency.scope``); ``True``: a retry's answer.

        The record (the player's id, time and first token, sealed) is claimed first, on the address's slot, then
        the player is made as it says: a retry finds the record and makes whatever of the player is not there yet
        (see :mod:`service.storage.idempotency`), never a second player.  The handle is claimed before the record
        (a handle taken answers before anything is recorded), for the id the record will hold: a retry claims it
        again for the id its record holds, which is its own claim.
        """
        records = CreateRecords(self.redis)
        key = signup_records_key(self.prefix, idempotency.scope)
        first = records.find(key, idempotency)
        if first is None:
            token, info = _new_token("first token", created_at)
            player = Player(new_id("p"), name, created_at, handle=handle)
            claim = self.claims.claim(handle, player.id, self._names) if handle else None
            made = {"id": player.id, "at": created_at, "token_id": info.id, "token": seal(token, idempotency)}
            first = records.claim(key, idempotency, made)
            if first is None:
                self._sign_up(player, info, claim)
                return player, token, False
            if handle:
                self.claims.let_go(handle, player.id)  # an attempt with this key beside this one recorded its player first
        token = unseal(first["token"], idempotency)
        player = Player(first["id"], name, first["at"], handle=handle)
        info = TokenInfo(first["token_id"], "first token", first["at"], hash_token(token))
        if not self.redis.exists(self._player_key(player.id)):
            # the first attempt stopped before it made the player
            self._sign_up(player, info, self.claims.claim(handle, player.id, self._names) if handle else None)
        elif self.redis.hexists(self._tokens_key(player.id), info.id):
            self._enable_token(player.id, info)  # it may have stopped before the token worked (unless revoked since)
        return player, token, True

    def _sign_up(self, player: Player, info: TokenInfo, claim: Claim | None = None) -> None:
        fields: dict[FieldT, EncodableT] = {"name": player.name, "created_at": player.created_at, "record": "1"}
        if claim is not None and player.handle:
            self.claims.refresh(claim, player.id)  # the claim, fresh, before the record names the handle
            self.index.add(player.handle, player.id)
            fields["handle"] = player.handle
        with self.redis.pipeline(transaction=True) as pipe:  # the player's slot: the player and its token, listed
            pipe.hset(self._player_key(player.id), mapping=fields)
            self._list_token(pipe, player.id, info)
            pipe.execute()
        self._enable_token(player.id, info)  # then the token works

    def _list_token(self, pipe: redis.client.Pipeline, player_id: str, info: TokenInfo) -> None:
        record = {"hash": info.digest, "label": info.label, "created_at": info.created_at}
        pipe.hset(self._tokens_key(player_id), info.id, json.dumps(record))

    def _enable_token(self, player_id: str, info: TokenInfo) -> None:
        """Make a listed token work: its lookup key, on its own slot, written after the listing (see the module).

        Then the record is read again: a deletion that came between the listing and now may have deleted the listed
        tokens' keys before this one was written, so the token unmakes itself (:class:`AccountGone`).  One of the two
        always sees the other: the deletion makes the tombstone before it reads the listing, this writes the key
        before it reads the record.
        """
        key = self._token_key(info.digest)
        self.redis.set(key, player_id)
        if not self.redis.hexists(self._player_key(player_id), "name"):
            self.redis.delete(key)
            raise AccountGone(player_id)

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
                    # two issues at once cannot both pass the limit, nor an issue list a token on a deleted account
                    # (redis-py leaves Pipeline.watch unannotated)
                    pipe.watch(self._tokens_key(player_id), records, self._player_key(player_id))  # type: ignore[no-untyped-call]
                    if not pipe.hexists(self._player_key(player_id), "name"):
                        raise AccountGone(player_id)
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
        return _player(player_id, _texts(self.redis.hgetall(self._player_key(player_id))))

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

    def by_token(self, token: str, *, fresh: bool = False) -> Player | None:
        return self.by_token_digest(hash_token(token), fresh=fresh)

    def by_token_digest(self, digest: str, *, fresh: bool = False) -> Player | None:
        """The player a token (known by its SHA-256) belongs to, while it is not revoked and the account not deleted.

        ``fresh``: asked for a write, so the store is asked whether the token still works even when this process has
        it cached.  A read is answered from the cache while the watch of the tokens' keys vouches for it, and asks
        the store otherwise (see the module): either way a token revoked, or deleted with its account, is refused
        at once in every process.
        """
        now = time.monotonic()
        with self._lock:
            hit = self._by_token.get(digest)
        watch = self.watch
        if hit is not None and hit[0] > now:
            cached = hit[1]
            vouched = watch is not None and watch.unchanged(digest)
            if vouched and not fresh:
                return cached
            if vouched:  # a write asks anyway; the watch holds the key as read already
                works = self._works(digest, cached.id)
            else:
                ticket = watch.ticket(digest) if watch is not None else None
                works = self._works(digest, cached.id)
                if watch is not None:
                    watch.settle(digest, ticket, current=works)
            if works:
                return cached
            with self._lock:
                self._by_token.pop(digest, None)
            return None
        ticket = watch.ticket(digest) if watch is not None else None
        revocations = self._revocations
        player_id = self.redis.get(self._token_key(digest))
        player = self.get(_text(player_id)) if player_id else None
        kept = False
        if player is not None:
            with self._lock:
                if len(self._by_token) > 50_000:
                    self._by_token.clear()
                if self._revocations == revocations:
                    self._by_token[digest] = (now + self.cache_seconds, player)
                    kept = True
        if watch is not None:
            watch.settle(digest, ticket, current=kept)
        return player

    def _works(self, digest: str, player_id: str) -> bool:
        """Whether the token still resolves to the player: one read of its lookup key, which a revocation deletes, and
        the deletion of the account too (after its tombstone, before it answers).  A key that outlived its account
        (its issue stopped between writing it and reading the tombstone) resolves to nobody on a lookup, and a write
        made with it is undone by its own check after (``PlayerService.still_there``)."""
        owner = self.redis.get(self._token_key(digest))
        return owner is not None and _text(owner) == player_id

    def deleted(self, player_id: str) -> bool:
        """Whether the player's account was deleted (read now: no cache)."""
        return bool(self.redis.hexists(self._player_key(player_id), "deleted_at"))

    def update(
        self, player_id: str, *, name: str | None = None, webhook_url: str | None = None, language: str | None = None
    ) -> Player:
        """Change the name, the webhook or the language (``""``: none chosen); a new webhook gets a new signing secret
        (returned once).  :class:`AccountGone` if the account was deleted: a tombstone is never written to (one script
        checks and writes)."""
        fields: list[str] = []
        if name is not None:
            fields += ["name", name]
        if language is not None:
            fields += ["language", language]
        if webhook_url is not None:
            fields += ["webhook_url", webhook_url, "webhook_secret", secrets.token_urlsafe(32) if webhook_url else ""]
        if fields:
            if not self._set_if_player(keys=[self._player_key(player_id)], args=fields):
                raise AccountGone(player_id)
            self._forget(player_id)
        return self._got(player_id)

    def _forget(self, player_id: str) -> None:
        """Drop what this process cached of the player (other processes: within ``cache_seconds``)."""
        with self._lock:
            self._by_token = {k: v for k, v in self._by_token.items() if v[1].id != player_id}
            self._webhooks.pop(player_id, None)
            self._tags.pop(player_id, None)

    # --- handles ------------------------------------------------------------------------

    def _names(self, player_id: str, folded: str) -> bool:
        """Whether the player's record names the handle (folded): a claim of theirs is held, not pending."""
        handle = self.redis.hget(self._player_key(player_id), "handle")
        return handle is not None and fold(_text(handle)) == folded

    def set_handle(self, player_id: str, handle: str | None, keep_ms: int = 0) -> Player:
        """Give the player ``handle`` (``None``: no handle), or raise :class:`HandleTaken`.

        The handle given up is set aside for ``keep_ms`` (0: freed now): only this player may take it back
        meanwhile.  A player sets aside one handle at a time, the one given up last: a change frees the one set
        aside before (unless it takes it back).  Only the case changed: the record changes, and nothing else.
        """
        current = self._got(player_id)  # AccountGone if it was deleted (its token worked when the request began)
        if handle is not None and _same(handle, current.handle):
            if handle != current.handle:
                if not self._set_if_player(keys=[self._player_key(player_id)], args=["handle", handle]):
                    raise AccountGone(player_id)
                self._forget(player_id)
            return self._got(player_id)
        if handle is not None:
            claim = self.claims.claim(handle, player_id, self._names)
            self.index.add(handle, player_id)  # a hint until the record names the handle (readers check)
            self.claims.refresh(claim, player_id)
        try:
            old, held = self._point_to(player_id, handle, keep=keep_ms > 0)
        except AccountGone:
            if handle is not None:  # deleted meanwhile: the handle claimed for it is nobody's
                self.index.remove(handle, player_id)
                self.claims.let_go(handle, player_id)
            raise
        if old is not None:
            self.index.remove(old, player_id)
            self.claims.let_go(old, player_id, keep_ms)  # set aside (or freed) after the record no longer names it
        if held is not None and not _same(held, handle):
            self.claims.let_go(held, player_id)  # the handle set aside before (unless taken back now): freed
        self._forget(player_id)
        return self._got(player_id)

    def _point_to(self, player_id: str, handle: str | None, *, keep: bool) -> tuple[str | None, str | None]:
        """Make the record name ``handle`` (and set aside the one it named, if ``keep``); what it named and had set
        aside before.  One transaction on the player's slot, decided again if the record changed meanwhile;
        :class:`AccountGone` if the record is a tombstone (the account was deleted since the request began)."""
        key = self._player_key(player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves Pipeline.watch unannotated
                    stored = pipe.hmget(key, ["handle", "held_handle", "name"])
                    if stored[2] is None:
                        raise AccountGone(player_id)
                    old, held = (_text(value) if value else None for value in stored[:2])
                    pipe.multi()
                    if handle is None:
                        pipe.hdel(key, "handle")
                    else:
                        pipe.hset(key, "handle", handle)
                    if keep and old is not None:
                        pipe.hset(key, "held_handle", old)
                    else:
                        pipe.hdel(key, "held_handle")
                    pipe.execute()
                    return old, held
                except redis.WatchError:
                    continue

    def _got(self, player_id: str) -> Player:
        """The player as stored now; :class:`AccountGone` if the account was deleted."""
        player = self.get(player_id)
        if player is None:
            raise AccountGone(player_id)
        return player

    def by_handle(self, handle: str) -> Player | None:
        """The player whose handle this is (case aside), if any: the claim says who, and their record must agree."""
        owner = self.claims.owner(handle)
        player = self.get(owner) if owner is not None else None
        return player if player is not None and _same(player.handle, handle) else None

    def search(self, prefix: str, after: Found | None, count: int) -> tuple[list[Player], Found | None]:
        """Up to ``count`` players whose handle starts with ``prefix`` (case aside), in handle order, after the entry
        ``after``; and the entry to pass as ``after`` for the next page (``None``: the last page).

        Index entries whose player's record does not name that handle (a change or a deletion on its way, or cut
        short) are passed over: a page may hold fewer than ``count`` players only when it is the last.
        """
        shown: list[tuple[Found, Player]] = []
        cursor = after
        while len(shown) <= count:
            wanted = count + 1 - len(shown)
            batch = self.index.starting(prefix, cursor, wanted)
            with self.redis.pipeline(transaction=False) as pipe:  # one key each: a cluster client splits it by node
                for found in batch:
                    pipe.hgetall(self._player_key(found.player_id))
                records = pipe.execute()
            for found, record in zip(batch, records, strict=True):
                cursor = found
                player = _player(found.player_id, _texts(record))
                if player is not None and player.handle is not None and fold(player.handle) == found.folded:
                    shown.append((found, player))
            if len(batch) < wanted:
                break
        page = shown[:count]
        return [player for _, player in page], (page[-1][0] if len(shown) > count else None)

    def tags(self, player_ids: set[str]) -> dict[str, PlayerTag]:
        """What a table shows of each of these players (cached like token lookups: a change shows within
        ``cache_seconds`` in other processes)."""
        now = time.monotonic()
        out: dict[str, PlayerTag] = {}
        with self._lock:
            for player_id in player_ids:
                hit = self._tags.get(player_id)
                if hit is not None and hit[0] > now:
                    out[player_id] = hit[1]
        missing = sorted(player_ids - out.keys())
        if not missing:
            return out
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in missing:
                pipe.hmget(self._player_key(player_id), ["handle", "deleted_at"])
            replies = pipe.execute()
        with self._lock:
            if len(self._tags) > 50_000:
                self._tags.clear()
            for player_id, (handle, deleted_at) in zip(missing, replies, strict=True):
                tag = PlayerTag(_text(handle) if handle and not deleted_at else None, deleted=bool(deleted_at))
                self._tags[player_id] = (now + self.cache_seconds, tag)
                out[player_id] = tag
        return out

    # --- the record: games played and won -------------------------------------------------

    def record(self, player_id: str) -> Record:
        with self.redis.pipeline(transaction=True) as pipe:  # the player's slot
            pipe.scard(played_key(self.prefix, player_id))
            pipe.scard(won_key(self.prefix, player_id))
            pipe.hget(self._player_key(player_id), "record")
            played, won, complete = pipe.execute()
        return Record(int(played), int(won), bool(complete))

    def deleted_among(self, player_ids: set[str]) -> set[str]:
        """Which of these players' accounts were deleted (read now: no cache)."""
        ordered = sorted(player_ids)
        with self.redis.pipeline(transaction=False) as pipe:  # one key each: a cluster client splits it by node
            for player_id in ordered:
                pipe.hexists(self._player_key(player_id), "deleted_at")
            replies = pipe.execute()
        return {player_id for player_id, deleted in zip(ordered, replies, strict=True) if deleted}

    def add_to_record(self, player_id: str, played: set[str], won: set[str], *, complete: bool = False) -> None:
        """Add games to the player's record (each counts once, however often it is added); ``complete``: the record
        now holds every game it should (a rebuild's last step), so it is not rebuilt again."""
        with self.redis.pipeline(transaction=True) as pipe:  # the player's slot
            if played:
                pipe.sadd(played_key(self.prefix, player_id), *sorted(played))
            if won:
                pipe.sadd(won_key(self.prefix, player_id), *sorted(won))
            if complete:
                pipe.hset(self._player_key(player_id), "record", "1")
            pipe.execute()

    # --- deleting an account --------------------------------------------------------------

    def erase(self, player_id: str, deleted_at: str) -> None:
        """Delete the account: the record becomes a tombstone and the player's finished games, record and
        idempotency records go (one transaction on its slot: from then on the player answers nobody, and their
        tokens resolve to nobody), then the handle is freed (index entry, claims) and the tokens' lookup keys go,
        then their listing.  Safe to repeat.  The list of games not finished stays, for the games to be left
        (``GameService.depart`` takes each game off once the player's part in it is over)."""
        self._adopt_legacy_token(player_id)  # a token kept the old way is listed, so that its lookup key goes too
        key = self._player_key(player_id)
        lists = [f"{key}:{name}" for name in ("finished", "played", "won", "idem")]
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves Pipeline.watch unannotated
                    stored = pipe.hmget(key, ["handle", "held_handle", "deleted_at"])
                    handle, held, was_deleted = (_text(value) if value else None for value in stored)
                    pipe.multi()
                    pipe.delete(key, *lists)
                    pipe.hset(key, "deleted_at", was_deleted or deleted_at)
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        self._forget(player_id)
        if handle is not None:
            self.index.remove(handle, player_id)
            self.claims.let_go(handle, player_id)
        if held is not None:
            self.claims.let_go(held, player_id)
        digests = [json.loads(text)["hash"] for text in self.redis.hvals(self._tokens_key(player_id))]
        for digest in digests:
            self.redis.delete(self._token_key(digest))  # each stops resolving (it resolved to nobody already) ...
        self.redis.delete(self._tokens_key(player_id))  # ... and the listing goes after
        with self._lock:
            for digest in digests:
                self._by_token.pop(digest, None)
            self._revocations += 1

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

    def archive_game(
        self, player_ids: set[str], game_id: str, finished_ms: int, *, played: Collection[str] = (), won: Collection[str] = ()
    ) -> None:
        """Move a finished game from its players' open games to their finished ones, and count it in the records of
        those who ``played`` and ``won`` it (idempotent: a record is a set of games).

        As in :meth:`forget_game`, single-slot writes in a plain pipeline; for each player the game is listed as
        finished and counted before it leaves the open ones, so a write lost in between leaves it listed twice
        (readers check the game itself, and the next listing archives it again), never nowhere or uncounted.
        """
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.zadd(self._finished_key(player_id), {game_id: finished_ms})
                if player_id in played:
                    pipe.sadd(played_key(self.prefix, player_id), game_id)
                if player_id in won:
                    pipe.sadd(won_key(self.prefix, player_id), game_id)
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
