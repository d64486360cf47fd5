"""The application's challenges (service/application/challenges/), with no HTTP: made, answered, started, listed.

Run on the stores over each backend's client (fakeredis, slot-checked, and the real Redis), with a clock the test
moves: expiry is read at the application's time, never written.
"""

from __future__ import annotations

import dataclasses
import threading
from datetime import timedelta
from types import SimpleNamespace

import pytest

from service.application.challenges import ChallengeService, NewChallenge
from service.application.commands import Idempotency, NewGame, SeatRequest
from service.application.followups import NoFollowUps
from service.application.games import GameService
from service.application.players import PlayerService
from service.common.errors import NotFound, Refused
from service.domain.challenges import format_time, parse_time
from service.storage.challenges import ChallengeIndex, ChallengeStreams, inbox_key, sent_key
from service.storage.events import EventStore
from service.storage.players import Player, PlayerStore

START = "2026-05-01T12:00:00.000Z"
HUMAN, GREEDY = SeatRequest("human"), SeatRequest("ai", "greedy")


class Clock:
    """The application's clock, a millisecond on at each reading (so that every write has a time of its own)."""

    def __init__(self) -> None:
        self.at = parse_time(START)

    def __call__(self) -> str:
        self.at += timedelta(milliseconds=1)
        return format_time(self.at)

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


class Told(NoFollowUps):
    """The notices the service asked the job system to send: (kind, player, challenge, game)."""

    def __init__(self) -> None:
        self.notices: list[tuple[str, str, str, str | None]] = []

    def notify(self, items, *, request_id=None) -> None:
        for item in items:
            player, kind, *game = item.args
            self.notices.append((kind, player, item.game_id, game[0] if game else None))


class Crash(Exception):
    pass


@pytest.fixture
def world(redis_pair, key_prefix) -> SimpleNamespace:
    text = redis_pair[0]
    players = PlayerStore(text, key_prefix, cache_seconds=0)
    accounts = PlayerService(players)
    games = GameService(EventStore(text, key_prefix), players)
    told, clock = Told(), Clock()
    service = ChallengeService(
        ChallengeStreams(text, key_prefix),
        ChallengeIndex(text, key_prefix),
        players,
        accounts,
        games,
        followups=told,
        clock=clock,
        max_open=3,
    )
    people = {name: accounts.sign_up(name).player for name in ("Ana", "Bo", "Cy", "Di", "Ed")}
    return SimpleNamespace(
        service=service,
        games=games,
        told=told,
        clock=clock,
        prefix=key_prefix,
        redis=text,
        players=players,
        accounts=accounts,
        **people,
    )


def ask(*players: Player | str, seats=None, expires_in: int | None = None, **game) -> NewChallenge:
    names = [p if isinstance(p, str) else p.id for p in players]
    seats = seats or [HUMAN] * (len(names) + 1)
    return NewChallenge(names, NewGame(seats=seats, **game), expires_in)


def refusal(call, *args, **kwargs) -> Refused:
    with pytest.raises(Refused) as caught:
        call(*args, **kwargs)
    return caught.value


@pytest.mark.on_cluster
def test_the_last_acceptance_starts_the_game_with_everyone_seated_and_in_their_lists(world):
    service, ana, bo, cy = world.service, world.Ana, world.Bo, world.Cy
    made = service.create(ana, ask(bo, cy, seats=[HUMAN, HUMAN, GREEDY, HUMAN], days_per_turn=3, rated=True)).challenge
    assert made.status(service.now()) == "open" and made.game_id is None
    assert [(k, p) for k, p, *_ in world.told.notices] == [("challenge_received", bo.id), ("challenge_received", cy.id)]
    after_bo = service.accept(made.id, bo).challenge
    assert after_bo.status(service.now()) == "open" and after_bo.answer_of(bo.id) == "accepted"
    started = service.accept(made.id, cy).challenge
    assert started.status(service.now()) == "started" and started.game_id is not None
    game = world.games.load(started.game_id)
    assert [s.player_id for s in game.seats] == [ana.id, bo.id, None, cy.id] and game.seats[2].level == "greedy"
    assert (game.status, game.origin, game.days_per_turn, game.rated, game.created_by) == ("active", "challenge", 3, True, ana.id)
    for player in (ana, bo, cy):
        assert started.game_id in [g.id for g in world.games.games_of(player).games]
    accepted = [(p, g) for k, p, _, g in world.told.notices if k == "challenge_accepted"]
    assert accepted == [(ana.id, None), (cy.id, None), (ana.id, started.game_id), (bo.id, started.game_id)]


