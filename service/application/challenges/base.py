"""What every part of the challenge service shares: its stores and settings, a challenge loaded and shown as its
players may see it, the one path every write takes, and what follows an append.

The rules are :mod:`service.domain.challenges` (pure); a write loads a challenge (the fold of its stream), lets them
decide, and appends what they decided with the version and head it was decided on, deciding again if another write
came first (:meth:`ChallengeServiceBase._write`).  After an append:

- *The game.*  The last acceptance appends ``challenge_started`` with the game's id; the game is then made under that
  id (:meth:`GameService.set_up`, which makes a game once whoever calls it).  Should the process stop between the
  two, the next read of the challenge (or of the inbox, or an acceptance again) makes it: nobody is left with a
  started challenge and no game.
- *Notices.*  The players concerned are told by webhook (:func:`~service.application.followups.challenge_notice`),
  after the append, as a game's players are; a notice lost with its process is not sent again (what it told is in
  the inbox).

A challenge the caller has no part in is ``challenge_not_found``, as one that does not exist.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from engine import Variant
from service.application.commands import NewGame, SeatRequest, utc_now
from service.application.erasure import DELETED_NAME
from service.application.followups import FollowUps, NoFollowUps, challenge_notice
from service.application.games import GameService
from service.application.players import PlayerService
from service.common.config import Settings
from service.common.errors import Conflict, NotConfirmed, NotFound, Refused
from service.domain import challenges as rules
from service.domain.challenges import Challenge, ChallengeEvent, Invitee
from service.storage.challenges import ChallengeIndex, ChallengeStreams
from service.storage.events import Idempotency, IdempotencyMismatch, NotReplicated, Replayed, VersionConflict
from service.storage.idempotency import CreateRecords
from service.storage.players import Player, PlayerStore

log = logging.getLogger("red7.challenges")

#: How often a write decides again on the challenge as it is now before it gives up with a conflict.
RETRIES = 5


@dataclass(frozen=True, slots=True)
class ChallengeOutcome:
    """A write's answer: the challenge after it; ``replayed``: a retry answered as its first attempt left it."""

    challenge: Challenge
    replayed: bool = False


def _erased(challenge: Challenge, gone: set[str]) -> Challenge:
    """The challenge with the names of the players in ``gone`` (deleted accounts) shown as "deleted player"."""
    return replace(
        challenge,
        challenger_name=DELETED_NAME if challenge.challenger in gone else challenge.challenger_name,
        challenged=tuple(
            Invitee(invitee.player_id, DELETED_NAME) if invitee.player_id in gone else invitee for invitee in challenge.challenged
        ),
    )


