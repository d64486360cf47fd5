"""A player's bearer tokens: issued, listed, revoked, and resolved to their player on every request.

A token is shown once, when it is issued; only its SHA-256 is kept (a token is
256 random bits, so a fast hash is enough: there is nothing to brute-force).
A player may hold several tokens (a phone and a browser, say), each with a
label; any of them can be revoked, so a leaked token is cut off without
locking the player out, and a lost answer to "issue a token" costs nothing
(the old token still works, and the new one can be revoked by its id).

A token and its player are on two slots (:mod:`~service.storage.players.keys`), so no write covers both atomically.
The writes are ordered instead, so that a crash between them leaves nothing usable
half-made: a token is listed under its player *before* its lookup key makes it
work, and revoked, its lookup key goes *first* (it stops working) and it is
unlisted after.  A crash in between leaves a listed token that does not work
(never shown to anyone when it is a new one; revoked again, it goes).  Every
transaction here touches one player's keys only.

A token's lookup is cached in the process (``cache_seconds``), yet a token revoked or deleted with its account stops
working in every process at once.  A write (``fresh``) asks the store whether the token still works (one round
trip: its lookup key); a read trusts the cache only while Redis's tracking of
the tokens' lookup keys (:class:`~service.storage.changes.ChangeWatch`, family ``token``) says nobody changed the
token's key since it was read, and asks like a write otherwise (no watch: a cluster, a Redis without tracking, a
watch not heard from lately).  Revoking deletes the lookup key, whose change Redis sends every watching process
before it answers the revocation: a process that answers a request after that has it in hand (changes.py).
"""

from __future__ import annotations

import json
import secrets
import time

import redis

from service.storage.events import Idempotency
from service.storage.idempotency import made_by, record_field, record_text, seal, unseal
from service.storage.players.base import PlayerBase
from service.storage.players.model import (
    MAX_TOKENS,
    TOKEN_PREFIX,
    AccountGone,
    Grant,
    Player,
    TokenInfo,
    TooManyTokens,
    as_text,
    hash_token,
    lookup_value,
    new_id,
    read_lookup,
)


def new_token(label: str, created_at: str, scopes: tuple[str, ...] | None = None) -> tuple[str, TokenInfo]:
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, TokenInfo(new_id("t"), label, created_at, hash_token(token), scopes)


def _stored_scopes(record: dict[str, object]) -> tuple[str, ...] | None:
    """A listing's scopes: ``None`` for a token listed before scopes (or issued in full), which may do all."""
    scopes = record.get("scopes")
    return None if scopes is None else tuple(str(scope) for scope in scopes)  # type: ignore[attr-defined]