def test_a_start_cut_short_between_the_acceptance_and_the_game_is_made_by_the_next_read(world, monkeypatch):
    """``challenge_started`` is appended first, the game made after it: a crash between leaves the game to make, and
    whoever reads the challenge next makes it, under the id the event names (once, whoever reads it)."""
    service, ana, bo = world.service, world.Ana, world.Bo
    made = service.create(ana, ask(bo)).challenge

    def crash(*args, **kwargs):
        raise Crash

    with monkeypatch.context() as patched:
        patched.setattr(world.games, "set_up", crash)
        with pytest.raises(Crash):
            service.accept(made.id, bo)
    started = service.load(made.id)
    assert started.game_id is not None and not world.games.store.exists(started.game_id)
    assert service.inbox(ana).challenges[0].game_id == started.game_id  # a read of the inbox ...
    game = world.games.load(started.game_id)  # ... made the game
    assert [s.player_id for s in game.seats] == [ana.id, bo.id] and game.status == "active"
    assert service.get(made.id, bo).game_id == started.game_id and world.games.load(started.game_id).version == game.version


def test_two_acceptances_at_once_start_one_game(world, monkeypatch):
    """The last two challenged accept together: one append wins, the other decides again on the challenge as it is
    now, and it is that one that starts the game: one game, every acceptance recorded once."""
    service, ana, bo, cy = world.service, world.Ana, world.Bo, world.Cy
    made = service.create(ana, ask(bo, cy)).challenge
    append, raced = service.streams.append, []

    def bo_first(stream, version, payloads, **kwargs):
        if not raced:
            raced.append(True)
            service.accept(made.id, bo)  # Bo's acceptance lands between Cy's read and Cy's append
        return append(stream, version, payloads, **kwargs)

    monkeypatch.setattr(service.streams, "append", bo_first)
    started = service.accept(made.id, cy).challenge
    assert started.accepted == (bo.id, cy.id) and started.game_id is not None and started.version == 4
    assert world.games.load(started.game_id).status == "active"


def test_players_are_named_by_handle_case_insensitively_or_by_id(world):
    service, ana, bo = world.service, world.Ana, world.Bo
    world.players.set_handle(bo.id, "Bo_7")
    made = service.create(ana, ask("bo_7")).challenge
    assert [i.player_id for i in made.challenged] == [bo.id]
    unknown = refusal(service.create, ana, ask("nobody", "p_0000000000000000"))
    assert (unknown.code, unknown.facts) == ("unknown_players", {"players": ["nobody", "p_0000000000000000"]})


@pytest.mark.on_cluster
def test_open_challenges_sent_are_capped_and_a_closed_or_expired_one_frees_its_place(world):
    service, ana = world.service, world.Ana
    first = service.create(ana, ask(world.Bo)).challenge
    service.create(ana, ask(world.Cy, expires_in=3600))
    service.create(ana, ask(world.Di))
    capped = refusal(service.create, ana, ask(world.Ed))
    assert (capped.code, capped.facts) == ("challenge_limit_reached", {"limit": 3})
    service.cancel(first.id, ana)
    service.create(ana, ask(world.Ed))  # the cancelled one's place
    assert refusal(service.create, ana, ask(world.Bo)).code == "challenge_limit_reached"
    world.clock.advance(hours=1)  # the challenge to Cy expires: nothing is written, the cap counts it no more
    service.create(ana, ask(world.Bo))
    assert len(world.redis.zrange(sent_key(world.prefix, ana.id), 0, -1)) == 3
    assert service.create(world.Bo, ask(ana)).challenge  # another challenger's cap is theirs


