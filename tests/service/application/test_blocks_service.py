"""Blocks, mutes and who may reach a player, below HTTP (service/application/blocks.py): the lists, and what they
refuse elsewhere — a challenge, a listed table's seat, a quick-match table — on fakeredis and the real Redis."""

from __future__ import annotations

import itertools
import threading

import pytest

from service.application import blocks as blocking
from service.application.challenges import NewChallenge
from service.application.commands import NewGame, SeatRequest
from service.application.matchmaking import TicketRequest
from service.common.errors import NotFound, Refused
from service.domain.blocks import CHALLENGE_REFUSED
from service.domain.matchmaking import TicketsMatched, event_from_json
from service.runtime import Runtime
from service.storage.blocks import list_key

HUMAN = SeatRequest("human")


def people(runtime: Runtime, *names: str):
    return [runtime.accounts.sign_up(name, handle=name.lower() + "_h").player for name in names]


def refusal(call, *args, **kwargs) -> Refused:
    with pytest.raises(Refused) as caught:
        call(*args, **kwargs)
    return caught.value


def challenge(runtime: Runtime, by, *to):
    return runtime.challenges.create(by, NewChallenge([p.id for p in to], NewGame(seats=[HUMAN] * (len(to) + 1))))


@pytest.fixture
def blocks(runtime: Runtime) -> blocking.BlockService:
    assert runtime.blocks is not None
    runtime.blocks.clock = itertools.count(1_800_000_000_000).__next__  # a millisecond on at each reading
    return runtime.blocks


def test_every_service_that_seats_or_hears_players_reads_the_one_block_store(runtime, blocks):
    """A block is read where it was written: one store, built by the runtime, not one per service."""
    assert runtime.safety is not None
    shared = blocks.store
    assert runtime.games.block_store is shared
    assert runtime.matches.block_store is shared
    assert runtime.challenges.block_store is shared
    assert runtime.safety.talk.blocks is shared


def test_a_block_by_handle_or_id_is_listed_once_newest_first_a_page_at_a_time(runtime, blocks):
    ana, *others = people(runtime, "Ana", "Bo", "Cy", "Di")
    first = blocks.add(ana, "blocks", "bo_h")
    again = blocks.add(ana, "blocks", others[0].id)  # by id: the same block, its time kept
    assert first == again and first.player_id == others[0].id and first.handle == "bo_h"
    for other in others[1:]:
        blocks.add(ana, "blocks", other.id)
    page = blocks.page(ana, "blocks", 2)
    rest = blocks.page(ana, "blocks", 2, page.next_cursor)
    assert [p.player_id for p in page.entries + rest.entries] == [o.id for o in reversed(others)]
    assert rest.next_cursor is None
    assert blocks.remove(ana, "blocks", "cy_h").id == others[1].id
    blocks.remove(ana, "blocks", "cy_h")  # twice: nothing to do
    assert [p.player_id for p in blocks.page(ana, "blocks", 10).entries] == [others[2].id, others[0].id]
    assert blocks.page(ana, "mutes", 10).entries == []  # a block is no mute


def test_a_list_is_capped_and_names_its_limit(runtime, blocks, monkeypatch):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    monkeypatch.setitem(blocking.LIMITS, "mutes", 1)
    blocks.add(ana, "mutes", bo.id)
    blocks.add(ana, "mutes", bo.id)  # listed already: no room needed
    capped = refusal(blocks.add, ana, "mutes", cy.id)
    assert capped.code == "mute_limit_reached" and capped.facts == {"limit": 1}
    assert not runtime.players.redis.sismember(list_key(runtime.players.prefix, cy.id, "muted_by"), ana.id)


def test_nobody_blocks_themselves_or_a_player_there_is_not(runtime, blocks):
    (ana,) = people(runtime, "Ana")
    assert refusal(blocks.add, ana, "blocks", "ana_h").code == "cannot_block_yourself"
    with pytest.raises(NotFound) as unknown:
        blocks.add(ana, "blocks", "nobody_here")
    assert unknown.value.code == "player_not_found"
    assert refusal(blocks.page, ana, "blocks", 5, "not a cursor").code == "invalid_request"


def test_a_blocked_player_is_refused_as_a_nobody_setting_refuses_and_cannot_tell_which(runtime, blocks):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    blocks.add(ana, "blocks", bo.id)
    by_block = refusal(challenge, runtime, bo, ana)
    blocks.set_reach(cy.id, challenge="nobody")
    by_setting = refusal(challenge, runtime, bo, cy)
    assert by_block.code == by_setting.code == CHALLENGE_REFUSED
    assert str(by_block).replace("Ana", "X") == str(by_setting).replace("Cy", "X")
    assert by_block.facts == {"players": ["Ana"]}
    assert refusal(challenge, runtime, ana, bo).code == CHALLENGE_REFUSED  # the blocker cannot challenge them either
    assert runtime.challenges.inbox(ana, status="open", limit=10).challenges == []
    blocks.remove(ana, "blocks", bo.id)
    assert challenge(runtime, bo, ana).challenge.status(runtime.challenges.now()) == "open"


def test_a_refused_challenge_gives_back_what_it_claimed(runtime, blocks):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    blocks.add(cy, "blocks", ana.id)
    refusal(challenge, runtime, ana, bo, cy)
    assert runtime.challenges.inbox(bo, status="open", limit=10).challenges == []
    assert challenge(runtime, ana, bo).challenge.challenged[0].player_id == bo.id  # the pair was given back