class ChallengeServiceBase:
    """The state and the shared machinery of :class:`~service.application.challenges.ChallengeService`."""

    def __init__(
        self,
        streams: ChallengeStreams,
        challenge_index: ChallengeIndex,
        players: PlayerStore,
        accounts: PlayerService,
        games: GameService,
        *,
        followups: FollowUps | None = None,
        clock: Callable[[], str] = utc_now,
        max_open: int = Settings.max_open_challenges,
        max_received: int = Settings.max_challenges_received,
        expiry: int = Settings.challenge_expiry,
        max_expiry: int = Settings.max_challenge_expiry,
    ) -> None:
        self.streams = streams
        self.challenge_index = challenge_index
        self.players = players
        self.accounts = accounts
        self.games = games
        self.followups: FollowUps = followups if followups is not None else NoFollowUps()
        self.clock = clock
        self.max_open = max_open
        self.max_received = max_received
        self.expiry = expiry
        self.max_expiry = max_expiry
        self.records = CreateRecords(players.redis)  # of challenges made with an Idempotency-Key, on the challenger's slot
        self.block_store = games.block_store  # whom a player takes a challenge from: the games' own, shared

    def now(self) -> datetime:
        return rules.parse_time(self.clock())

    # --- reading ----------------------------------------------------------------------

    def load(self, challenge_id: str) -> Challenge:
        """The challenge as its stream leaves it (``challenge_not_found`` if it has none)."""
        stored = [(event.number, event.payload) for event in self.streams.read_all(challenge_id)]
        if not stored:
            raise NotFound("challenge_not_found", "There is no such challenge, or you have no part in it.")
        return rules.fold(challenge_id, stored)

    def shown(self, challenge: Challenge) -> Challenge:
        """The challenge as its players may see it (:meth:`shown_all`)."""
        return self.shown_all([challenge])[0]

    def shown_all(self, challenges: Sequence[Challenge]) -> list[Challenge]:
        """The challenges as their players may see them: a player whose account was deleted is named "deleted player"
        (their id stays: it names nobody now).  Their events keep the name they had, as a game's do; it is replaced
        wherever a challenge is read (one round trip for them all, no cache: a deletion shows at once)."""
        concerned = {player_id for challenge in challenges for player_id in challenge.players}
        gone = self.players.deleted_among(concerned) if concerned else set()
        return [_erased(challenge, gone) if gone.intersection(challenge.players) else challenge for challenge in challenges]

    # --- the append path -----------------------------------------------------------------

    def _write(
        self,
        challenge_id: str,
        player: Player,
        decide: Callable[[Challenge, datetime], list[ChallengeEvent]],
        idempotency: Idempotency | None = None,
    ) -> tuple[Challenge, bool, bool]:
        """Load, decide, append; decided again on the challenge as it is now if another write came first.

        The challenge after it, whether this appended anything, and whether this is a retry's answer (with
        ``idempotency``: the challenge as the first attempt left it, not decided a second time).
        """
        for _ in range(RETRIES):
            challenge = self._visible(challenge_id, player)
            if (replayed := self._recorded(challenge_id, idempotency)) is not None:
                return self._as_of(challenge_id, replayed.version), False, True
            events = decide(challenge, self.now())
            if not events:
                return challenge, False, False
            try:
                after = self._append(challenge, events, player.id, idempotency=idempotency)
            except Conflict:
                continue
            if isinstance(after, Replayed):
                return self._as_of(challenge_id, after.version), False, True
            return after, True, False
        raise Conflict(challenge.version, self.streams.version(challenge_id), "The challenge kept changing; try again.")

    def _append(
        self,
        challenge: Challenge,
        events: Sequence[ChallengeEvent],
        by: str,
        *,
        at: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Challenge | Replayed:
        """Append ``events``, decided on ``challenge``, as one atomic write checked against its version and head."""
        at = at or self.clock()
        after = challenge.copy()
        payloads = []
        for event in events:
            payloads.append(rules.envelope(event, at=at, by=f"player:{by}"))
            rules.apply(after, after.version + 1, event, at)
        after.head = payloads[-1]
        try:
            result = self.streams.append(
                challenge.id, challenge.version, payloads, expected_head=challenge.head, idempotency=idempotency
            )
        except VersionConflict as conflict:
            raise Conflict(conflict.expected, conflict.current) from None
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            raise NotConfirmed(short.version, short.replicas, short.wanted) from None
        return result if isinstance(result, Replayed) else after

    def _recorded(self, challenge_id: str, idempotency: Idempotency | None) -> Replayed | None:
        if idempotency is None:
            return None
        try:
            return self.streams.idempotent_response(challenge_id, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None
        except NotReplicated as short:
            raise NotConfirmed(short.version, short.replicas, short.wanted) from None

    def _visible(self, challenge_id: str, player: Player) -> Challenge:
        challenge = self.load(challenge_id)
        if not challenge.concerns(player.id):
            raise NotFound("challenge_not_found", "There is no such challenge, or you have no part in it.")
        return challenge

    def _find(self, challenge_id: str) -> Challenge | None:
        try:
            return self.load(challenge_id)
        except NotFound:
            return None

    def _as_of(self, challenge_id: str, version: int) -> Challenge:
        """The challenge as it was at ``version`` (a retry is answered with what its first attempt made)."""
        return rules.fold(challenge_id, [(e.number, e.payload) for e in self.streams.read(challenge_id, 0, version)])

    # --- what follows an append -----------------------------------------------------------

    def _closed(self, challenge: Challenge) -> None:
        """A challenge no longer open leaves what the caps count: the challenger's open ones and pairs, the
        challenged players' inboxes' (each write safe to repeat)."""
        self.challenge_index.closed(challenge.challenger, challenge.id)
        self.challenge_index.answered([invitee.player_id for invitee in challenge.challenged], challenge.id)

    def _made(self, challenge: Challenge) -> None:
        """Make the game a started challenge names, unless it is made: whoever appended ``challenge_started`` makes it
        at once, and a read after a crash in between makes it then (:meth:`GameService.set_up` makes a game once)."""
        if challenge.game_id is None or self.games.store.exists(challenge.game_id):
            return
        seated = [(seat, self._player(invitee)) for seat, invitee in challenge.seating()]
        terms = challenge.terms
        request = NewGame(
            seats=[SeatRequest(seat.kind, seat.level) for seat in terms.seats],
            variant=Variant(terms.variant),
            action_rules=terms.action_rules,
            turn_timeout=terms.turn_timeout,
            timeout_action=terms.timeout_action,
            rated=terms.rated,
            days_per_turn=terms.days_per_turn,
            origin="challenge",
        )
        creator = self._player(Invitee(challenge.challenger, challenge.challenger_name))
        self.games.set_up(creator, request, seated, game_id=challenge.game_id)

    def _player(self, invitee: Invitee) -> Player:
        """The player as they are now (their name may have changed since the challenge), else as they were named."""
        return self.players.get(invitee.player_id) or Player(invitee.player_id, invitee.name, "")

    def _tell(self, challenge: Challenge, kind: str, player_ids: Sequence[str], game_id: str | None = None) -> None:
        """Queue a notice to each player; never fails the write that happened (the inbox says it too)."""
        try:
            self.followups.notify([challenge_notice(kind, challenge.id, challenge.version, p, game_id) for p in player_ids])
        except Exception:
            log.exception("could not queue the %s notices of challenge %s", kind, challenge.id)
