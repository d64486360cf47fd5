"""Quick match below HTTP: tickets opened, read and cancelled, the matchmaker's pass, and what a crash leaves —
on fakeredis and the real Redis, with the clock moved by hand."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
import redis

from engine import Variant
from service.application.matchmaking import MatchService, TicketRequest
from service.application.matchmaking import matchmaker as matching  # the pass looks find_matches up here
from service.common.errors import NotConfirmed, NotFound, Refused
from service.domain.matchmaking import LIVE_PATIENCE_MS, Kind, TicketsMatched, event_from_json
from service.runtime import Runtime, build_runtime
from service.storage.events import Idempotency, NotReplicated

T0 = 1_800_000_000_000


class Clock:
    def __init__(self, at: int = T0) -> None:
        self.at = at

    def __call__(self) -> int:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += round(seconds * 1000)


@pytest.fixture
def clock(runtime) -> Clock:
    clock = Clock()
    runtime.matches.clock = clock
    return clock


def people(runtime: Runtime, *names: str):
    return [runtime.players.create(name, "2026-11-26T12:00:00.000Z")[0] for name in names]


def refusal(call, *args, **kwargs) -> Refused:
    with pytest.raises(Refused) as caught:
        call(*args, **kwargs)
    return caught.value


TWO = TicketRequest(counts=(2,))


def test_a_ticket_waits_and_says_how_long_and_what_ratings_it_takes_now(runtime, clock):
    (ana,) = people(runtime, "Ana")
    ticket = runtime.matches.create(ana, TicketRequest(rating_range=50, rating_widen=60, rating_range_max=200))
    assert ticket.status == "waiting" and ticket.kind == Kind() and ticket.game_id is None
    clock.advance(90)
    seen = runtime.matches.get(ana, ticket.ticket.id)
    assert seen.status == "waiting" and seen.waited_ms == 90_000 and seen.rating_range_now == (1000 - 140, 1000 + 140)


def test_one_open_ticket_per_kind_and_a_cap_on_all_of_a_players_tickets(runtime, key_prefix):
    (ana,) = people(runtime, "Ana")
    first = runtime.matches.create(ana, TicketRequest())
    again = refusal(runtime.matches.create, ana, TicketRequest(counts=(2,)))
    assert again.code == "match_ticket_already_open" and again.facts["ticket_id"] == first.ticket.id
    runtime.matches.max_tickets = 2
    runtime.matches.create(ana, TicketRequest(variant=Variant.BASIC))
    capped = refusal(runtime.matches.create, ana, TicketRequest(days_per_turn=3))
    assert capped.code == "match_ticket_limit_reached" and capped.facts == {"limit": 2}
    runtime.matches.cancel(ana, first.ticket.id)  # one closes: room for another
    assert runtime.matches.create(ana, TicketRequest(days_per_turn=3)).status == "waiting"


def test_two_compatible_tickets_sit_down_in_one_game_both_find_it_and_it_is_in_their_lists(runtime, clock):
    ana, bo = people(runtime, "Ana", "Bo")
    a = runtime.matches.create(ana, TWO)
    clock.advance(1)
    b = runtime.matches.create(bo, TWO)
    assert runtime.matches.match_pass() == 1
    seen = [runtime.matches.get(ana, a.ticket.id), runtime.matches.get(bo, b.ticket.id)]
    assert [s.status for s in seen] == ["matched", "matched"] and seen[0].game_id == seen[1].game_id
    assert seen[0].waited_ms == 1000 and seen[1].waited_ms == 0
    game = runtime.games.load(seen[0].game_id)
    assert game.origin == "quick_match" and game.status == "active" and game.turn_timeout == 60
    assert [s.player_id for s in game.seats] == [ana.id, bo.id] and game.created_by == ana.id
    assert all(seen[0].game_id in {g.id for g in runtime.games.games_of(p).games} for p in (ana, bo))
    assert runtime.matches.match_pass() == 0  # nothing left, nothing made twice


def test_a_live_table_short_of_its_largest_count_waits_half_a_second_for_more(runtime, clock):
    players = people(runtime, "Ana", "Bo", "Cy")
    a = runtime.matches.create(players[0], TicketRequest())
    runtime.matches.create(players[1], TicketRequest())
    assert runtime.matches.match_pass() == 0
    clock.advance(LIVE_PATIENCE_MS / 2000)
    runtime.matches.create(players[2], TicketRequest())
    assert runtime.matches.match_pass() == 0
    clock.advance(LIVE_PATIENCE_MS / 2000)
    assert runtime.matches.match_pass() == 1
    game = runtime.games.load(runtime.matches.get(players[0], a.ticket.id).game_id or "")
    assert len(game.seats) == 3 and all(s.kind == "human" for s in game.seats)


def test_ai_seats_fill_the_table_once_ai_fill_after_has_passed_owned_by_the_ticket_holder(runtime, clock):
    (ana,) = people(runtime, "Ana")
    ticket = runtime.matches.create(ana, TicketRequest(counts=(3, 4), ai_fill_after=5, ai_level="random"))
    clock.advance(4.999)
    assert runtime.matches.match_pass() == 0
    clock.advance(0.001)
    assert runtime.matches.match_pass() == 1
    game = runtime.games.load(runtime.matches.get(ana, ticket.ticket.id).game_id or "")
    assert [(s.kind, s.level) for s in game.seats] == [("human", None), ("ai", "random"), ("ai", "random")]
    assert game.created_by == ana.id and game.status == "active"


def test_cancel_closes_a_waiting_ticket_and_is_answered_again_but_a_matched_one_is_refused(runtime, clock):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    a = runtime.matches.create(ana, TWO)
    assert runtime.matches.cancel(ana, a.ticket.id).status == "cancelled"
    assert runtime.matches.cancel(ana, a.ticket.id).status == "cancelled"
    with pytest.raises(NotFound):
        runtime.matches.cancel(bo, a.ticket.id)  # not hers to cancel: there is no such ticket of his
    b, c = runtime.matches.create(bo, TWO), runtime.matches.create(cy, TWO)
    runtime.matches.match_pass()
    matched = refusal(runtime.matches.cancel, bo, b.ticket.id)
    assert matched.code == "match_ticket_matched" and matched.facts["game_id"] == runtime.matches.get(cy, c.ticket.id).game_id


def test_a_deleted_accounts_waiting_tickets_are_all_cancelled(runtime):
    ana, bo = people(runtime, "Ana", "Bo")
    mine = [runtime.matches.create(ana, TicketRequest(variant=variant)) for variant in (Variant.BASIC, Variant.ADVANCED)]
    runtime.matches.create(bo, TicketRequest(variant=Variant.BASIC))
    assert runtime.matches.close_tickets_of(ana) == 2
    assert [runtime.matches.get(ana, t.ticket.id).status for t in mine] == ["cancelled", "cancelled"]
    assert runtime.matches.open_tickets(ana) == [] and len(runtime.matches.open_tickets(bo)) == 1


def test_a_ticket_expires_when_its_time_is_up_and_the_player_may_open_another(runtime, clock):
    (ana,) = people(runtime, "Ana")
    ticket = runtime.matches.create(ana, TicketRequest(expires_in=60))
    clock.advance(60)
    assert runtime.matches.get(ana, ticket.ticket.id).status == "expired"  # a fact of time, before anyone says so
    runtime.matches.match_pass()
    assert runtime.matches.pools.load(Kind().key).tickets == {}
    assert runtime.matches.create(ana, TicketRequest()).status == "waiting"
    too_long = refusal(runtime.matches.create, ana, TicketRequest(variant=Variant.BASIC, expires_in=15 * 24 * 3600))
    assert too_long.code == "invalid_request"


def test_an_unknown_ticket_or_another_players_is_not_found(runtime):
    ana, bo = people(runtime, "Ana", "Bo")
    ticket = runtime.matches.create(ana, TWO)
    for player, ticket_id in ((bo, ticket.ticket.id), (ana, "mt_nope")):
        with pytest.raises(NotFound):
            runtime.matches.get(player, ticket_id)


def test_a_create_retried_with_its_key_is_answered_with_the_same_ticket(runtime):
    (ana,) = people(runtime, "Ana")
    key = Idempotency(ana.id, "k1", Idempotency.fingerprint_of("POST", "/v1/match-tickets", {"player_counts": [2]}))
    first = runtime.matches.create(ana, TWO, key)
    again = runtime.matches.create(ana, TWO, key)
    assert again.ticket.id == first.ticket.id and again.replayed and not first.replayed
    other = Idempotency(ana.id, "k1", Idempotency.fingerprint_of("POST", "/v1/match-tickets", {"player_counts": [3]}))
    assert refusal(runtime.matches.create, ana, TicketRequest(counts=(3,)), other).code == "idempotency_key_reused"


def test_a_create_stored_but_not_confirmed_by_replicas_is_answered_by_its_retry(runtime, monkeypatch):
    """With RED7_WAIT_REPLICAS, an append the replicas did not confirm in time is stored: the player is told so
    (503), the ticket stays listed, and a retry with the same key is answered with it."""
    (ana,) = people(runtime, "Ana")
    streams = runtime.matches.pool_streams
    real_append = streams.append

    def unconfirmed(*args, **kwargs):
        appended = real_append(*args, **kwargs)
        raise NotReplicated(appended.version, 0, 1)

    monkeypatch.setattr(streams, "append", unconfirmed)
    key = Idempotency(ana.id, "k1", Idempotency.fingerprint_of("POST", "/v1/match-tickets", {}))
    with pytest.raises(NotConfirmed):
        runtime.matches.create(ana, TicketRequest(), key)
    monkeypatch.undo()
    again = runtime.matches.create(ana, TicketRequest(), key)
    assert again.replayed and again.status == "waiting"
    assert runtime.matches.get(ana, again.ticket.id).status == "waiting"
    assert [t.ticket.id for t in runtime.matches.open_tickets(ana)] == [again.ticket.id]


def test_a_create_written_then_cut_off_and_matched_is_answered_by_its_retry_with_the_match(runtime, monkeypatch):
    """A Redis failing over after the ticket's append: the append is stored but its answer lost (the player is told
    503), the matchmaker seats the ticket at once, and the player asks again with the same key.  The retry is told of
    the first ticket, matched, with its game: no second ticket, no second game (the cluster soak's seated_twice came
    from retries without a key)."""
    ana, bo = people(runtime, "Ana", "Bo")
    streams = runtime.matches.pool_streams
    real_append = streams.append

    def cut_off(*args, **kwargs):
        real_append(*args, **kwargs)
        raise redis.ConnectionError("Connection closed by server.")

    monkeypatch.setattr(streams, "append", cut_off)
    key = Idempotency(ana.id, "k1", Idempotency.fingerprint_of("POST", "/v1/match-tickets", {"player_counts": [2]}))
    with pytest.raises(redis.ConnectionError):
        runtime.matches.create(ana, TWO, key)
    monkeypatch.undo()
    runtime.matches.create(bo, TWO)
    assert runtime.matches.match_pass() == 1
    again = runtime.matches.create(ana, TWO, key)
    assert again.replayed and again.status == "matched" and again.game_id
    assert runtime.matches.open_tickets(ana) == []
    seats = [s.player_id for s in runtime.games.load(again.game_id).seats]
    assert sorted(seats) == sorted([ana.id, bo.id])
    assert runtime.matches.match_pass() == 0, "nothing left to match: the retry opened no ticket"


def test_a_match_whose_game_was_never_made_is_made_by_the_next_pass_or_the_tickets_read(
    runtime, redis_pair, settings, monkeypatch
):
    """The matchmaker is killed between recording a match and making its game: nobody stays matched but unseated."""
    ana, bo, cy, dee = people(runtime, "Ana", "Bo", "Cy", "Dee")
    tickets = [runtime.matches.create(p, TWO) for p in (ana, bo, cy, dee)]

    def killed(*args):
        raise SystemExit("killed between the match and its game")

    monkeypatch.setattr(MatchService, "finish", killed)
    with pytest.raises(SystemExit):
        runtime.matches.match_pass()
    monkeypatch.undo()
    games = set(runtime.matches.pools.load(Kind().key).pending)
    assert len(games) == 2
    assert not any(runtime.store.exists(g) for g in games)
    reader = build_runtime(settings, clients=redis_pair)  # another process: an API reading a ticket
    seen = reader.matches.get(ana, tickets[0].ticket.id)
    assert seen.status == "matched" and runtime.store.exists(seen.game_id or "")
    fresh = build_runtime(settings, clients=redis_pair)  # the next matchmaker
    assert fresh.matches.match_pass() == 1  # the other match's game
    assert all(runtime.store.exists(g) for g in games)
    assert fresh.matches.pools.load(Kind().key).pending == {}  # noted made: nobody makes them again
    assert fresh.matches.match_pass() == 0
    seated = Counter(s.player_id for g in games for s in runtime.games.load(g).seats)
    assert seated == Counter({p.id: 1 for p in (ana, bo, cy, dee)})


def test_a_cancel_that_comes_first_wins_and_the_matchmaker_decides_again(runtime, redis_pair, settings, monkeypatch):
    ana, bo, cy = people(runtime, "Ana", "Bo", "Cy")
    a, b, c = (runtime.matches.create(p, TWO) for p in (ana, bo, cy))
    api = build_runtime(settings, clients=redis_pair)  # the cancel comes through an API process
    real = matching.find_matches
    raced = []

    def cancel_meanwhile(pool, now, **options):
        if not raced:  # between the matchmaker's read of the pool and its append, Ana calls hers off
            raced.append(api.matches.cancel(ana, a.ticket.id))
        return real(pool, now, **options)

    monkeypatch.setattr(matching, "find_matches", cancel_meanwhile)
    runtime.matches.match_pass()
    assert runtime.matches.get(ana, a.ticket.id).status == "cancelled"
    game = runtime.matches.get(bo, b.ticket.id).game_id
    assert game is not None and game == runtime.matches.get(cy, c.ticket.id).game_id


def test_two_processes_opening_tickets_and_matching_at_once_never_seat_anyone_twice(runtime, redis_pair, settings):
    """Two API processes take 60 tickets at once while two matchmakers pass: each ticket in one game at most, each
    player in exactly one game once the dust settles, no game over its seats."""
    other = build_runtime(settings, clients=redis_pair)
    players = people(runtime, *(f"P{n}" for n in range(60)))
    counts = [(2,), (3,), (4,), (2, 3, 4)]
    requests = [TicketRequest(counts=counts[n % 4], ai_fill_after=0.3) for n in range(60)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def matchmaker(rt: Runtime) -> None:
        try:
            while not stop.is_set():
                rt.matches.match_pass()
        except BaseException as error:
            errors.append(error)

    def open_ticket(n: int) -> None:
        try:
            (runtime if n % 2 else other).matches.create(players[n], requests[n])
        except BaseException as error:
            errors.append(error)

    passes = [threading.Thread(target=matchmaker, args=(rt,)) for rt in (runtime, other)]
    opens = [threading.Thread(target=open_ticket, args=(n,)) for n in range(60)]
    for thread in passes + opens:
        thread.start()
    for thread in opens:
        thread.join(30)
    for _ in range(100):
        if not runtime.matches.pools.load(Kind().key).tickets:
            break
        time.sleep(0.1)
    stop.set()
    for thread in passes:
        thread.join(30)
    assert not errors, errors
    runtime.matches.match_pass()  # any game left half-made
    stream = runtime.matches.pool_streams.read_all(Kind().key)
    matches = [m for m in map(event_from_json, (e.payload for e in stream)) if isinstance(m, TicketsMatched)]
    seated = [t for m in matches for t in m.ticket_ids]
    assert len(seated) == len(set(seated)) == 60
    in_games = Counter()
    for match in matches:
        game = runtime.games.load(match.game_id)
        humans = [s.player_id for s in game.seats if s.kind == "human"]
        assert humans == [p.player_id for p in match.players] and len(game.seats) == match.seats <= 4
        in_games.update(humans)
    assert in_games == Counter({p.id: 1 for p in players})
