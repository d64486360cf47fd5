"""A token's scopes in the store: kept with its lookup key and its listing, read back with its player; a token stored
before scopes existed reads as one that may do everything (issue 37)."""

from __future__ import annotations

import json

import pytest

from service.storage.players import PlayerStore, hash_token
from service.storage.players.keys import player_key, token_key, tokens_key
from service.storage.players.model import lookup_value, read_lookup


@pytest.fixture
def store(redis_client, key_prefix) -> PlayerStore:
    return PlayerStore(redis_client, key_prefix, cache_seconds=0)


@pytest.mark.parametrize("scopes", [None, (), ("play",), ("play", "profile:read", "account:delete")])
def test_the_lookup_value_reads_back(scopes):
    assert read_lookup(lookup_value("p_0123456789abcdef", scopes)) == ("p_0123456789abcdef", scopes)


def test_a_scoped_token_is_resolved_with_its_scopes(backend, store):
    player, first = store.create("Ana", "2026-01-01T00:00:00Z")
    info, token = store.issue_token(player.id, "bot", "2026-01-01T00:00:01Z", ("play", "lobby"))
    grant = store.grant_of(token)
    assert grant is not None and grant.player.id == player.id and grant.scopes == ("play", "lobby")
    assert store.by_token(token) == player  # the lookup of old still answers the player
    full = store.grant_of(first)
    assert full is not None and full.scopes is None  # a sign-up's token: stored without scopes, every power
    listed = {t.id: t.scopes for t in store.tokens(player.id)}
    assert listed[info.id] == ("play", "lobby")
    assert sorted(listed.values(), key=str) == sorted([None, ("play", "lobby")], key=str)


def test_a_scoped_token_is_revoked_like_any(backend, store):
    player, _ = store.create("Ana", "2026-01-01T00:00:00Z")
    info, token = store.issue_token(player.id, "bot", "2026-01-01T00:00:01Z", ("play",))
    assert store.grant_of(token, fresh=True) is not None  # a write's lookup: the key read again, scopes and all
    assert store.revoke_token(player.id, info.id)
    assert store.grant_of(token) is None and store.grant_of(token, fresh=True) is None


def test_a_token_stored_the_old_way_keeps_every_power(backend, store, redis_client, key_prefix):
    """As a store written before scopes holds it: the lookup key holds the player's id alone, the listing no scopes."""
    player, _ = store.create("Ana", "2026-01-01T00:00:00Z")
    old = "r7_stored-before-scopes"
    digest = hash_token(old)
    record = {"hash": digest, "label": "old phone", "created_at": "2025-01-01T00:00:00Z"}
    redis_client.hset(tokens_key(key_prefix, player.id), "t_old", json.dumps(record))
    redis_client.set(token_key(key_prefix, digest), player.id)
    grant = store.grant_of(old)
    assert grant is not None and grant.player.id == player.id and grant.scopes is None
    assert next(t for t in store.tokens(player.id) if t.id == "t_old").scopes is None
    # the oldest layout of all: one token as token_hash on the player, adopted into the listing
    legacy = "r7_older-still"
    redis_client.hset(player_key(key_prefix, player.id), "token_hash", hash_token(legacy))
    redis_client.set(token_key(key_prefix, hash_token(legacy)), player.id)
    assert all(t.scopes is None for t in store.tokens(player.id) if t.label == "first token")
    adopted = store.grant_of(legacy)
    assert adopted is not None and adopted.scopes is None
