"""The application layer: what a request or a job may do to a game, and nothing else.

Every write follows one path: load the game (snapshot + tail), check who may
act, let the engine decide, append the events with the version that was
read, then tell ``on_append`` what the game looks like now (the workers'
dispatcher enqueues whatever is due next).  Nothing here speaks HTTP; errors
are :class:`~service.errors.ApiError` with stable codes.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine import (
    Card,
    Event,
    RuleViolation,
    Start,
    Step,
    Variant,
    decide_and_fold,
    decide_steps,
)
from replays.build import FULL, Perspective, build_replay
from service.errors import ApiError
from service.game import Game, apply, apply_engine, engine_envelope, envelope, load, redact_envelope
from service.players import Player, PlayerStore, new_id
from service.store import EventStore, Idempotency, IdempotencyMismatch, NotReplicated, Replayed, VersionConflict

log = logging.getLogger("red7.games")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class SeatRequest:
    kind: str
    level: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame:
    seats: Sequence[SeatRequest]
    variant: Variant = Variant.ADVANCED
    action_rules: bool = False
    seed: int | None = None
    deck: Sequence[Card] | None = None
    turn_timeout: int | None = None
    timeout_action: str = "fold"


@dataclass(frozen=True, slots=True)
class Outcome:
    """A write's result: the game after it, or the stored first response of a retried request."""

    game: Game | None = None
    replayed: str | None = None


@dataclass(frozen=True, slots=True)
class GamePage:
    games: list[Game]
    next_cursor: str | None


#: Where a page of a player's games starts: among the games in play after the sort key
#: ``(rank, -updated ms, id)`` given, or among the finished ones after ``(finished ms, id)``.
OpenAfter = tuple[int, int, str]
FinishedAfter = tuple[int, str]


def _parse_cursor(cursor: str | None) -> tuple[str, OpenAfter | FinishedAfter | None]:
    """``o.<rank>.<ms>.<id>`` (after that game in play), ``f`` (the first finished game) or ``f.<ms>.<id>`` (after that one)."""
    if cursor is None:
        return "open", None
    if cursor == "f":
        return "finished", None
    if match := re.fullmatch(r"o\.([0-2])\.([0-9]{1,15})\.([A-Za-z0-9_]{1,40})", cursor):
        return "open", (int(match[1]), -int(match[2]), match[3])
    if match := re.fullmatch(r"f\.([0-9]{1,15})\.([A-Za-z0-9_]{1,40})", cursor):
        return "finished", (int(match[1]), match[2])
    raise ApiError(
        "invalid_request",
        "The cursor is not one this server gave out; pass next_cursor as it came.",
        errors=[{"field": "cursor", "message": "not a cursor from next_cursor", "location": "query"}],
    )


def _listed_by(game: Game) -> set[str]:
    """The players whose lists hold the game: its seated players and its creator."""
    return {seat.player_id for seat in game.seats if seat.player_id} | {game.created_by}


def _epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


OnAppend = Callable[[Game, Sequence[Event]], None]


