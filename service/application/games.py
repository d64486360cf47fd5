"""The application layer: what a request or a job may do to a game, and nothing else.

Every write follows one path (:mod:`service.application.appending`): load
the game, check who may act, let the engine or the lobby's rules
(:mod:`service.lobby`) decide, append the events with the version that was
read, then hand the game to the job system with what it needs next
(:class:`~service.application.followups.FollowUps`).  Nothing here speaks
HTTP: a refusal is a :class:`~service.errors.Refused` with a stable code, or
the engine's :class:`~engine.RuleViolation`.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from engine import Event, RuleViolation, Step, decide_steps
from service.application.appending import GameWrites, OnConflict
from service.application.commands import GamePage, NewGame, Outcome, utc_now
from service.application.followups import FollowUps, NoFollowUps, due
from service.application.listing import GameLists
from service.application.loading import GameLoader
from service.application.quotas import Quotas
from service.application.reading import GameFeeds
from service.config import Settings
from service.errors import Conflict, NotConfirmed, NotFound, Refused
from service.game import Game
from service.lobby import Cancel, Join, Leave, LobbyEvent, SeatSpec, SetUp
from service.lobby import decide as lobby_decide
from service.storage.events import EventStore, Idempotency, IdempotencyMismatch, Replayed, Waiter
from service.storage.idempotency import CreateRecords
from service.storage.players import Player, PlayerStore, games_key, new_id, records_key

log = logging.getLogger("red7.games")


class GameService(GameWrites):
    """Every command on a game, and the reads the entry points need, over the loader, the lists and the feeds."""

    def __init__(
        self,
        store: EventStore,
        players: PlayerStore,
        *,
        allow_custom_decks: bool = False,
        snapshot_every: int = Settings.snapshot_every,
        recover_after: float = Settings.recover_after,
        clock: Callable[[], str] = utc_now,
        followups: FollowUps | None = None,
        max_games_in_play: int = 0,
        max_ai_seats_in_play: int = 0,
    ) -> None:
        self.store = store
        self.players = players
        self.allow_custom_decks = allow_custom_decks
        self.recover_after = recover_after
        self.clock = clock
        self.followups: FollowUps = followups if followups is not None else NoFollowUps()
        self.records = CreateRecords(store.redis)  # of games created with an Idempotency-Key
        self.loader = GameLoader(store, snapshot_every=snapshot_every)
        self.lists = GameLists(players, self.loader.load)
        self.feeds = GameFeeds(store, players)  # a deleted player's seat is shown as such
        self.quotas = Quotas(players, self.lists.in_play, max_games_in_play, max_ai_seats_in_play)

    # --- reading ----------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        return self.loader.load(game_id)

    @property
    def snapshot_every(self) -> int:
        return self.loader.snapshot_every

    @snapshot_every.setter
    def snapshot_every(self, every: int) -> None:
        self.loader.snapshot_every = every

    def games_of(self, player: Player, *, status: str | None = None, limit: int = 50, cursor: str | None = None) -> GamePage:
        return self.lists.games_of(player, status=status, limit=limit, cursor=cursor)

    def feed(self, game: Game, viewer: str | None, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        return self.feeds.feed(game, viewer, after, limit)

    def replay(self, game: Game, viewer: str | None) -> dict[str, Any]:
        return self.feeds.replay(game, viewer)

    def wait(self, game_id: str, after: int, timeout: float, waiter: Waiter | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the game to hold an event above ``after`` (``False``: none came in time, or
        ``waiter`` stopped the wait: its client left); a long-poll's and a stream's wait."""
        return self.store.wait(game_id, after, timeout, waiter)

    def check_store(self) -> None:
        """Ask the event store whether it answers (a readiness check): it raises its own error when it does not."""
        self.store.redis.ping()

    # --- writing ----------------------------------------------------------------------

    def create(self, creator: Player, request: NewGame, idempotency: Idempotency | None = None) -> Outcome:
        """A new game (``Outcome.game``); with ``idempotency``, once per key of the creator.

        The key's record (the game's id and the version its creation makes) is claimed on the creator's slot with
        the game's place in their list, before the game is appended: a retry that finds the game answers with it
        as it was made (``replayed``), and one that does not (the first attempt stopped, or Redis refused its
        append) makes it under the recorded id, which only one append can ever do.
        """
        try:
            return self._create(creator, request, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None

    def _create(self, creator: Player, request: NewGame, idempotency: Idempotency | None) -> Outcome:
        records = records_key(self.players.prefix, creator.id)
        if idempotency is not None and (first := self.records.find(records, idempotency)) is not None:
            return self._create_again(creator, request, first)
        self.quotas.check_new_game(creator, sum(1 for seat in request.seats if seat.kind == "ai"))
        if request.deck is not None and not self.allow_custom_decks:
            raise Refused("custom_decks_disabled", "This server does not accept explicit decks (RED7_ALLOW_CUSTOM_DECKS).")
        if request.deck is not None and sorted(request.deck) != list(range(49)):
            raise Refused("invalid_request", "A deck must list each of the 49 cards exactly once.", errors=[
                {"field": "deck", "message": "must list each of the 49 cards exactly once", "location": "json"}])
        new = Game(new_id("g"))
        events = lobby_decide(new, self._set_up(creator, request))
        if idempotency is None:
            self.players.add_game(creator.id, new.id)  # listed first: a crash before the append lists a game not there
        else:
            made = {"id": new.id, "version": len(events)}
            listed = games_key(self.players.prefix, creator.id)
            first = self.records.claim(records, idempotency, made, also=lambda pipe: pipe.sadd(listed, new.id))
            if first is not None:  # an attempt with this key beside this one claimed it first
                return self._create_again(creator, request, first)
        return self.append(new, events, f"player:{creator.id}")

    def _create_again(self, creator: Player, request: NewGame, first: dict[str, Any]) -> Outcome:
        """A retry of a create: the game as its first attempt made it, or made now if that attempt never did."""
        game_id, version = first["id"], first["version"]
        if not self.store.exists(game_id):
            new = Game(game_id)
            try:
                return self.append(new, lobby_decide(new, self._set_up(creator, request)), f"player:{creator.id}")
            except Conflict:
                pass  # the first attempt made it meanwhile: its answer, below
        return Outcome(game=self.as_of(game_id, version), replayed=Replayed(version))

    def set_up(
        self, creator: Player, request: NewGame, seated: Sequence[tuple[int, Player]] = (), *, game_id: str | None = None
    ) -> Game | None:
        """A game with players seated at once (a match, an accepted challenge, a rematch): ``creator`` on the first
        human seat (it owns the AI seats), each of ``seated`` on theirs.  Under ``game_id``, a second set-up of the
        same game makes nothing (``None``): whoever finishes a set-up that stopped half-way may simply do it again.
        """
        new = Game(game_id or new_id("g"))
        events = lobby_decide(new, self._set_up(creator, request, seated))
        for player in (creator, *(player for _, player in seated)):
            self.players.add_game(player.id, new.id)  # listed first: a crash before the append lists a game not there
        try:
            return self.append(new, events, f"player:{creator.id}").game
        except Conflict:
            return None  # made already, by this set-up's first attempt

    @staticmethod
    def _set_up(creator: Player, request: NewGame, seated: Sequence[tuple[int, Player]] = ()) -> SetUp:
        """The lobby's command for ``request``: the creator on the first human seat, ``seated`` on theirs."""
        turn_timeout = request.days_per_turn * 24 * 3600 if request.days_per_turn else request.turn_timeout
        return SetUp(
            creator_id=creator.id,
            creator_name=creator.name,
            seats=tuple(SeatSpec(s.kind, s.level) for s in request.seats),
            variant=request.variant,
            action_rules=request.action_rules,
            turn_timeout=turn_timeout,
            timeout_action=request.timeout_action,
            listed=request.listed,
            rated=request.rated,
            days_per_turn=request.days_per_turn,
            origin=request.origin,
            rematch_of=request.rematch_of,
            seated=tuple((seat, player.id, player.name) for seat, player in seated),
            dealing="custom" if request.deck is not None else "seeded" if request.seed is not None else "random",
            seed=request.seed if request.seed is not None else secrets.randbits(53),  # exact in JavaScript too
            deck=tuple(request.deck) if request.deck is not None else None,
            join_code=secrets.token_urlsafe(6),
        )

    def join(
        self, game_id: str, player: Player, code: str, seat: int | None = None, idempotency: Idempotency | None = None
    ) -> Outcome:
        """Take an open human seat; the game starts when the last seat is taken.

        With ``idempotency``, a retry gets the game as the first attempt left it (its record goes down in the
        same append as the seat), not ``already_seated``.
        """

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, Join(player.id, player.name, code, seat))
            self.quotas.check_join(player)
            self.players.add_game(player.id, game_id)
            return events

        return self._lobby_write(game_id, player, decide, idempotency)

    def leave(
        self, game_id: str, player: Player, level: str = "greedy", idempotency: Idempotency | None = None
    ) -> Outcome:
        """Give up a seat: before the start it opens again; in play an AI of ``level`` takes it, so the others play on.

        With ``idempotency``, a retry gets the game as the first attempt left it, not ``seat_resigned``.
        """
        outcome = self._lobby_write(game_id, player, lambda game: lobby_decide(game, Leave(player.id, level)), idempotency)
        game = outcome.game
        if outcome.replayed is None and game is not None and game.seat_of(player.id) is None \
                and self.load(game_id).seat_of(player.id) is None:
            self.players.forget_game({player.id}, game.id)  # left before the start (and not back already)
        return outcome

    def cancel(self, game_id: str, player: Player) -> Game:
        """Call off a game that has not started; it leaves everyone's list of games."""
        game = self._lobby_write(game_id, player, lambda game: lobby_decide(game, Cancel(player.id))).game
        assert game is not None  # no idempotency: never a replayed answer
        self.lists.forget(game)
        return game

    def _lobby_write(
        self,
        game_id: str,
        player: Player,
        decide: Callable[[Game], Sequence[LobbyEvent | Event]],
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """A lobby command: decided again on the game as it is now if another write came first."""
        outcome = self.write(game_id, decide, f"player:{player.id}", OnConflict.RETRY, idempotency=idempotency)
        assert outcome is not None  # a lobby command either decides events or is refused
        return outcome

    def act(
        self,
        game_id: str,
        player: Player,
        steps: Sequence[Step],
        *,
        expected_version: int | frozenset[int] | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """A player's steps, all or nothing, as one atomic append.

        ``expected_version``: the version the player acted on, or any of several (an If-Match list); ``None``: any.

        With ``idempotency``, a retry gets back what the first attempt made (the
        version it appended: :meth:`as_of` gives that game) instead of acting twice.

        The first attempt decides on this process's cached fold of the game,
        which saves reading the stream; the append's version check catches a
        cache that was behind, and any refusal on a cached fold is decided
        again on the game read afresh.  A conflict on the game read afresh is
        the caller's to resolve (it decided on what it saw).
        """
        expected = frozenset({expected_version}) if isinstance(expected_version, int) else expected_version
        cached = self.loader.cached(game_id)
        if cached is not None and (expected is None or min(expected) <= cached.version):
            try:
                return self._act_on(cached, player, steps, expected, idempotency)
            except NotConfirmed:
                raise  # the append may have happened (unconfirmed by replicas): never decide it a second time
            except (Refused, RuleViolation):
                pass  # perhaps only the cache was behind: decide again on the stream itself
        return self._act_on(self.load(game_id), player, steps, expected, idempotency)

    def _act_on(
        self,
        game: Game,
        player: Player,
        steps: Sequence[Step],
        expected: frozenset[int] | None,
        idempotency: Idempotency | None,
    ) -> Outcome:
        if (replay := self.recorded(game.id, idempotency)) is not None:
            return Outcome(replayed=replay)
        seat = game.seat_of(player.id)
        if seat is None:
            raise Refused("not_a_player", "Only seated players act in a game; you can watch it.")
        if game.seats[seat].resigned:
            raise Refused("seat_resigned", "You resigned from this game; an AI plays your seat.")
        if expected is not None and game.version not in expected:
            raise Conflict(max(expected), game.version)
        events, _ = decide_steps(game.state, steps, seat)
        return self.append(game, events, f"player:{player.id}", idempotency=idempotency)

    def advance(
        self,
        game_id: str,
        expected_version: int,
        decide: Callable[[Game], Sequence[LobbyEvent | Event]],
        *,
        by: str,
        playing_on: bool = False,
    ) -> Game | None:
        """A job's write: only if the game is still at ``expected_version``, else nothing.

        ``decide`` gets the loaded game and returns the events to append
        (empty: nothing to do).  A job that finds the game moved on — a
        duplicate, a retry, a late deadline — returns ``None`` and appends
        nothing, which makes every job safe to run twice.  ``playing_on``: the
        job plays the game's next quick AI turn itself, so it is not queued.
        """

        def still_due(game: Game) -> Sequence[LobbyEvent | Event]:
            return decide(game) if game.version == expected_version else ()

        outcome = self.write(game_id, still_due, by, OnConflict.GIVE_UP, playing_on=playing_on)
        return outcome.game if outcome is not None else None

    def ai_turn_finished(self, game: Game, version: int) -> None:
        """An AI turn of ``game`` queued for ``version`` ran (whatever came of it): the place it held in its owner's
        share of the workers goes to the first of the owner's games waiting for one that still needs it."""
        for game_id in self.followups.turn_finished(game, version):
            try:
                waiting = self.load(game_id)
            except NotFound:
                waiting = Game(game_id)  # gone: nothing is due, so it leaves the line
            if self.followups.offer_place(waiting, due(waiting)):
                return

    def ensure_progress(self, game: Game) -> None:
        """Re-offer what a game quiet for ``recover_after`` seconds needs: a read must never find it stalled.

        A game in play is moved on by its appends themselves; a quiet one may
        be waiting on a job that was lost, killed with its worker or never
        queued (the dispatcher queues again only what is not on its way).
        Never fails the read: the ticker's sweep does the same a moment later.
        """
        if game.status != "active" or not game.updated_at:
            return
        updated = datetime.fromisoformat(game.updated_at.replace("Z", "+00:00"))
        if (datetime.now(UTC) - updated).total_seconds() < self.recover_after:
            return
        try:
            self.followups.reoffer(game, due(game))
        except Exception:
            log.exception("could not re-offer what game %s needs at version %s", game.id, game.version)