def test_a_player_an_open_challenge_names_is_not_challenged_again_until_it_is_answered(world):
    service, ana, bo = world.service, world.Ana, world.Bo
    made = service.create(ana, ask(bo)).challenge
    again = refusal(service.create, ana, ask(world.Cy, bo))
    assert (again.code, again.facts) == ("already_challenged", {"players": ["Bo"]})
    service.decline(made.id, bo, "later")
    assert service.create(ana, ask(world.Cy, bo)).challenge.status(service.now()) == "open"


def test_making_and_accepting_respect_the_games_in_play_of_whoever_would_play(world, monkeypatch):
    service, ana, bo, cy = world.service, world.Ana, world.Bo, world.Cy
    monkeypatch.setattr(world.games, "quotas", dataclasses.replace(world.games.quotas, max_games=1, max_ai_seats=1))
    assert refusal(service.create, ana, ask(bo, seats=[HUMAN, HUMAN, GREEDY, GREEDY])).code == "ai_seat_limit_reached"
    made = service.create(ana, ask(bo, cy)).challenge
    world.games.create(bo, NewGame(seats=[HUMAN, HUMAN]))  # Bo's one game in play
    mine = refusal(service.accept, made.id, bo)
    assert (mine.code, mine.facts) == ("game_limit_reached", {"limit": 1})
    service.accept(made.id, cy)
    world.games.create(ana, NewGame(seats=[HUMAN, HUMAN]))  # the challenger's room is gone since she challenged
    world.games.cancel(world.games.games_of(bo).games[0].id, bo)  # Bo has room again
    theirs = refusal(service.accept, made.id, bo)
    assert (theirs.code, theirs.facts) == (
        "challenge_cannot_start",
        {"player_id": ana.id, "reason": "game_limit_reached", "limit": 1},
    )
    assert service.load(made.id).status(service.now()) == "open"  # refused: nothing was appended
    ana_games = world.games.games_of(ana).games
    assert refusal(service.create, ana, ask(world.Di)).code == "game_limit_reached" and len(ana_games) == 1


def test_expiry_is_read_at_the_applications_time_and_refuses_an_acceptance(world):
    service, ana, bo = world.service, world.Ana, world.Bo
    made = service.create(ana, ask(bo)).challenge
    assert parse_time(made.expires_at) - parse_time(made.created_at) == timedelta(seconds=service.expiry)
    world.clock.advance(hours=23, minutes=59)
    assert service.get(made.id, bo).status(service.now()) == "open"
    world.clock.advance(minutes=1)
    assert service.get(made.id, bo).status(service.now()) == "expired"
    late = refusal(service.accept, made.id, bo)
    assert (late.code, late.facts) == ("challenge_expired", {"expires_at": made.expires_at})
    assert [c.id for c in service.inbox(bo, status="expired").challenges] == [made.id]
    assert service.inbox(bo, status="open").challenges == []
    longest = service.create(ana, ask(bo, expires_in=service.max_expiry)).challenge
    assert parse_time(longest.expires_at) - parse_time(longest.created_at) == timedelta(days=14)
    too_long = refusal(service.create, ana, ask(world.Cy, expires_in=service.max_expiry + 1))
    assert (too_long.code, too_long.facts["limit"]) == ("invalid_request", service.max_expiry)


def key(player: Player, name: str = "k-1", body: str = "a") -> Idempotency:
    return Idempotency(player.id, name, Idempotency.fingerprint_of("POST", "/v1/challenges", {"body": body}))


