"""The lobby's commands on a game that is there: join, leave, cancel, abort, give time, a deleted player's departure,
and the rematch offered, declined and made.

Each is decided by the lobby's rules (:mod:`service.domain.lobby`) and written with :attr:`OnConflict.RETRY`: decided
again on the game as it is now if another write came first.
"""

import logging
from collections.abc import Callable, Sequence

from engine import Event
from service.application.appending import GameWrites, OnConflict
from service.application.blocks import kept_apart
from service.application.commands import Outcome
from service.application.erasure import DELETED_NAME
from service.application.quotas import Quotas
from service.application.rated_play import RatedPlay
from service.application.rematches import RematchPlan, plan_rematch
from service.common.errors import NotFound, Refused
from service.domain.game import Game
from service.domain.lobby import (
    Abort,
    Cancel,
    DeclineRematch,
    GiveTime,
    Join,
    Leave,
    LobbyEvent,
    OfferRematch,
    RematchOffered,
    RematchStarted,
)
from service.domain.lobby import decide as lobby_decide
from service.storage.blocks import BlockStore
from service.storage.events import Idempotency
from service.storage.players import Player, PlayerStore, new_id

log = logging.getLogger("red7.games")

#: The AI that takes the seat of a player whose account was deleted while the game is in play.
DEPARTED_LEVEL = "greedy"
#: How often a deleted player's departure from one game is decided again when the game moved on between its read and
#: its write.
DEPARTURE_ATTEMPTS = 3