class Tokens(PlayerBase):
    """A player's tokens (see the module)."""

    def _list_token(self, pipe: redis.client.Pipeline, player_id: str, info: TokenInfo) -> None:
        record: dict[str, object] = {"hash": info.digest, "label": info.label, "created_at": info.created_at}
        if info.scopes is not None:  # none stored: every scope, as for the tokens listed before scopes existed
            record["scopes"] = list(info.scopes)
        pipe.hset(self._tokens_key(player_id), info.id, json.dumps(record))

    def _enable_token(self, player_id: str, info: TokenInfo, lifetime: int | None = None) -> None:
        """Make a listed token work: its lookup key, on its own slot, written after the listing (see the module);
        ``lifetime``: seconds it works (an app's access token expires; Redis forgets its key), ``None``: until revoked.

        Then the record is read again: a deletion that came between the listing and now may have deleted the listed
        tokens' keys before this one was written, so the token unmakes itself (:class:`AccountGone`).  One of the two
        always sees the other: the deletion makes the tombstone before it reads the listing, this writes the key
        before it reads the record.
        """
        key = self._token_key(info.digest)
        self.redis.set(key, lookup_value(player_id, info.scopes), ex=lifetime)
        if not self.redis.hexists(self._player_key(player_id), "name"):
            self.redis.delete(key)
            raise AccountGone(player_id)

    def _adopt_legacy_token(self, player_id: str) -> None:
        """Players made before tokens were listed kept one token as ``token_hash`` on the player: list it like the others."""
        hash_key = self._player_key(player_id)
        stored = self.redis.hget(hash_key, "token_hash")
        if not stored:
            return
        digest = as_text(stored)
        created_at = as_text(self.redis.hget(hash_key, "created_at") or "")
        record = {"hash": digest, "label": "first token", "created_at": created_at}
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hsetnx(self._tokens_key(player_id), "t_" + digest[:16], json.dumps(record))
            pipe.hdel(hash_key, "token_hash")
            pipe.execute()

    def issue_token(
        self, player_id: str, label: str, created_at: str, scopes: tuple[str, ...] | None = None
    ) -> tuple[TokenInfo, str]:
        """Another token for the player, unless they already hold ``MAX_TOKENS``; ``scopes``: what it may do
        (``None``: everything, stored as the tokens made before scopes are)."""
        info, token, _ = self.issue_token_once(player_id, label, created_at, None, scopes)
        return info, token

    def issue_token_once(
        self,
        player_id: str,
        label: str,
        created_at: str,
        idempotency: Idempotency | None,
        scopes: tuple[str, ...] | None = None,
        lifetime: int | None = None,
    ) -> tuple[TokenInfo, str, bool]:
        """:meth:`issue_token`, once per key (``True``: a retry's answer, the token issued then).

        The record (the token's id, label, time, scopes and the token, sealed) is written in the transaction that
        lists the token, on the player's slot: a retry finds both or neither.
        """
        self._adopt_legacy_token(player_id)
        token, info = new_token(label, created_at, scopes)
        records = self.create_records_key(player_id)
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
                        made: dict[str, object] = {
                            "id": info.id,
                            "label": label,
                            "at": created_at,
                            "token": seal(token, idempotency),
                        }
                        if scopes is not None:
                            made["scopes"] = list(scopes)
                        pipe.hset(records, field, record_text(idempotency, made))
                        pipe.expire(records, idempotency.ttl)
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue
        if stored is None or idempotency is None:
            self._enable_token(player_id, info, lifetime)
            return info, token, False
        first = made_by(as_text(stored), idempotency)
        token = unseal(first["token"], idempotency)
        info = TokenInfo(first["id"], first["label"], first["at"], hash_token(token), _stored_scopes(first))
        if self.redis.hexists(self._tokens_key(player_id), info.id):
            self._enable_token(player_id, info)  # the first attempt may have stopped before it worked (not if revoked)
        return info, token, True

    def tokens(self, player_id: str) -> list[TokenInfo]:
        """The player's tokens, oldest first."""
        self._adopt_legacy_token(player_id)
        infos = []
        for token_id, text in self.redis.hgetall(self._tokens_key(player_id)).items():
            record = json.loads(text)
            scopes = _stored_scopes(record)
            infos.append(TokenInfo(as_text(token_id), record["label"], record["created_at"], record["hash"], scopes))
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

    def by_token(self, token: str, *, fresh: bool = False) -> Player | None:
        return self.by_token_digest(hash_token(token), fresh=fresh)

    def grant_of(self, token: str, *, fresh: bool = False) -> Grant | None:
        """The player a token belongs to and the scopes it was issued with (see :meth:`grant_by_digest`)."""
        return self.grant_by_digest(hash_token(token), fresh=fresh)

    def by_token_digest(self, digest: str, *, fresh: bool = False) -> Player | None:
        """The player a token (known by its SHA-256) belongs to (see :meth:`grant_by_digest`)."""
        grant = self.grant_by_digest(digest, fresh=fresh)
        return None if grant is None else grant.player

    def grant_by_digest(self, digest: str, *, fresh: bool = False) -> Grant | None:
        """The player a token (known by its SHA-256) belongs to, and its scopes, while it is not revoked and the
        account not deleted (the scopes are read with the player's id, from the token's lookup key: no round trip more).

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
                works = self._works(digest, cached.player.id)
            else:
                ticket = watch.ticket(digest) if watch is not None else None
                works = self._works(digest, cached.player.id)
                if watch is not None:
                    watch.settle(digest, ticket, current=works)
            if works:
                return cached
            with self._lock:
                self._by_token.pop(digest, None)
            return None
        ticket = watch.ticket(digest) if watch is not None else None
        revocations = self._revocations
        stored = self.redis.get(self._token_key(digest))
        player_id, scopes = read_lookup(as_text(stored)) if stored else ("", None)
        player = self.get(player_id) if player_id else None
        grant = Grant(player, scopes) if player is not None else None
        kept = False
        if grant is not None:
            with self._lock:
                if len(self._by_token) > 50_000:
                    self._by_token.clear()
                if self._revocations == revocations:
                    self._by_token[digest] = (now + self.cache_seconds, grant)
                    kept = True
        if watch is not None:
            watch.settle(digest, ticket, current=kept)
        return grant

    def _works(self, digest: str, player_id: str) -> bool:
        """Whether the token still resolves to the player: one read of its lookup key, which a revocation deletes, and
        the deletion of the account too (after its tombstone, before it answers).  A key that outlived its account
        (its issue stopped between writing it and reading the tombstone) resolves to nobody on a lookup, and a write
        made with it is undone by its own check after (``PlayerService.still_there``)."""
        owner = self.redis.get(self._token_key(digest))
        return owner is not None and read_lookup(as_text(owner))[0] == player_id
