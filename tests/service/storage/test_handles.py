"""Handles in storage: one claim per handle whatever its case, on a slot of its own; changes, holds, the prefix index,
and what a crash between the claim and the player's record leaves (nothing usable, and nothing kept for good).

Every test here runs on the slot-checked fakeredis, the real Redis and (``on_cluster``) a Redis Cluster.
"""

from __future__ import annotations

import threading

import pytest
from redis.crc import key_slot

from service.application.handles import check_handle
from service.common.errors import Refused
from service.storage.handles import TAKEOVER_AFTER_MS, HandleTaken, claim_key, index_key
from service.storage.players import PlayerStore, PlayerTag
from service.storage.players.keys import player_key, token_key

AT = "2026-05-01T12:00:00.000Z"
WEEK_MS = 7 * 24 * 3600 * 1000


class Crash(Exception):
    pass


@pytest.fixture
def players(redis_client, key_prefix) -> PlayerStore:
    return PlayerStore(redis_client, key_prefix, cache_seconds=0)


# --- the rule (no store) ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("handle", ["ana", "Ana_B", "x-9", "a" * 20, "007", "___", "Red7_fan", "p_12345"])
def test_a_handle_is_3_to_20_ascii_letters_digits_underscores_or_dashes(handle):
    check_handle(handle)


@pytest.mark.parametrize("handle", ["an", "a" * 21, "ana b", "ana.b", "zoë", "ana!", "", "ana\n", "{ana}", "ａｎａ"])
def test_a_handle_breaking_the_rule_is_refused_naming_the_field(handle):
    with pytest.raises(Refused) as refused:
        check_handle(handle)
    assert refused.value.code == "handle_invalid" and refused.value.facts["errors"][0]["field"] == "handle"


@pytest.mark.parametrize(
    "handle",
    [
        "me",
        "ME",
        "admin",
        "System",
        "ai",
        "red7",
        "support",
        "null",
        "deleted_player",
        "p_0123456789abcdef",
        "P_0123456789ABCDEF",
    ],
)
def test_reserved_handles_and_handles_shaped_like_a_player_id_are_refused(handle):
    with pytest.raises(Refused) as refused:
        check_handle(handle)
    assert refused.value.code == "handle_reserved"


@pytest.mark.parametrize(
    "handle",
    [
        # the AIs' names, as their seats are named (ai:random) in every spelling a handle allows
        "ai_random",
        "ai-random",
        "AI_Greedy",
        "ai1",
        "ai_expert_2",
        "airandom",
        "a1_random",
        "bot_greedy",
        "botexpert",
        # the staff and the service, with separators and digits folded away or written for letters
        "admin_",
        "_admin",
        "admin-1",
        "adm1n",
        "bob_admin",
        "adminbob",
        "support1",
        "5upport",
        "supp0rt_team",
        "the_staff",
        "mod_squad",
        "moderator_ana",
        "system-2",
        "sy5tem",
        "official_ana",
        "r00t",
        "sysop",
        "red-7",
        # the words reserved from the start, spelt apart
        "m-e",
        "n_u_l_l",
        "deleted-player",
        "player1",
    ],
)
def test_handles_that_pose_as_the_ais_or_the_staff_are_reserved_in_every_spelling(handle):
    """``ai_random``, ``ai-random``, ``admin_``, ``support1`` passed: only the exact reserved words were refused."""
    with pytest.raises(Refused) as refused:
        check_handle(handle)
    assert refused.value.code == "handle_reserved" and refused.value.facts["errors"][0]["field"] == "handle"


@pytest.mark.parametrize(
    "handle", ["ana_b", "Bo_7", "said", "aimee", "Staffan", "robot_wars", "botanic", "modern", "abbot", "maid", "x_1"]
)
def test_ordinary_handles_that_merely_hold_those_letters_are_free(handle):
    check_handle(handle)  # nothing raised


# --- claims ------------------------------------------------------------------------------------------------------


@pytest.mark.on_cluster
def test_a_handle_is_one_players_whatever_its_case_and_kept_as_given(players):
    ana, _ = players.create("Ana", AT, "Ana_B")
    assert players.get(ana.id).handle == "Ana_B"
    with pytest.raises(HandleTaken):
        players.create("Bo", AT, "ana_b")
    assert players.by_handle("ANA_B") == players.get(ana.id) == players.by_handle("ana_b")
    assert players.by_handle("ana_c") is None