def test_played_takes_only_those_who_finished_a_game_with_the_player(runtime, blocks):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    assert blocks.set_reach(ana.id, challenge="played").challenge == "played"
    assert blocks.reach(ana.id).talk == "opponents"  # the default, untouched
    assert refusal(challenge, runtime, bo, ana).code == CHALLENGE_REFUSED
    runtime.players.archive_game({ana.id, bo.id, cy.id}, "g_1", 1, played={ana.id, bo.id})
    assert challenge(runtime, bo, ana).challenge.status(runtime.challenges.now()) == "open"
    assert refusal(challenge, runtime, cy, ana).code == CHALLENGE_REFUSED  # listed, but did not play it
    assert refusal(blocks.set_reach, ana.id, challenge="friends").code == "invalid_request"
    assert blocks.reach(ana.id).challenge == "played"


def test_a_setting_stored_while_challenges_race_in_refuses_every_one_listed_after_it(runtime, blocks):
    """The inbox's script reads the setting as it lists a challenge: whatever lists after "nobody" is refused."""
    ana, *challengers = people(runtime, "Ana", "Bo", "Cy", "Di", "Ed", "Fy")
    outcomes: list[str] = []
    start = threading.Barrier(len(challengers) + 1)

    def send(player) -> None:
        start.wait()
        try:
            challenge(runtime, player, ana)
            outcomes.append("made")
        except Refused as refused:
            outcomes.append(refused.code)

    threads = [threading.Thread(target=send, args=(p,)) for p in challengers]
    for thread in threads:
        thread.start()
    start.wait()
    blocks.set_reach(ana.id, challenge="nobody")
    for thread in threads:
        thread.join()
    made = outcomes.count("made")
    assert set(outcomes) <= {"made", CHALLENGE_REFUSED}
    assert len(runtime.challenges.inbox(ana, status="open", limit=10).challenges) == made
    assert refusal(challenge, runtime, challengers[0], ana).code in {CHALLENGE_REFUSED, "already_challenged"}


def test_a_block_either_way_keeps_a_player_from_the_others_listed_table(runtime, blocks):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    table = runtime.games.create(ana, NewGame(seats=[HUMAN, HUMAN, HUMAN], listed=True)).game
    assert table is not None
    assert runtime.games.join(table.id, bo).game is not None  # nobody blocked: a seat as any
    blocks.add(ana, "blocks", cy.id)
    refused = refusal(runtime.games.join, table.id, cy)
    assert refused.code == "game_full"
    blocks.remove(ana, "blocks", cy.id)
    blocks.add(cy, "blocks", ana.id)
    assert refusal(runtime.games.join, table.id, cy).code == "game_full"


def test_quick_match_never_seats_a_blocked_pair_and_seats_them_with_others(runtime, blocks):
    ana, bo, cy, di = people(runtime, "Ana", "Bo", "Cy", "Di")
    blocks.add(bo, "blocks", ana.id)
    blocks.add(di, "blocks", cy.id)
    blocks.add(ana, "blocks", cy.id)
    for player in (ana, bo, cy, di):
        runtime.matches.create(player, TicketRequest(counts=(2,)))
    assert runtime.matches.match_pass() == 2
    kind = TicketRequest().kind().key
    tables = [
        {seat.player_id for seat in e.players}
        for e in map(event_from_json, (s.payload for s in runtime.matches.pool_streams.read_all(kind)))
        if isinstance(e, TicketsMatched)
    ]
    assert sorted(map(sorted, tables)) == sorted([sorted([ana.id, di.id]), sorted([bo.id, cy.id])])


def test_a_deleted_account_leaves_every_list_both_ways(runtime, blocks):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    blocks.add(ana, "blocks", bo.id)
    blocks.add(bo, "blocks", cy.id)
    blocks.add(cy, "mutes", bo.id)
    blocks.set_reach(bo.id, challenge="nobody")
    runtime.accounts.delete(bo)
    assert blocks.page(ana, "blocks", 10).entries == [] and blocks.page(cy, "mutes", 10).entries == []
    redis, prefix = runtime.players.redis, runtime.players.prefix
    assert not any(redis.exists(list_key(prefix, bo.id, which)) for which in ("blocks", "mutes", "blocked_by", "muted_by"))
    assert not redis.exists(list_key(prefix, cy.id, "blocked_by"))
    assert blocks.reach(bo.id).challenge == "everyone"


def test_a_block_ends_the_open_challenges_between_the_two_at_once(runtime, blocks):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    from_bo = challenge(runtime, bo, ana).challenge
    to_bo = challenge(runtime, ana, bo).challenge
    from_cy = challenge(runtime, cy, ana).challenge
    blocks.add(ana, "blocks", "bo_h")
    now = runtime.challenges.now()
    assert runtime.challenges.get(from_bo.id, ana).status(now) == "declined"
    assert runtime.challenges.get(from_bo.id, ana).decline_reason == "generic"  # as any decline
    assert runtime.challenges.get(to_bo.id, ana).status(now) == "cancelled"
    assert runtime.challenges.get(from_cy.id, ana).status(now) == "open"
    assert [c.id for c in runtime.challenges.inbox(ana, status="open", limit=10).challenges] == [from_cy.id]
