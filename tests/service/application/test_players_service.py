"""The application's players (service/application/players.py), with no HTTP: what the routes and auth ask of it.

Run on the player store over each backend's client (fakeredis, slot-checked, and the real Redis). A refusal is
the application's own (:mod:`service.common.errors`), never the HTTP layer's ``ApiError``, and never a storage exception.
"""

from __future__ import annotations

import itertools

import pytest

from service.application.commands import Idempotency
from service.application.players import PlayerService, hash_token
from service.common.errors import NotFound, Refused
from service.storage.players import MAX_TOKENS, PlayerStore

AT = "2026-03-01T12:00:00.000Z"
ADDRESS = "203.0.113.5"


@pytest.fixture
def accounts(redis_pair, key_prefix) -> PlayerService:
    seconds = itertools.count()

    def clock() -> str:  # a second later at each call: tokens are listed by the time they were issued
        return f"2026-03-01T12:00:{next(seconds):02d}.000Z"

    return PlayerService(PlayerStore(redis_pair[0], key_prefix, cache_seconds=0), clock=clock)


def key(scope: str, name: str = "k-1", request: str = "a") -> Idempotency:
    return Idempotency(scope, name, Idempotency.fingerprint_of("POST", "/v1/x", {"request": request}))


def refusal(raised: pytest.ExceptionInfo[Refused], kind: type[Refused], code: str) -> None:
    assert type(raised.value) is kind and raised.value.code == code  # the application's kind, not ApiError's


def test_a_sign_up_makes_a_player_its_token_and_its_tokens_digest_name(accounts):
    signed_up = accounts.sign_up("Ana")
    player = signed_up.player
    assert (player.name, player.created_at, signed_up.replayed) == ("Ana", AT, False)  # the service's clock
    assert accounts.by_token(signed_up.token) == player
    assert accounts.by_token_digest(hash_token(signed_up.token)) == player  # what a stream ticket keeps of it
    assert accounts.by_token("r7_" + "x" * 43) is None
    assert [info.label for info in accounts.tokens(player)] == ["first token"]


def test_a_sign_up_with_a_key_is_made_once_and_the_key_names_one_request(accounts):
    first = accounts.sign_up("Ana", key(ADDRESS))
    again = accounts.sign_up("Ana", key(ADDRESS))
    assert again.replayed and not first.replayed
    assert (again.player, again.token) == (first.player, first.token)
    assert accounts.sign_up("Ana", key("198.51.100.7")).player.id != first.player.id  # another address's key
    with pytest.raises(Refused) as reused:
        accounts.sign_up("Bo", key(ADDRESS, request="b"))
    refusal(reused, Refused, "idempotency_key_reused")


def test_a_token_is_issued_once_per_key_and_listed_oldest_first(accounts):
    ana = accounts.sign_up("Ana").player
    phone = accounts.issue_token(ana, "phone", key(ana.id))
    again = accounts.issue_token(ana, "phone", key(ana.id))
    assert again.replayed and (again.info, again.token) == (phone.info, phone.token)
    laptop = accounts.issue_token(ana, "laptop")
    assert [info.label for info in accounts.tokens(ana)] == ["first token", "phone", "laptop"]
    assert accounts.by_token(phone.token) == ana and accounts.by_token(laptop.token) == ana
    assert phone.info.digest == hash_token(phone.token)  # how a route tells the token a request came with
    with pytest.raises(Refused) as reused:
        accounts.issue_token(ana, "tablet", key(ana.id, request="b"))
    refusal(reused, Refused, "idempotency_key_reused")


def test_a_player_holds_at_most_so_many_tokens(accounts):
    ana = accounts.sign_up("Ana").player
    for n in range(MAX_TOKENS - 1):
        accounts.issue_token(ana, f"device {n}")
    with pytest.raises(Refused) as full:
        accounts.issue_token(ana, "one more")
    refusal(full, Refused, "token_limit_reached")
    assert len(accounts.tokens(ana)) == MAX_TOKENS


def test_a_player_revokes_its_own_tokens_only(accounts):
    ana, bo = accounts.sign_up("Ana"), accounts.sign_up("Bo")
    phone = accounts.issue_token(ana.player, "phone")
    with pytest.raises(NotFound) as not_hers:
        accounts.revoke_token(bo.player, phone.info.id)
    refusal(not_hers, NotFound, "token_not_found")
    assert accounts.by_token(phone.token) == ana.player
    accounts.revoke_token(ana.player, phone.info.id)
    assert accounts.by_token(phone.token) is None and accounts.by_token(ana.token) == ana.player
    with pytest.raises(NotFound):
        accounts.revoke_token(ana.player, phone.info.id)  # revoked already


def test_a_profile_is_renamed_and_a_webhook_set_with_a_new_secret_or_removed(accounts):
    ana = accounts.sign_up("Ana").player
    renamed = accounts.update(ana, name="Ana B")
    assert (renamed.name, renamed.webhook_url, renamed.webhook_secret) == ("Ana B", None, None)
    hook = "https://93.184.215.14/red7"  # a public address: the URL is checked when saved, with no DNS to ask here
    hooked = accounts.update(ana, webhook_url=hook)
    again = accounts.update(ana, webhook_url=hook)
    assert hooked.name == "Ana B" and hooked.webhook_url == hook
    assert hooked.webhook_secret and again.webhook_secret and hooked.webhook_secret != again.webhook_secret
    removed = accounts.update(ana, webhook_url="")
    assert (removed.webhook_url, removed.webhook_secret) == (None, None)
    assert accounts.update(ana) == removed  # nothing asked, nothing changed
    with pytest.raises(Refused) as refused:
        accounts.update(ana, webhook_url="http://10.0.0.1/red7")
    assert (refused.value.code, refused.value.facts["reason"]) == ("webhook_url_refused", "not_public")
    assert accounts.update(ana) == removed  # refused: nothing changed
