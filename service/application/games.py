"""The application layer: what a request or a job may do to a game, and nothing else.

Every write follows one path: load the game (snapshot + tail), check who may
act, let the engine decide, append the events with the version that was
read, then tell ``on_append`` what the game looks like now (the workers'
dispatcher enqueues whatever is due next).  Nothing here speaks HTTP; errors
are :class:`~service.errors.ApiError` with stable codes.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from engine import (
    Card,
    Event,
    RuleViolation,
    Start,
    Step,
    decide_and_fold,
    decide_steps,
)
from service.application.appending import BeforeAppend, GameWrites, OnAppend, conflict_error, rule_error
from service.application.commands import GamePage, NewGame, Outcome, utc_now
from service.application.listing import GameLists
from service.application.loading import GameLoader
from service.application.quotas import Quotas
from service.application.reading import GameFeeds
from service.config import Settings
from service.errors import ApiError
from service.game import Game, apply, decode, engine_envelope, envelope
from service.game import load as load_game
from service.storage.events import EventStore, Idempotency, IdempotencyMismatch, Replayed
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
        on_append: OnAppend | None = None,
        before_append: BeforeAppend | None = None,
        on_quiet_read: Callable[[Game], object] | None = None,
        max_games_in_play: int = 0,
        max_ai_seats_in_play: int = 0,
    ) -> None:
        self.store = store
        self.players = players
        self.allow_custom_decks = allow_custom_decks
        self.recover_after = recover_after
        self.clock = clock
        self.on_append = on_append
        self.before_append = before_append
        self.on_quiet_read = on_quiet_read
        self.records = CreateRecords(store.redis)  # of games created with an Idempotency-Key
        self.loader = GameLoader(store, snapshot_every=snapshot_every)
        self.lists = GameLists(players, self.loader.load)
        self.feeds = GameFeeds(store)
        self.quotas = Quotas(players, self.lists.in_play, max_games_in_play, max_ai_seats_in_play)

    # --- reading ----------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        return self.loader.load(game_id)

    def as_of(self, game_id: str, version: int) -> Game:
        """The game as it was at ``version`` (a retried request is answered with the view its first attempt made)."""
        game = self.loader.load(game_id)
        if game.version == version:
            return game  # the usual retry: nothing happened since
        events = self.store.read(game_id, 0, version)
        return load_game(game_id, [(e.number, e.payload) for e in events])

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
            raise ApiError("idempotency_key_reused", str(exc)) from None

    def _create(self, creator: Player, request: NewGame, idempotency: Idempotency | None) -> Outcome:
        records = records_key(self.players.prefix, creator.id)
        if idempotency is not None and (first := self.records.find(records, idempotency)) is not None:
            return self._create_again(creator, request, first)
        self.quotas.check_new_game(creator, sum(1 for seat in request.seats if seat.kind == "ai"))
        if request.deck is not None and not self.allow_custom_decks:
            raise ApiError("custom_decks_disabled", "This server does not accept explicit decks (RED7_ALLOW_CUSTOM_DECKS).")
        if request.deck is not None and sorted(request.deck) != list(range(49)):
            raise ApiError("invalid_request", "A deck must list each of the 49 cards exactly once.", errors=[
                {"field": "deck", "message": "must list each of the 49 cards exactly once", "location": "json"}])
        game, payloads, events = self._new_game(new_id("g"), creator, request)
        if idempotency is None:
            self.players.add_game(creator.id, game.id)
        else:
            made = {"id": game.id, "version": game.version}
            listed = games_key(self.players.prefix, creator.id)
            first = self.records.claim(records, idempotency, made, also=lambda pipe: pipe.sadd(listed, game.id))
            if first is not None:  # an attempt with this key beside this one claimed it first
                return self._create_again(creator, request, first)
        self._append(game, 0, "", payloads, events)
        return Outcome(game=game)

    def _create_again(self, creator: Player, request: NewGame, first: dict[str, Any]) -> Outcome:
        """A retry of a create: the game as its first attempt made it, or made now if that attempt never did."""
        game_id, version = first["id"], first["version"]
        if not self.store.exists(game_id):
            game, payloads, events = self._new_game(game_id, creator, request)
            try:
                self._append(game, 0, "", payloads, events)
                return Outcome(game=game)
            except ApiError as error:
                if error.code != "version_conflict":
                    raise
                # the first attempt made it meanwhile: its answer, below
        return Outcome(game=self.as_of(game_id, version), replayed=Replayed(version))

    def _new_game(self, game_id: str, creator: Player, request: NewGame) -> tuple[Game, list[str], list[Event]]:
        """The game ``request`` creates (its events folded in), its payloads and the engine events among them."""
        at = self.clock()
        dealing = "custom" if request.deck is not None else "seeded" if request.seed is not None else "random"
        seed = request.seed if request.seed is not None else secrets.randbits(53)  # exact in JavaScript too
        created = {
            "type": "game_created",
            "created_by": creator.id,
            "seats": [{"kind": s.kind, "level": s.level} for s in request.seats],
            "variant": request.variant.value,
            "action_rules": request.action_rules,
            "turn_timeout": request.turn_timeout,
            "timeout_action": request.timeout_action,
            "dealing": dealing,
            "seed": seed,
            "deck": [str(c) for c in request.deck] if request.deck is not None else None,
            "join_code": secrets.token_urlsafe(6),
        }
        by = f"player:{creator.id}"
        payloads = [envelope(created, at=at, by=by)]
        game = Game(game_id)
        apply(game, 1, {**created, "at": at})
        first_human = next((i for i, s in enumerate(game.seats) if s.kind == "human"), None)
        if first_human is not None:
            payloads.append(self._take_seat(game, first_human, creator, at, by))
        started = self._start_if_full(game, at, by)
        return game, payloads + [p for p, _ in started], [e for _, e in started]

    def join(
        self,
        game_id: str,
        player: Player,
        code: str,
        seat: int | None = None,
        attempts: int = 5,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Take an open human seat; the game starts when the last seat is taken.

        With ``idempotency``, a retry gets the game as the first attempt left it (its record goes down in the
        same append as the seat), not ``already_seated``.
        """
        for _ in range(attempts):
            game = self.load(game_id).copy()  # seats are taken on it below
            if (replayed := self._recorded(game_id, idempotency)) is not None:
                return self._replayed(game_id, replayed)
            if game.seat_of(player.id) is not None:
                raise ApiError("already_seated", f"You already hold seat {game.seat_of(player.id)} of this game.")
            if game.status != "waiting":
                raise ApiError("game_not_waiting", f"The game is {game.status}: seats are taken only before it starts.")
            if not hmac.compare_digest(code.encode(), game.join_code.encode()):
                raise ApiError("bad_join_code")
            self.quotas.check_join(player)
            open_seats = [i for i, s in enumerate(game.seats) if s.open]
            if not open_seats:
                raise ApiError("game_full")
            if seat is not None and seat not in open_seats:
                raise ApiError("seat_not_open", f"Seat {seat} is not open; open seats: {open_seats}.", open_seats=open_seats)
            chosen = open_seats[0] if seat is None else seat
            expected, head = game.version, game.head
            at, by = self.clock(), f"player:{player.id}"
            payloads = [self._take_seat(game, chosen, player, at, by)]
            started = self._start_if_full(game, at, by)
            self.players.add_game(player.id, game_id)
            try:
                replayed = self._append(
                    game, expected, head, payloads + [p for p, _ in started], [e for _, e in started], idempotency
                )
            except ApiError as error:
                if error.code == "version_conflict":
                    continue  # someone else joined or acted first: look again
                raise
            return Outcome(game=game) if replayed is None else self._replayed(game_id, replayed)
        raise ApiError("version_conflict", "The game kept changing; try again.")

    def leave(
        self, game_id: str, player: Player, level: str = "greedy", idempotency: Idempotency | None = None
    ) -> Outcome:
        """Give up a seat: before the start it opens again; in play an AI of ``level`` takes it, so the others play on.

        With ``idempotency``, a retry gets the game as the first attempt left it, not ``seat_resigned``.
        """

        def change(game: Game) -> dict[str, Any]:
            seat = game.seat_of(player.id)
            if seat is None:
                raise ApiError("not_a_player", "Only seated players leave a game.")
            if game.seats[seat].resigned:
                raise ApiError("seat_resigned", "You have already resigned from this game.")
            if game.status == "waiting":
                if game.created_by == player.id:
                    raise ApiError("creator_cannot_leave")
                return {"type": "seat_left", "seat": seat}
            if game.status != "active":
                raise ApiError("game_not_active", f"The game is {game.status}: there is no seat to leave any more.")
            return {"type": "seat_resigned", "seat": seat, "level": level}

        outcome = self._lobby_change(game_id, player, change, idempotency)
        game = outcome.game
        if outcome.replayed is None and game is not None and game.seat_of(player.id) is None \
                and self.load(game_id).seat_of(player.id) is None:
            self.players.forget_game({player.id}, game.id)  # left before the start (and not back already)
        return outcome

    def cancel(self, game_id: str, player: Player) -> Game:
        """Call off a game that has not started; it leaves everyone's list of games."""

        def change(game: Game) -> dict[str, Any]:
            if game.created_by != player.id:
                raise ApiError("not_the_creator", "Only the player who created the game may call it off.")
            if game.status != "waiting":
                raise ApiError("game_not_waiting", f"The game is {game.status}: only a game still waiting can be called off.")
            return {"type": "game_cancelled"}

        game = self._lobby_change(game_id, player, change).game
        assert game is not None  # no idempotency: never a replayed answer
        self.lists.forget(game)
        return game

    def _lobby_change(
        self,
        game_id: str,
        player: Player,
        change: Callable[[Game], dict[str, Any]],
        idempotency: Idempotency | None = None,
        attempts: int = 5,
    ) -> Outcome:
        """Append the lobby event ``change`` decides on the game now (again if the game moved on meanwhile)."""
        for _ in range(attempts):
            game = self.load(game_id).copy()  # the change is folded into it below
            if (replayed := self._recorded(game_id, idempotency)) is not None:
                return self._replayed(game_id, replayed)
            fields = change(game)
            expected, head, at = game.version, game.head, self.clock()
            apply(game, expected + 1, {**fields, "at": at})
            try:
                payloads = [envelope(fields, at=at, by=f"player:{player.id}")]
                replayed = self._append(game, expected, head, payloads, [], idempotency)
            except ApiError as error:
                if error.code == "version_conflict":
                    continue
                raise
            return Outcome(game=game) if replayed is None else self._replayed(game_id, replayed)
        raise ApiError("version_conflict", "The game kept changing; try again.")

    def _replayed(self, game_id: str, replayed: Replayed) -> Outcome:
        """A retry's answer: the game as the first attempt left it."""
        assert replayed.version is not None  # only the records of actions were ever kept otherwise
        return Outcome(game=self.as_of(game_id, replayed.version), replayed=replayed)

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
        again on the game read afresh.
        """
        expected = frozenset({expected_version}) if isinstance(expected_version, int) else expected_version
        cached = self.loader.cached(game_id)
        if cached is not None and (expected is None or min(expected) <= cached.version):
            try:
                return self._act_on(cached, player, steps, expected, idempotency)
            except ApiError as refused:
                if refused.code == "store_unavailable":
                    raise  # the append may have happened (unconfirmed by replicas): never decide it a second time
                # otherwise perhaps only the cache was behind: decide again on the stream itself
        return self._act_on(self.load(game_id), player, steps, expected, idempotency)

    def _act_on(
        self,
        game: Game,
        player: Player,
        steps: Sequence[Step],
        expected: frozenset[int] | None,
        idempotency: Idempotency | None,
    ) -> Outcome:
        # Checked after loading: a first attempt whose events this load sees has stored its response in the same
        # atomic append, so a retry can never decide on the new state.  (A fold older than the first attempt
        # decides as the first attempt did, and the append then finds the stored response first.)
        replay = self._recorded(game.id, idempotency)
        if replay is not None:
            return Outcome(replayed=replay)
        seat = game.seat_of(player.id)
        if seat is None:
            raise ApiError("not_a_player", "Only seated players act in a game; you can watch it.")
        if game.seats[seat].resigned:
            raise ApiError("seat_resigned", "You resigned from this game; an AI plays your seat.")
        if expected is not None and game.version not in expected:
            raise conflict_error(max(expected), game.version)
        try:
            events, _ = decide_steps(game.state, steps, seat)
        except RuleViolation as refusal:
            raise rule_error(refusal) from None
        return self._commit(game, events, f"player:{player.id}", idempotency=idempotency)

    def advance(
        self,
        game_id: str,
        expected_version: int,
        decide: Callable[[Game], Sequence[Event]],
        *,
        by: str,
        lobby: Sequence[dict[str, Any]] = (),
    ) -> Game | None:
        """A job's write: only if the game is still at ``expected_version``, else nothing.

        ``decide`` gets the loaded game and returns the engine events to
        append (empty: nothing to do).  A job that finds the game moved on —
        a duplicate, a retry, a late deadline — returns ``None`` and appends
        nothing, which makes every job safe to run twice.
        """
        game = self.load(game_id)
        if game.version != expected_version:
            return None
        events = decide(game)
        if not events:
            return None
        try:
            outcome = self._commit(game, events, by, lobby=lobby)
        except ApiError as error:
            if error.code == "version_conflict":
                return None
            raise
        return outcome.game

    def ensure_progress(self, game: Game) -> None:
        """Re-offer what a game quiet for ``recover_after`` seconds needs: a read must never find it stalled.

        A game in play is moved on by its appends themselves; a quiet one may
        be waiting on a job that was lost, killed with its worker or never
        queued (the dispatcher queues again only what is not on its way).
        Never fails the read: the ticker's sweep does the same a moment later.
        """
        if game.status != "active" or not game.updated_at or self.on_quiet_read is None:
            return
        updated = datetime.fromisoformat(game.updated_at.replace("Z", "+00:00"))
        if (datetime.now(UTC) - updated).total_seconds() < self.recover_after:
            return
        try:
            self.on_quiet_read(game)
        except Exception:
            log.exception("could not re-offer what game %s needs at version %s", game.id, game.version)

    def _take_seat(self, game: Game, seat: int, player: Player, at: str, by: str) -> str:
        fields = {"type": "seat_taken", "seat": seat, "player_id": player.id, "name": player.name}
        apply(game, game.version + 1, {**fields, "at": at})
        return envelope(fields, at=at, by=by)

    def _start_if_full(self, game: Game, at: str, by: str) -> list[tuple[str, Event]]:
        """The first deal once no human seat is open: payloads (folded into ``game``) and their events."""
        if any(s.open for s in game.seats):
            return []
        deck = tuple(Card.parse(c) for c in game.deck) if game.deck else None
        start = Start(len(game.seats), game.variant, game.action_rules, game.seed, deck)
        out = []
        for event in decide_and_fold(game.state, start)[0]:
            payload = engine_envelope(event, at=at, by=by)
            apply(game, game.version + 1, decode(payload))
            out.append((payload, event))
        return out


