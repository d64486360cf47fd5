"""A player's account: signed up (with a first token), changed, read for its webhook, and deleted.

A handle's claim and the index of handles are on slots of their own (:mod:`service.storage.handles`): the
claim is taken before the record names the handle, the index entry written before it too (a reader checks the
record), and both let go of after the record no longer names it.  Deleting an account follows the same order:
the record becomes a tombstone first (nothing of the player works or shows from then on), then the handle and
the tokens' lookup keys go; a crash in between leaves only what nothing resolves to any more.  Nothing written
after writes to a tombstone: a change of the record checks it in the same script or transaction, and a token
issued as the account goes is unmade by its own issue (:meth:`~service.storage.players.tokens.Tokens._enable_token`).
"""

from __future__ import annotations

import json
import secrets
import time

import redis
from redis.typing import EncodableT, FieldT

from service.storage.events import Idempotency
from service.storage.handles import Claim
from service.storage.idempotency import CreateRecords, seal, signup_records_key, unseal
from service.storage.players.model import AccountGone, Player, TokenInfo, as_text, hash_token, new_id
from service.storage.players.tokens import Tokens, new_token


class Accounts(Tokens):
    """Signing up, changing and deleting an account (see the module); a sign-up issues the first token."""

    def create(self, name: str, created_at: str, handle: str | None = None) -> tuple[Player, str]:
        """A new player and its first token (the only time the token exists in clear); :class:`HandleTaken`."""
        player = Player(new_id("p"), name, created_at, handle=handle)
        token, info = new_token("first token", created_at)
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
            token, info = new_token("first token", created_at)
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

    def update(
        self,
        player_id: str,
        *,
        name: str | None = None,
        webhook_url: str | None = None,
        language: str | None = None,
        live_listed: bool | None = None,
    ) -> Player:
        """Change the name, the webhook, the language (``""``: none chosen) or whether the player's games in play may
        be listed as live games; a new webhook gets a new signing secret
        (returned once).  :class:`AccountGone` if the account was deleted: a tombstone is never written to (one script
        checks and writes)."""
        fields: list[str] = []
        if name is not None:
            fields += ["name", name]
        if language is not None:
            fields += ["language", language]
        if live_listed is not None:
            fields += ["live_hidden", "" if live_listed else "1"]
        if webhook_url is not None:
            fields += ["webhook_url", webhook_url, "webhook_secret", secrets.token_urlsafe(32) if webhook_url else ""]
        if fields:
            if not self._set_if_player(keys=[self._player_key(player_id)], args=fields):
                raise AccountGone(player_id)
            self._forget(player_id)
        return self._got(player_id)

    def webhook_url(self, player_id: str) -> str | None:
        """Where the player wants notifications, if anywhere (cached like token lookups)."""
        now = time.monotonic()
        with self._lock:
            hit = self._webhooks.get(player_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        stored = self.redis.hget(self._player_key(player_id), "webhook_url")
        url = as_text(stored) if stored else None
        with self._lock:
            if len(self._webhooks) > 50_000:
                self._webhooks.clear()
            self._webhooks[player_id] = (now + self.cache_seconds, url)
        return url

    def deleted(self, player_id: str) -> bool:
        """Whether the player's account was deleted (read now: no cache)."""
        return bool(self.redis.hexists(self._player_key(player_id), "deleted_at"))

    def deleted_among(self, player_ids: set[str]) -> set[str]:
        """Which of these players' accounts were deleted (read now: no cache)."""
        ordered = sorted(player_ids)
        with self.redis.pipeline(transaction=False) as pipe:  # one key each: a cluster client splits it by node
            for player_id in ordered:
                pipe.hexists(self._player_key(player_id), "deleted_at")
            replies = pipe.execute()
        return {player_id for player_id, deleted in zip(ordered, replies, strict=True) if deleted}

    def live_hidden_among(self, player_ids: set[str]) -> set[str]:
        """Which of these players keep their games in play off the list of live games (read now: no cache)."""
        ordered = sorted(player_ids)
        with self.redis.pipeline(transaction=False) as pipe:  # one key each: a cluster client splits it by node
            for player_id in ordered:
                pipe.hget(self._player_key(player_id), "live_hidden")
            replies = pipe.execute()
        return {player_id for player_id, hidden in zip(ordered, replies, strict=True) if hidden in ("1", b"1")}

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
                    handle, held, was_deleted = (as_text(value) if value else None for value in stored)
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