@pytest.mark.on_cluster
def test_the_claim_and_the_index_are_on_slots_of_their_own(players):
    ana, _ = players.create("Ana", AT, "Ana_B")
    claim, index = claim_key(players.prefix, "Ana_B"), index_key(players.prefix)
    assert claim == f"{players.prefix}handle:{{ana_b}}" and players.redis.get(claim).startswith(f"{ana.id} ")
    assert key_slot(claim.encode()) == key_slot(b"ana_b")  # the handle's own slot, whoever holds it
    assert players.redis.zrange(index, 0, -1) == [f"ana_b {ana.id}"]


@pytest.mark.on_cluster
def test_players_racing_for_one_handle_get_it_once(players):
    """The claim is one script: of eight sign-ups at once with one handle, one gets it, the others are refused."""
    won, refused = [], []
    start = threading.Barrier(8)

    def sign_up(n: int) -> None:
        start.wait()
        try:
            won.append(players.create(f"P{n}", AT, f"Race{'r' if n % 2 else 'R'}")[0])
        except HandleTaken:
            refused.append(n)

    threads = [threading.Thread(target=sign_up, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(won) == 1 and len(refused) == 7
    assert players.by_handle("racer").id == won[0].id


@pytest.mark.on_cluster
def test_a_sign_up_cut_short_after_its_claim_leaves_a_handle_nobody_holds_and_nobody_keeps_for_good(players, monkeypatch):
    """Claimed first, named by the record second: a crash in between leaves a claim no lookup follows, which another
    player may take over once it is old (a retry of the same sign-up, with its key, takes it at once)."""

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(players.index, "add", crash)  # after the claim, before the record names the handle
    with pytest.raises(Crash):
        players.create("Ana", AT, "ana")
    monkeypatch.undo()
    claim = claim_key(players.prefix, "ana")
    ghost = players.redis.get(claim).split(" ")[0]
    assert players.by_handle("ana") is None and players.get(ghost) is None  # nothing usable
    with pytest.raises(HandleTaken):
        players.create("Bo", AT, "ana")  # a claim this young may be on its way: it stands
    players.redis.set(claim, f"{ghost} {int(players.redis.time()[0]) * 1000 - TAKEOVER_AFTER_MS - 1000}")  # grown old
    bo, _ = players.create("Bo", AT, "ana")
    assert players.by_handle("ana").id == bo.id and players.redis.get(claim).startswith(f"{bo.id} ")


@pytest.mark.on_cluster
def test_a_claim_its_players_record_names_is_never_taken_over_however_old(players):
    ana, _ = players.create("Ana", AT, "ana")
    claim = claim_key(players.prefix, "ana")
    players.redis.set(claim, f"{ana.id} 1")
    with pytest.raises(HandleTaken):
        players.create("Bo", AT, "ANA")
    assert players.by_handle("ana").id == ana.id


# --- changes -----------------------------------------------------------------------------------------------------


@pytest.mark.on_cluster
def test_a_handle_given_up_is_set_aside_for_its_player_alone_then_freed(players):
    ana, _ = players.create("Ana", AT, "ana")
    bo, _ = players.create("Bo", AT)
    assert players.set_handle(ana.id, "ana_b", WEEK_MS).handle == "ana_b"
    assert players.by_handle("ana") is None and players.by_handle("ana_b").id == ana.id
    with pytest.raises(HandleTaken):
        players.set_handle(bo.id, "ANA", WEEK_MS)  # set aside for Ana
    assert 0 < players.redis.pttl(claim_key(players.prefix, "ana")) <= WEEK_MS
    assert players.redis.zrange(index_key(players.prefix), 0, -1) == [f"ana_b {ana.id}"]
    assert players.set_handle(ana.id, "Ana", WEEK_MS).handle == "Ana"  # she takes it back: kept for good again
    assert players.redis.pttl(claim_key(players.prefix, "ana")) == -1
    players.redis.delete(claim_key(players.prefix, "ana_b"))  # as its hold runs out
    assert players.set_handle(bo.id, "ana_b", WEEK_MS).handle == "ana_b"


@pytest.mark.on_cluster
def test_a_player_sets_aside_one_handle_at_a_time(players):
    ana, _ = players.create("Ana", AT, "first")
    bo, _ = players.create("Bo", AT)
    players.set_handle(ana.id, "second", WEEK_MS)
    players.set_handle(ana.id, "third", WEEK_MS)
    assert players.set_handle(bo.id, "first", WEEK_MS).handle == "first"  # freed when "second" was set aside
    with pytest.raises(HandleTaken):
        players.set_handle(bo.id, "second", WEEK_MS)


@pytest.mark.on_cluster
def test_without_a_hold_a_handle_given_up_or_removed_is_free_at_once(players):
    ana, _ = players.create("Ana", AT, "ana")
    bo, _ = players.create("Bo", AT)
    assert players.set_handle(ana.id, None, 0).handle is None
    assert players.by_handle("ana") is None and not players.redis.exists(claim_key(players.prefix, "ana"))
    assert players.set_handle(bo.id, "ana", 0).handle == "ana"
    assert players.set_handle(bo.id, "ANA", 0).handle == "ANA"  # only the case: the same handle, as given now
    assert players.by_handle("ana").handle == "ANA"


@pytest.mark.on_cluster
def test_a_change_cut_short_leaves_the_old_handle_to_be_taken_over_and_the_new_one_held(players, monkeypatch):
    ana, _ = players.create("Ana", AT, "ana")
    bo, _ = players.create("Bo", AT)

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(players.index, "remove", crash)  # the record names the new handle; the old is not let go yet
    with pytest.raises(Crash):
        players.set_handle(ana.id, "ana_b", WEEK_MS)
    monkeypatch.undo()
    assert players.by_handle("ana_b").id == ana.id and players.by_handle("ana") is None
    old = claim_key(players.prefix, "ana")
    players.redis.set(old, f"{ana.id} {int(players.redis.time()[0]) * 1000 - TAKEOVER_AFTER_MS - 1000}")
    assert players.set_handle(bo.id, "ana", WEEK_MS).handle == "ana"
    assert [p.id for p in players.search("ana", None, 5)[0]] == [bo.id, ana.id]  # the stale entry is passed over


# --- search ------------------------------------------------------------------------------------------------------


@pytest.mark.on_cluster
def test_search_finds_handles_by_prefix_whatever_their_case_a_page_at_a_time(players):
    made = {
        handle: players.create(handle.title(), AT, handle)[0]
        for handle in ["Ana", "ana-b", "ANA_c", "anabel", "andre", "bob", "banana"]
    }
    players.create("Nobody", AT)  # no handle: never found
    first, cursor = players.search("AN", None, 2)
    assert [p.handle for p in first] == ["Ana", "ana-b"] and cursor is not None
    second, cursor = players.search("an", cursor, 2)
    assert [p.handle for p in second] == ["ANA_c", "anabel"]
    last, cursor = players.search("an", cursor, 2)
    assert [p.handle for p in last] == ["andre"] and cursor is None
    assert [p.id for p in players.search("b", None, 20)[0]] == [made["banana"].id, made["bob"].id]
    assert [p.handle for p in players.search("", None, 20)[0]] == ["Ana", "ana-b", "ANA_c", "anabel", "andre", "banana", "bob"]


@pytest.mark.on_cluster
def test_a_search_page_skips_entries_whose_player_no_longer_holds_the_handle(players):
    ana, _ = players.create("Ana", AT, "ana1")
    players.create("Bo", AT, "ana2")
    players.index.add("ana0", ana.id)  # an entry whose change was cut short: Ana's record names ana1
    page, cursor = players.search("ana", None, 1)
    assert [p.handle for p in page] == ["ana1"] and cursor is not None
    page, cursor = players.search("ana", cursor, 1)
    assert [p.handle for p in page] == ["ana2"] and cursor is None


# --- deletion ----------------------------------------------------------------------------------------------------


@pytest.mark.on_cluster
def test_an_erased_account_leaves_a_tombstone_and_frees_its_handle_and_tokens(players):
    ana, token = players.create("Ana", AT, "ana")
    _, phone = players.issue_token(ana.id, "phone", AT)
    players.set_handle(ana.id, "ana_b", WEEK_MS)  # "ana" set aside for her
    digests = [info.digest for info in players.tokens(ana.id)]
    players.erase(ana.id, AT)
    prefix = players.prefix
    assert players.get(ana.id) is None and players.by_token(token) is None and players.by_token(phone) is None
    assert players.redis.hgetall(player_key(prefix, ana.id)) == {"deleted_at": AT}
    assert not any(players.redis.exists(token_key(prefix, digest)) for digest in digests)
    assert not players.redis.exists(claim_key(prefix, "ana")) and not players.redis.exists(claim_key(prefix, "ana_b"))
    assert players.redis.zcard(index_key(prefix)) == 0 and players.search("ana", None, 5) == ([], None)
    assert players.tags({ana.id}) == {ana.id: PlayerTag(None, deleted=True)}
    assert players.create("Bo", AT, "ana_b")[0].handle == "ana_b"
    players.erase(ana.id, "2026-06-01T00:00:00.000Z")  # again: nothing changes
    assert players.redis.hgetall(player_key(prefix, ana.id)) == {"deleted_at": AT}
