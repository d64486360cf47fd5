"""The application's replay imports (service/application/imports.py), with no HTTP: bounded, verified, and once per
key of the importing player (the key's record on the player's slot)."""

from __future__ import annotations

import copy

import pytest

from service.application.commands import Idempotency
from service.application.imports import ImportedReplays
from service.application.players import Player
from service.common.errors import Refused
from service.storage.players import PlayerStore
from service.storage.replays import ReplayStore
from tests.replays.files import genuine

ANA = Player("p_ana", "Ana", "2026-03-01T12:00:00.000Z")
BO = Player("p_bo", "Bo", "2026-03-01T12:00:00.000Z")
MOST = 500  # events or steps in a file (RED7_MAX_REPLAY_EVENTS); the genuine game has fewer than 200


@pytest.fixture
def imports(redis_pair, key_prefix) -> ImportedReplays:
    text = redis_pair[0]
    return ImportedReplays(ReplayStore(text, key_prefix), PlayerStore(text, key_prefix), 3600, max_events=MOST)


def key(player: Player, request: str = "the file") -> Idempotency:
    return Idempotency(player.id, "import-1", Idempotency.fingerprint_of("POST", "/v1/replays", request))


def test_the_same_content_is_one_import_new_only_the_first_time(imports):
    first = imports.import_once(ANA, genuine())
    second = imports.import_once(BO, genuine())
    assert first.created and not second.created and not first.replayed and not second.replayed
    assert second.replay_id == first.replay_id and imports.get(first.replay_id) is not None


def test_a_retry_with_its_key_is_answered_as_the_first_was(imports):
    first = imports.import_once(ANA, genuine(), key(ANA))
    imports.import_once(BO, genuine())  # imported again meanwhile, by someone else
    again = imports.import_once(ANA, genuine(), key(ANA))
    assert first.created and not first.replayed
    assert again.replayed and again.created, "what the first answer said: new"
    assert again.replay_id == first.replay_id and again.document["hash"] == first.document["hash"]
    fresh = imports.import_once(BO, genuine(), key(BO))  # Bo's own key: his first request, the import not new
    assert not fresh.created and not fresh.replayed


def test_a_key_names_one_request(imports):
    imports.import_once(ANA, genuine(), key(ANA))
    with pytest.raises(Refused) as reused:
        imports.import_once(ANA, genuine(), key(ANA, "another file"))
    assert type(reused.value) is Refused and reused.value.code == "idempotency_key_reused"


def test_a_file_longer_than_a_game_is_refused_before_it_is_verified(imports, redis_pair, key_prefix):
    document = copy.deepcopy(genuine())
    document["events"] = document["events"] * (1 + MOST // len(document["events"]))
    with pytest.raises(Refused) as too_long:
        imports.import_once(ANA, document, key(ANA))
    assert too_long.value.code == "payload_too_large" and too_long.value.facts == {"max_events": MOST}
    assert f"at most {MOST} events" in too_long.value.detail
    assert not list(redis_pair[0].scan_iter(match=f"{key_prefix}*"))  # neither kept nor recorded


def test_a_file_that_does_not_verify_is_refused_with_its_problems(imports):
    document = copy.deepcopy(genuine())
    document["hash"] = "sha256:" + "0" * 64
    with pytest.raises(Refused) as invalid:
        imports.import_once(ANA, document)
    assert invalid.value.code == "invalid_replay" and invalid.value.facts["problems"]