class GameService:
    def __init__(
        self,
        store: EventStore,
        players: PlayerStore,
        *,
        allow_custom_decks: bool = False,
        snapshot_every: int = 64,
        idempotency_ttl: int = 24 * 3600,
        recover_after: float = 5.0,
        clock: Callable[[], str] = utc_now,
        on_append: OnAppend | None = None,
        on_quiet_read: Callable[[Game], None] | None = None,
    ) -> None:
        self.store = store
        self.players = players
        self.allow_custom_decks = allow_custom_decks
        self.snapshot_every = snapshot_every
        self.idempotency_ttl = idempotency_ttl
        self.recover_after = recover_after
        self.clock = clock
        self.on_append = on_append
        self.on_quiet_read = on_quiet_read
        self._cache = GameCache()
        self._snapshot_at: dict[str, int] = {}  # the version of the newest snapshot this process knows of
        self._replays: OrderedDict[tuple[str, int, str, str], dict[str, Any]] = OrderedDict()  # finished games' replays
        self._replays_lock = threading.Lock()

    # --- reading ----------------------------------------------------------------------

    def load(self, game_id: str) -> Game:
        """The game now: this process's newest fold of it (or the stored snapshot) plus the events after it.

        Events are never changed once appended, so a fold at version v plus
        the events after v is the game — as long as Redis still holds the
        history the fold came from.  It may not: a crash between fsyncs or a
        failover to a lagging replica loses the last writes, and the numbers
        are then given to other events.  So the read starts *at* v, and a fold
        whose last event is not what the stream holds there is dropped and the
        game folded again from what Redis has (:meth:`_rebase`).
        The game returned may be shared with the cache: never change it in place
        (writers fold into ``game.copy()``).
        """
        start = cached = self._cache.get(game_id)
        if start is None:
            snapshot = self.store.snapshot(game_id)
            if snapshot is not None:
                start = Game.from_dict(json.loads(snapshot[1]))
                self._snapshot_at[game_id] = start.version
        if start is None:
            tail = [(e.number, e.payload) for e in self.store.read_all(game_id)]
        else:
            stored = [(e.number, e.payload) for e in self.store.read_all(game_id, after=start.version - 1)]
            if not stored or stored[0][0] != start.version or (start.head and stored[0][1] != start.head):
                return self._rebase(game_id, start, cached is not None)
            base, tail = stored[0], stored[1:]
            if not start.head:  # a snapshot written before games kept their head
                start = start.copy() if cached is not None else start
                start.head = base[1]
        if start is None and not tail:
            raise ApiError("game_not_found", f"There is no game {game_id!r}.")
        if cached is not None and not tail:
            return cached  # shared with the cache: callers that change a game work on a copy
        game = load(game_id, tail, start.copy() if cached is not None else start)
        self._remember(game)
        return game

    def _rebase(self, game_id: str, stale: Game, from_cache: bool) -> Game:
        """Fold the game again from the stream alone: ``stale`` came from a history that Redis no longer holds."""
        version = self.store.version(game_id)
        log.warning(
            "game %s: Redis no longer holds the history of this process's %s at version %s (the stream is at %s): "
            "folding it again from the stream",
            game_id, "cached game" if from_cache else "snapshot", stale.version, version,
        )
        self._cache.drop(game_id)
        self._snapshot_at.pop(game_id, None)
        if not from_cache:
            self.store.drop_snapshot(game_id)  # written from a history that was lost: it would only mislead
        tail = [(e.number, e.payload) for e in self.store.read_all(game_id)]
        if not tail:
            raise ApiError("game_not_found", f"There is no game {game_id!r}.")
        game = load(game_id, tail)
        self._remember(game)
        return game

    def _remember(self, game: Game) -> None:
        """Cache the game, and store a snapshot every ``snapshot_every`` events (for cold readers)."""
        self._cache.put(game)
        if game.version - self._snapshot_at.get(game.id, 0) >= self.snapshot_every:
            self.store.save_snapshot(game.id, game.version, json.dumps(game.to_dict(), separators=(",", ":")))
            if len(self._snapshot_at) > 100_000:
                self._snapshot_at.clear()  # only a hint: forgetting costs one early snapshot per game
            self._snapshot_at[game.id] = game.version

    def games_of(self, player: Player, *, status: str | None = None, limit: int = 50, cursor: str | None = None) -> GamePage:
        """A page of the player's games: their turn first, then active, waiting and finished ones.

        Games not yet finished (few, and in play) are loaded and ordered
        whole, newest move first within each kind; finished ones (the whole
        history) come from their own index, newest first, a page at a time.
        ``cursor`` is the ``next_cursor`` of the page before: the sort key of
        the last game shown, so a game that leaves the list between pages
        shifts nothing.  (A game in play moves in the order as it is played;
        one that finishes while a client pages shows up again among the
        finished ones.)
        """
        section, after = _parse_cursor(cursor)
        page: list[Game] = []
        if section == "open":
            if status in (None, "active", "waiting"):
                keyed = [(key, g) for key, g in self._open_games(player) if status in (None, g.status)]
                if after is not None:
                    keyed = [(key, g) for key, g in keyed if key > after]
                page = [g for _, g in keyed[:limit]]
                if len(keyed) > limit:
                    rank, negated_ms, game_id = keyed[limit - 1][0]
                    return GamePage(page, f"o.{rank}.{-negated_ms}.{game_id}")
            if status not in (None, "finished"):
                return GamePage(page, None)
            before = None
        elif status not in (None, "finished"):
            return GamePage([], None)
        else:
            before = after
        wanted = limit - len(page)
        found = self.players.finished_ids(player.id, before, wanted + 1)  # type: ignore[arg-type]
        for game_id, _ in found[:wanted]:
            try:
                page.append(self.load(game_id))
            except ApiError:
                continue  # not there (a store emptied under the index): nothing to show
        if len(found) <= wanted:
            return GamePage(page, None)
        if wanted == 0:
            return GamePage(page, "f")
        last, score = found[wanted - 1]
        return GamePage(page, f"f.{score}.{last}")

    def _open_games(self, player: Player) -> list[tuple[OpenAfter, Game]]:
        """The player's games not finished, with their sort keys, in list order.

        A finished one found here is moved to the finished index (its writer
        stopped before indexing it).
        """
        keyed = []
        for game_id in self.players.game_ids(player.id):
            try:
                game = self.load(game_id)
            except ApiError:
                continue  # indexed before an append that never happened
            mine = game.seat_of(player.id)
            if mine is None and game.created_by != player.id:
                continue
            if game.status == "finished":
                self._archive(game)
                continue
            if game.status == "cancelled":
                self._forget(game)  # its canceller stopped before unlisting it
                continue
            rank = 0 if game.is_turn_of(player.id) else {"active": 1, "waiting": 2}[game.status]
            keyed.append(((rank, -_epoch_ms(game.updated_at), game.id), game))
        return sorted(keyed, key=lambda item: item[0])

    def _forget(self, game: Game) -> None:
        """Unlist a cancelled game for everyone who listed it."""
        self.players.forget_game(_listed_by(game), game.id)

    def _archive(self, game: Game) -> None:
        """Index a finished game as finished for everyone who lists it."""
        self.players.archive_game(_listed_by(game), game.id, _epoch_ms(game.updated_at))

    def feed(self, game: Game, viewer: str | None, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """Stored events above ``after`` as the viewer may see them, up to ``game``'s version.

        What the viewer may see is decided on ``game``; events appended since
        it was loaded (a resignation among them) wait for the next read.
        """
        seat = game.sight_of(viewer)
        finished = game.status == "finished"
        out = []
        for stored in self.store.read(game.id, after, limit):
            if stored.number > game.version:
                break
            data = json.loads(stored.payload)
            shown = redact_envelope(data, seat, is_creator=viewer == game.created_by, finished=finished)
            out.append({"n": stored.number, **shown})
        return out

    def replay(self, game: Game, viewer: str | None) -> dict[str, Any]:
        """The replay of ``game`` for ``viewer``: all of it once the game is finished, else what the viewer has seen."""
        perspective: Perspective = FULL if game.status == "finished" else game.sight_of(viewer)
        key = (game.id, game.version, game.head, str(perspective))
        with self._replays_lock:
            cached = self._replays.get(key)
        if cached is not None:
            return cached
        # Up to the version the perspective was decided on (a resignation may have been appended since).
        stored = [(e.number, json.loads(e.payload)) for e in self.store.read_all(game.id) if e.number <= game.version]
        document = build_replay(game.id, stored, perspective)
        if perspective == FULL:  # a finished game's replay never changes
            with self._replays_lock:  # request threads share it
                self._replays[key] = document
                while len(self._replays) > 64:
                    self._replays.popitem(last=False)
        return document

    # --- writing ----------------------------------------------------------------------

    def create(self, creator: Player, request: NewGame) -> Game:
        if request.deck is not None and not self.allow_custom_decks:
            raise ApiError("custom_decks_disabled", "This server does not accept explicit decks (RED7_ALLOW_CUSTOM_DECKS).")
        if request.deck is not None and sorted(request.deck) != list(range(49)):
            raise ApiError("invalid_request", "A deck must list each of the 49 cards exactly once.", errors=[
                {"field": "deck", "message": "must list each of the 49 cards exactly once", "location": "json"}])
        game_id = new_id("g")
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
        self.players.add_game(creator.id, game_id)
        self._append(game, 0, "", payloads + [p for p, _ in started], [e for _, e in started])
        return game

    def join(self, game_id: str, player: Player, code: str, seat: int | None = None, attempts: int = 5) -> Game:
        """Take an open human seat; the game starts when the last seat is taken."""
        for _ in range(attempts):
            game = self.load(game_id).copy()  # seats are taken on it below
            if game.seat_of(player.id) is not None:
                raise ApiError("already_seated", f"You already hold seat {game.seat_of(player.id)} of this game.")
            if game.status != "waiting":
                raise ApiError("game_not_waiting", f"The game is {game.status}: seats are taken only before it starts.")
            if not hmac.compare_digest(code.encode(), game.join_code.encode()):
                raise ApiError("bad_join_code")
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
                self._append(game, expected, head, payloads + [p for p, _ in started], [e for _, e in started])
            except ApiError as error:
                if error.code == "version_conflict":
                    continue  # someone else joined or acted first: look again
                raise
            return game
        raise ApiError("version_conflict", "The game kept changing; try again.")

    def leave(self, game_id: str, player: Player, level: str = "greedy") -> Game:
        """Give up a seat: before the start it opens again; in play an AI of ``level`` takes it, so the others play on."""

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

        game = self._lobby_change(game_id, player, change)
        if game.seat_of(player.id) is None and self.load(game_id).seat_of(player.id) is None:
            self.players.forget_game({player.id}, game.id)  # left before the start (and not back already)
        return game

    def cancel(self, game_id: str, player: Player) -> Game:
        """Call off a game that has not started; it leaves everyone's list of games."""

        def change(game: Game) -> dict[str, Any]:
            if game.created_by != player.id:
                raise ApiError("not_the_creator", "Only the player who created the game may call it off.")
            if game.status != "waiting":
                raise ApiError("game_not_waiting", f"The game is {game.status}: only a game still waiting can be called off.")
            return {"type": "game_cancelled"}

        game = self._lobby_change(game_id, player, change)
        self._forget(game)
        return game

    def _lobby_change(self, game_id: str, player: Player, change: Callable[[Game], dict[str, Any]], attempts: int = 5) -> Game:
        """Append the lobby event ``change`` decides on the game now (again if the game moved on meanwhile)."""
        for _ in range(attempts):
            game = self.load(game_id).copy()  # the change is folded into it below
            fields = change(game)
            expected, head, at = game.version, game.head, self.clock()
            apply(game, expected + 1, {**fields, "at": at})
            try:
                self._append(game, expected, head, [envelope(fields, at=at, by=f"player:{player.id}")], [])
            except ApiError as error:
                if error.code == "version_conflict":
                    continue
                raise
            return game
        raise ApiError("version_conflict", "The game kept changing; try again.")

    def act(
        self,
        game_id: str,
        player: Player,
        steps: Sequence[Step],
        *,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
        respond: Callable[[Game], str] | None = None,
    ) -> Outcome:
        """A player's steps, all or nothing, as one atomic append.

        ``respond`` renders the response for the game after the steps; with
        ``idempotency`` that rendering is stored with the append, and a retry
        gets it back instead of acting twice.

        The first attempt decides on this process's cached fold of the game,
        which saves reading the stream; the append's version check catches a
        cache that was behind, and any refusal on a cached fold is decided
        again on the game read afresh.
        """
        cached = self._cache.get(game_id)
        if cached is not None and (expected_version is None or expected_version <= cached.version):
            try:
                return self._act_on(cached, player, steps, expected_version, idempotency, respond)
            except ApiError:
                pass  # perhaps only the cache was behind: decide again on the stream itself
        return self._act_on(self.load(game_id), player, steps, expected_version, idempotency, respond)

    def _act_on(
        self,
        game: Game,
        player: Player,
        steps: Sequence[Step],
        expected_version: int | None,
        idempotency: Idempotency | None,
        respond: Callable[[Game], str] | None,
    ) -> Outcome:
        game_id = game.id
        if idempotency is not None:
            # Checked after loading: a first attempt whose events this load sees has stored its
            # response in the same atomic append, so a retry can never decide on the new state.
            # (A fold older than the first attempt decides as the first attempt did, and the
            # append then finds the stored response first.)
            try:
                replay = self.store.idempotent_response(game_id, idempotency)
            except IdempotencyMismatch as exc:
                raise ApiError("idempotency_key_reused", str(exc)) from None
            except NotReplicated as short:
                raise _not_replicated(short) from None
            if replay is not None:
                return Outcome(replayed=replay.response)
        seat = game.seat_of(player.id)
        if seat is None:
            raise ApiError("not_a_player", "Only seated players act in a game; you can watch it.")
        if game.seats[seat].resigned:
            raise ApiError("seat_resigned", "You resigned from this game; an AI plays your seat.")
        if expected_version is not None and expected_version != game.version:
            raise _conflict(expected_version, game.version)
        try:
            events, _ = decide_steps(game.state, steps, seat)
        except RuleViolation as refusal:
            raise rule_error(refusal) from None
        return self._commit(game, events, f"player:{player.id}", idempotency=idempotency, respond=respond)

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

    # --- internals --------------------------------------------------------------------

    def _commit(
        self,
        game: Game,
        events: Sequence[Event],
        by: str,
        *,
        lobby: Sequence[dict[str, Any]] = (),
        idempotency: Idempotency | None = None,
        respond: Callable[[Game], str] | None = None,
    ) -> Outcome:
        expected = game.version
        at = self.clock()
        payloads = [envelope(fields, at=at, by=by) for fields in lobby]
        payloads += [engine_envelope(e, at=at, by=by) for e in events]
        after = game.copy()
        for fields in lobby:
            apply(after, after.version + 1, {**fields, "at": at})
        for event in events:
            apply_engine(after, after.version + 1, event, at)
        after.head = payloads[-1]
        response = respond(after) if respond else ""
        try:
            result = self.store.append(
                game.id, expected, payloads, expected_head=game.head, idempotency=idempotency, response=response
            )
        except VersionConflict as conflict:
            raise self._conflict(game.id, conflict) from None
        except IdempotencyMismatch as exc:
            raise ApiError("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            if short.version is not None:  # appended now (not a retry answered from its record)
                self._stored(after, events)
            raise _not_replicated(short) from None
        if isinstance(result, Replayed):
            return Outcome(replayed=result.response)
        self._stored(after, events)
        return Outcome(game=after)

    def _append(self, game: Game, expected: int, head: str, payloads: list[str], events: Sequence[Event]) -> None:
        """Append payloads already folded into ``game`` (``events``: the engine events among them).

        ``expected`` and ``head`` name the game the payloads were decided on.
        """
        game.head = payloads[-1]
        try:
            self.store.append(game.id, expected, payloads, expected_head=head)
        except VersionConflict as conflict:
            raise self._conflict(game.id, conflict) from None
        except NotReplicated as short:
            self._stored(game, events)
            raise _not_replicated(short) from None
        self._stored(game, events)

    def _stored(self, game: Game, events: Sequence[Event]) -> None:
        self._remember(game)
        self._appended(game, events)

    def _conflict(self, game_id: str, conflict: VersionConflict) -> ApiError:
        """A refused append: this process's fold was behind, or (diverged) of a history Redis lost — drop it."""
        self._cache.drop(game_id)
        return _conflict(conflict.expected, conflict.current)

    def _appended(self, game: Game, events: Sequence[Event]) -> None:
        """Index a game that has finished and hand the new game to the dispatcher.

        Neither may fail a write that happened: a lost index move is made by
        the next listing of the game, a lost enqueue by the next read.
        """
        if game.status == "finished":
            try:
                self._archive(game)
            except Exception:
                log.exception("could not index game %s as finished; the next listing will", game.id)
        if self.on_append is None:
            return
        try:
            self.on_append(game, events)
        except Exception:
            log.exception("could not enqueue what game %s needs at version %s; the next read will retry", game.id, game.version)

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
            apply(game, game.version + 1, json.loads(payload))
            out.append((payload, event))
        return out


class GameCache:
    """This process's newest fold of the games it served, least recently used first out.

    It keeps private copies and hands out the shared object: a reader renders
    it, a writer folds into a copy (``Game.copy``).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Game | None:
        """The cached game itself, shared: fold into a copy of it, never into it."""
        with self._lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games.move_to_end(game_id)
            return game

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def put(self, game: Game) -> None:
        with self._lock:
            known = self._games.get(game.id)
            if known is None or known.version < game.version:
                self._games[game.id] = game.copy()
            self._games.move_to_end(game.id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


def _not_replicated(short: NotReplicated) -> ApiError:
    stored = f"stored as version {short.version}" if short.version else "stored"
    error = ApiError(
        "store_unavailable",
        f"Your action was {stored}, but only {short.replicas} of {short.wanted} Redis replicas confirmed it in time, "
        "so it could still be lost; reload the game, or retry with the same Idempotency-Key.",
    )
    error.headers["Retry-After"] = "1"
    return error


def rule_error(refusal: RuleViolation) -> ApiError:
    return ApiError(refusal.code, refusal.message, status=422, **refusal.details)


def _conflict(expected: int, current: int) -> ApiError:
    error = ApiError(
        "version_conflict",
        f"You sent version {expected} but the game is at version {current}; reload it and try again.",
        current_version=current,
    )
    error.headers["ETag"] = f'"{current}"'
    return error