class LobbyCommands(GameWrites):
    """The lobby's commands (a part of :class:`~service.application.games.GameService`)."""

    players: PlayerStore
    block_store: BlockStore
    quotas: Quotas
    rated_play: RatedPlay | None
    check_rated: Callable[..., None]
    load: Callable[[str], Game]
    set_up: Callable[..., Game | None]

    def depart(self, game_id: str, player_id: str, level: str = DEPARTED_LEVEL) -> None:
        """A deleted player leaves a game: called off if it is waiting and theirs, their seat opened if it is waiting,
        taken by an AI of ``level`` if it is in play; safe to repeat.  Once their part in it is over, the game leaves
        their list; a game still waiting without them stays listed, for a join of theirs that may still be on its way
        seats them (that join ends it, :meth:`PlayerService.still_there`), as does a game not there yet."""
        player = Player(player_id, DELETED_NAME, "")
        for _ in range(DEPARTURE_ATTEMPTS):
            try:
                game = self.load(game_id)
            except NotFound:
                return  # not made yet (a create on its way), or never: its maker looks again once it is
            seat = game.seat_of(player_id)
            try:
                if game.status == "waiting" and game.created_by == player_id:
                    self.cancel(game_id, player)  # and it leaves everyone's list
                    return
                if game.status in ("waiting", "active") and seat is not None and not game.seats[seat].resigned:
                    self.leave(game_id, player, level)
                    continue  # looked at again: over for them once it shows so
            except Refused as refused:  # the game moved on (it started, say): look at it again
                log.info("game %s refused deleted player %s's departure (%s); deciding again", game_id, player_id, refused.code)
                continue
            if game.status != "waiting" or seat is not None:
                self.players.forget_game({player_id}, game_id)  # over, left, or an AI plays the seat: their part is over
            return
        log.warning("deleted player %s could not leave game %s in %d attempts", player_id, game_id, DEPARTURE_ATTEMPTS)

    def join(
        self, game_id: str, player: Player, code: str = "", seat: int | None = None, idempotency: Idempotency | None = None
    ) -> Outcome:
        """Take an open human seat (with the join code, unless the game is listed); the game starts when the last seat
        is taken (and a listed one leaves the open tables: the append path sees to it).

        With ``idempotency``, a retry gets the game as the first attempt left it (its record goes down in the
        same append as the seat), not ``already_seated``.
        """

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, Join(player.id, player.name, code, seat))
            seated = {s.player_id for s in game.seats if s.player_id and s.player_id != player.id}
            if kept_apart(self.block_store, player.id, seated):  # a block either way: told as a full table, never why
                raise Refused("game_full")
            if game.rated:
                self.check_rated(player)
            self.quotas.check_join(player)
            self.players.add_game(player.id, game_id)
            return events

        return self._lobby_write(game_id, player, decide, idempotency)

    def leave(self, game_id: str, player: Player, level: str = "greedy", idempotency: Idempotency | None = None) -> Outcome:
        """Give up a seat: before the start it opens again; in play an AI of ``level`` takes it, so the others play on.

        With ``idempotency``, a retry gets the game as the first attempt left it, not ``seat_resigned``.
        """
        outcome = self._lobby_write(game_id, player, lambda game: lobby_decide(game, Leave(player.id, level)), idempotency)
        game = outcome.game
        if (
            outcome.replayed is None
            and game is not None
            and game.seat_of(player.id) is None
            and self.load(game_id).seat_of(player.id) is None
        ):
            self.players.forget_game({player.id}, game.id)  # left before the start (and not back already)
        return outcome

    def cancel(self, game_id: str, player: Player) -> Game:
        """Call off a game that has not started; it leaves everyone's list of games."""
        game = self._lobby_write(game_id, player, lambda game: lobby_decide(game, Cancel(player.id))).game
        assert game is not None  # no idempotency: never a replayed answer
        self.lists.forget(game)
        return game

    def abort(self, game_id: str, player: Player, idempotency: Idempotency | None = None) -> Outcome:
        """Call off a game in play before every seat has moved once (any of its players): it ends with no winner, is
        never rated, and leaves every list (the players', and the open tables should it still be there).  The abort
        of a rated game is noted for its player (too many suspend them from rated play: ``rated_play``).

        A game still waiting is its creator's to cancel (:meth:`cancel`); once every seat has moved, a player who wants
        out resigns (:meth:`leave`) and an AI plays on.
        """

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, Abort(player.id))
            if game.rated and self.rated_play is not None:  # noted before the append: a retry notes the same game
                self.rated_play.note_abort(player.id, game.id)
            return events

        outcome = self._lobby_write(game_id, player, decide, idempotency)
        game = outcome.game
        if game is not None and game.status == "aborted":
            self.lists.forget(game)
        return outcome

    def offer_rematch(self, game_id: str, player: Player, idempotency: Idempotency | None = None) -> Outcome:
        """Offer (or accept) a rematch at a finished game's end; offering again changes nothing.

        The offer that completes the set (every human seat's player wants one) names the new game in the event that
        records it, and the rematch is then made here at once (:meth:`start_rematch`); should this stop before it
        is, the next read of the game, or the job the append queued, makes it under that id.  Each player must have
        room for another game in play (``game_limit_reached``), and the rematch's creator for its AI seats.
        """
        rematch_id = new_id("g")

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            events = lobby_decide(game, OfferRematch(player.id, rematch_id))
            if events:
                if game.rated:
                    self.check_rated(player)
                self.quotas.check_join(player)
                if any(isinstance(e, RematchOffered) and e.rematch_id for e in events):
                    plan = plan_rematch(game)
                    self._check_rematch_quotas(plan, player)
                    if game.rated:  # the rematch is rated too: everyone in it must be able to play one
                        people = [plan.creator, *((player_id, name) for _, player_id, name in plan.seated)]
                        self.check_rated(*(self._player(player_id, name) for player_id, name in people))
            return events

        outcome = self.write(game_id, decide, f"player:{player.id}", OnConflict.RETRY, idempotency=idempotency)
        now = self.load(game_id)
        if now.rematch is not None and not now.rematch_started:
            try:
                now = self.start_rematch(game_id)
            except Exception:  # the offer was stored: its job, or the next read of the game, makes the rematch
                log.exception("could not make the rematch %s of game %s now; its job or the next read will", now.rematch, game_id)
        if outcome is None or outcome.replayed is None:
            return Outcome(game=now)
        return outcome

    def decline_rematch(self, game_id: str, player: Player, idempotency: Idempotency | None = None) -> Outcome:
        """Want no rematch of a finished game (an offer made before is withdrawn): there will be none; declining again
        changes nothing."""

        def decide(game: Game) -> Sequence[LobbyEvent | Event]:
            return lobby_decide(game, DeclineRematch(player.id))

        outcome = self.write(game_id, decide, f"player:{player.id}", OnConflict.RETRY, idempotency=idempotency)
        return outcome if outcome is not None else Outcome(game=self.load(game_id))

    def start_rematch(self, game_id: str) -> Game:
        """Make the rematch a finished game's players agreed on, then note on that game that it was made.

        Safe to do again and from anywhere (the offering request, a ``start_rematch`` job, a read of the game): the
        set-up is made under the id the last offer named, which only one append can ever do, and the note is appended
        once.  Returns the finished game as it is after.
        """
        game = self.load(game_id)
        if game.rematch is None or game.rematch_started:
            return game
        plan = plan_rematch(game)
        seated = [(seat, self._player(player_id, name)) for seat, player_id, name in plan.seated]
        self.set_up(self._player(*plan.creator), plan.request, seated, game_id=game.rematch)

        def note(current: Game) -> Sequence[LobbyEvent | Event]:
            rematch = current.rematch
            return [RematchStarted(rematch)] if rematch is not None and not current.rematch_started else []

        outcome = self.write(game_id, note, "system:rematch", OnConflict.RETRY)
        return outcome.game if outcome is not None and outcome.game is not None else self.load(game_id)

    def _player(self, player_id: str, name: str) -> Player:
        """A player of a finished game as they are now (one who deleted their account: as the game knew them)."""
        return self.players.get(player_id) or Player(player_id, name or "player", "")

    def _check_rematch_quotas(self, plan: RematchPlan, asking: Player) -> None:
        """Refuse the offer that would start a rematch one of its players has no room for (games in play, or the
        creator's AI seats); it starts once they have room and the offer is made again."""
        for player_id, name in [plan.creator, *((player_id, name) for _, player_id, name in plan.seated)]:
            player = asking if player_id == asking.id else self._player(player_id, name)
            try:
                if player_id == plan.creator[0]:
                    self.quotas.check_new_game(player, plan.ai_seats)
                else:
                    self.quotas.check_join(player)
            except Refused as refusal:
                if player_id == asking.id:
                    raise
                raise Refused(
                    refusal.code,
                    f"The rematch cannot start yet: {player.name} is at a limit of the games a player may hold "
                    f"({refusal.code}). Offer again once they have finished one.",
                    player_id=player_id,
                    **refusal.facts,
                ) from None

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

    def give_time(self, game_id: str, player: Player, seconds: int, idempotency: Idempotency | None = None) -> Outcome:
        """Give ``seconds`` to the turn of the player to move (another's): refused without a turn limit
        (``no_turn_limit``), when it is nobody else's turn (``not_their_turn``), or beyond what the turn may still be
        given (``give_time_limit_reached``: in all, as much as its own limit)."""
        return self._lobby_write(game_id, player, lambda game: lobby_decide(game, GiveTime(player.id, seconds)), idempotency)