@pytest.mark.on_cluster
def test_a_create_with_a_key_is_made_once_and_its_retry_after_a_crash_makes_it_under_the_recorded_id(world, monkeypatch):
    service, ana, bo = world.service, world.Ana, world.Bo
    append = service.streams.append

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(service.streams, "append", crash)
    with pytest.raises(Crash):  # claimed and indexed, then stopped before the append
        service.create(ana, ask(bo), key(ana))
    monkeypatch.setattr(service.streams, "append", append)
    retried = service.create(ana, ask(bo), key(ana))
    again = service.create(ana, ask(bo), key(ana))
    assert retried.replayed and again.replayed and again.challenge == retried.challenge
    recorded = world.redis.zrange(sent_key(world.prefix, ana.id), 0, -1)
    assert recorded == [retried.challenge.id]  # the id its first attempt claimed
    assert [i for i in world.redis.zrange(inbox_key(world.prefix, bo.id), 0, -1)] == recorded
    assert refusal(service.create, ana, ask(world.Cy), key(ana, body="b")).code == "idempotency_key_reused"
    assert service.create(ana, ask(world.Cy), key(ana, "k-2")).challenge.id != retried.challenge.id


def test_an_answer_with_a_key_is_answered_again_not_decided_again(world):
    service, ana, bo = world.service, world.Ana, world.Bo
    made = service.create(ana, ask(bo, world.Cy)).challenge
    first = service.accept(made.id, bo, key(bo))
    told = len(world.told.notices)
    again = service.accept(made.id, bo, key(bo))
    assert again.replayed and again.challenge == first.challenge and len(world.told.notices) == told
    declined = service.decline(made.id, world.Cy, "variant", key(world.Cy, "k-2", "d"))
    assert service.decline(made.id, world.Cy, "variant", key(world.Cy, "k-2", "d")).challenge == declined.challenge
    reused = refusal(service.accept, made.id, world.Cy, key(world.Cy, "k-2", "other"))
    assert reused.code == "idempotency_key_reused"


def test_the_inbox_lists_sent_and_received_newest_first_a_page_at_a_time(world):
    service, ana = world.service, world.Ana
    made = [service.create(p, ask(ana)).challenge for p in (world.Bo, world.Cy, world.Di)]
    sent = service.create(ana, ask(world.Ed)).challenge
    service.decline(made[1].id, ana, "later")
    pages, cursor = [], None
    while True:
        page = service.inbox(ana, limit=2, cursor=cursor)
        pages.append([c.id for c in page.challenges])
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert pages == [[sent.id, made[2].id], [made[1].id, made[0].id]]
    assert [c.id for c in service.inbox(ana, status="open").challenges] == [sent.id, made[2].id, made[0].id]
    assert [c.id for c in service.inbox(ana, status="declined").challenges] == [made[1].id]
    assert [c.id for c in service.inbox(world.Ed).challenges] == [sent.id]
    assert refusal(service.inbox, ana, cursor="nonsense").code == "invalid_request"


def test_a_challenge_is_nobody_elses_business(world):
    service, ana, bo, cy = world.service, world.Ana, world.Bo, world.Cy
    made = service.create(ana, ask(bo)).challenge
    for call in (service.get, service.accept, service.decline, service.cancel):
        with pytest.raises(NotFound) as caught:
            call(made.id, cy)
        assert caught.value.code == "challenge_not_found"
    with pytest.raises(NotFound):
        service.get("c_0000000000000000", ana)
    assert refusal(service.accept, made.id, ana).code == "not_challenged"
    assert refusal(service.cancel, made.id, bo).code == "not_the_challenger"
    assert service.cancel(made.id, ana).cancelled and service.cancel(made.id, ana).version == 2  # again: nothing more
    assert [k for k, *_ in world.told.notices] == ["challenge_received", "challenge_cancelled"]


# --- caps and races (issue 34, item 4) -------------------------------------------------------------------------


def _at_once(count: int, call) -> list:
    """``call()`` from ``count`` threads released together: each answer, or the refusal it raised."""
    start = threading.Barrier(count)
    answers: list = [None] * count

    def run(n: int) -> None:
        start.wait()
        try:
            answers[n] = call()
        except Refused as refused:
            answers[n] = refused

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers


