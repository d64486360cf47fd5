"""Making a game: a player's new game (once per Idempotency-Key), and a game set up with its players seated at once.

A new game's places (the creator's list, the open tables, an Idempotency-Key's record) are written before its first
append, so a crash between them leaves an entry for a game that is not there (which its reader drops), never a game
nobody can find; a set-up made under a known id (a match, a challenge, a rematch) may simply be made again.
"""

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from service.application.appending import GameWrites
from service.application.commands import NewGame, Outcome
from service.application.quotas import Quotas
from service.common.errors import Conflict, Refused
from service.domain.game import Game
from service.domain.lobby import (
    SeatSpec,
    SetUp,
)
from service.domain.lobby import decide as lobby_decide
from service.storage.events import Idempotency, IdempotencyMismatch, Replayed
from service.storage.idempotency import CreateRecords
from service.storage.players import Player, PlayerStore, new_id


class GameCreation(GameWrites):
    """Creating games (a part of :class:`~service.application.games.GameService`)."""

    players: PlayerStore
    quotas: Quotas
    records: CreateRecords
    allow_custom_decks: bool
    check_rated: Callable[..., None]
    depart: Callable[..., None]
    load: Callable[[str], Game]

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
        records = self.players.create_records_key(creator.id)
        if idempotency is not None and (first := self.records.find(records, idempotency)) is not None:
            return self._create_again(creator, request, first)
        if request.rated and any(seat.kind == "human" for seat in request.seats):
            self.check_rated(creator)  # they take the first human seat
        self.quotas.check_new_game(creator, sum(1 for seat in request.seats if seat.kind == "ai"))
        if request.listed:
            self.tables.check_cap(creator, self.lists.in_play, self.players.count_games(creator.id))
        if request.deck is not None and not self.allow_custom_decks:
            raise Refused("custom_decks_disabled", "This server does not accept explicit decks (RED7_ALLOW_CUSTOM_DECKS).")
        if request.deck is not None and sorted(request.deck) != list(range(49)):
            raise Refused(
                "invalid_request",
                "A deck must list each of the 49 cards exactly once.",
                errors=[{"field": "deck", "message": "must list each of the 49 cards exactly once", "location": "json"}],
            )
        new = Game(new_id("g"))
        events = lobby_decide(new, self._set_up(creator, request))
        self._list_table(new.id, request)
        if idempotency is None:
            self.players.add_game(creator.id, new.id)  # listed first: a crash before the append lists a game not there
        else:
            made = {"id": new.id, "version": len(events)}
            first = self.records.claim(records, idempotency, made, also=self.players.adding_game(creator.id, new.id))
            if first is not None:  # an attempt with this key beside this one claimed it first
                return self._create_again(creator, request, first)
        return self.append(new, events, f"player:{creator.id}")

    def _create_again(self, creator: Player, request: NewGame, first: dict[str, Any]) -> Outcome:
        """A retry of a create: the game as its first attempt made it, or made now if that attempt never did."""
        game_id, version = first["id"], first["version"]
        if not self.store.exists(game_id):
            new = Game(game_id)
            self._list_table(game_id, request)
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

        Its players may not be the ones who asked for it (a challenge accepted, a match the matchmaker found), and
        one of them may be deleting their account meanwhile: once the game is there, its players' tombstones are
        read, and a deleted player leaves it at once (:meth:`depart`).  The game was listed on each player's slot
        before it was appended, so a deletion whose tombstone came after that read finds it there
        (:class:`~service.application.players.PlayerService`): either way no deleted player keeps a seat in it.
        """
        new = Game(game_id or new_id("g"))
        events = lobby_decide(new, self._set_up(creator, request, seated))
        self._list_table(new.id, request, len(seated))
        players = (creator, *(player for _, player in seated))
        for player in players:
            self.players.add_game(player.id, new.id)  # listed first: a crash before the append lists a game not there
        try:
            made = self.append(new, events, f"player:{creator.id}").game
        except Conflict:
            made = None  # made already, by this set-up's first attempt
        gone = self.players.deleted_among({player.id for player in players})
        for player_id in sorted(gone):
            self.depart(new.id, player_id)
        return self.load(new.id) if gone and made is not None else made

    def _list_table(self, game_id: str, request: NewGame, seated: int = 0) -> None:
        """Enter a listed game that will have a human seat open in the open tables, before its first append (a crash
        between the two leaves an entry for a game that is not there, which a reader drops)."""
        humans = sum(1 for seat in request.seats if seat.kind == "human")
        if request.listed and humans > 1 + seated:
            self.tables.enter(game_id, request, _turn_timeout(request))

    @staticmethod
    def _set_up(creator: Player, request: NewGame, seated: Sequence[tuple[int, Player]] = ()) -> SetUp:
        """The lobby's command for ``request``: the creator on the first human seat, ``seated`` on theirs."""
        turn_timeout = _turn_timeout(request)
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


def _turn_timeout(request: NewGame) -> int | None:
    """Seconds a turn may take: ``days_per_turn`` days, else the request's ``turn_timeout``."""
    return request.days_per_turn * 24 * 3600 if request.days_per_turn else request.turn_timeout