@pytest.mark.on_cluster
def test_twelve_identical_challenges_at_once_make_one(world):
    """12 simultaneous identical challenges from one sender gave 12 (the check read the open ones, then another claim
    came before this one's): the pair is now claimed in the same transaction as the cap, on the challenger's slot."""
    service, ana, bo = world.service, world.Ana, world.Bo
    service.max_open = 20
    answers = _at_once(12, lambda: service.create(ana, ask(bo)))
    made = [a for a in answers if not isinstance(a, Refused)]
    refused = [a for a in answers if isinstance(a, Refused)]
    assert len(made) == 1, answers
    assert {r.code for r in refused} == {"already_challenged"} and all(r.facts["players"] == ["Bo"] for r in refused)
    assert [c.id for c in service.inbox(bo, status="open").challenges] == [made[0].challenge.id]
    assert world.redis.zrange(sent_key(world.prefix, ana.id), 0, -1) == [made[0].challenge.id]
    service.cancel(made[0].challenge.id, ana)  # answered: the pair is free again
    assert service.create(ana, ask(bo)).challenge.status(service.now()) == "open"


def test_a_challenge_naming_a_player_a_pending_create_names_is_refused(world, monkeypatch):
    """A create that claimed its place but has not appended yet (or stopped) holds the pair: a second one to the same
    player is refused, and once the first is old and never made, the pair is free again."""
    service, ana, bo = world.service, world.Ana, world.Bo
    append = service.streams.append

    def crash(*args, **kwargs):
        raise Crash

    monkeypatch.setattr(service.streams, "append", crash)
    with pytest.raises(Crash):
        service.create(ana, ask(bo))
    monkeypatch.setattr(service.streams, "append", append)
    again = refusal(service.create, ana, ask(bo))
    assert (again.code, again.facts) == ("already_challenged", {"players": ["Bo"]})
    world.clock.advance(minutes=2)  # the create that stopped is old: it will never be made
    assert service.create(ana, ask(bo)).challenge.status(service.now()) == "open"


@pytest.mark.on_cluster
def test_fifty_challengers_cannot_put_more_than_the_cap_in_one_inbox(world):
    """50 accounts put 77 open challenges in one inbox: what a player has received and not answered is capped
    (``max_received``), counted atomically on the player's slot; an answer, a cancel or an expiry frees a place."""
    service, bo = world.service, world.Bo
    service.max_received = 20
    senders = [world.accounts.sign_up(f"S{n}").player for n in range(50)]
    answers = [_try(lambda s=s: service.create(s, ask(bo, expires_in=3600))) for s in senders[:30]]
    rest = iter(senders[30:])  # the last twenty at once, each its own challenger
    answers += _at_once(20, lambda: service.create(next(rest), ask(bo, expires_in=3600)))
    made = [a.challenge for a in answers if not isinstance(a, Refused)]
    refused = [a for a in answers if isinstance(a, Refused)]
    assert len(made) == 20 and len(refused) == 30, [getattr(r, "code", r) for r in refused]
    assert {(r.code, r.facts["limit"], tuple(r.facts["players"])) for r in refused} == {("challenge_inbox_full", 20, ("Bo",))}
    assert len(service.inbox(bo, status="open", limit=200).challenges) == 20
    for sender in senders:  # a refused challenge left nothing behind: not in the sender's inbox, nor counted as sent
        sent = service.inbox(sender).challenges
        assert len(sent) == (1 if any(c.challenger == sender.id for c in made) else 0)
    service.decline(made[0].id, bo, "later")
    service.cancel(made[1].id, world.players.get(made[1].challenger))
    late = [s for s in senders if not any(c.challenger == s.id for c in made)]
    assert service.create(late[0], ask(bo)).challenge and service.create(late[1], ask(bo)).challenge
    assert refusal(service.create, late[2], ask(bo)).code == "challenge_inbox_full"
    world.clock.advance(hours=1)  # every one made with an hour's expiry expires: their places are free
    assert service.create(late[3], ask(bo)).challenge.status(service.now()) == "open"


def _try(call):
    try:
        return call()
    except Refused as refused:
        return refused
