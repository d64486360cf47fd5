"""Challenges as a request may ask for them: made, accepted, declined, cancelled, read one at a time and listed.

The rules are :mod:`service.domain.challenges` (pure); this loads a challenge (the fold of its stream), lets them decide,
and appends what they decided with the version and head it was decided on, deciding again if another write came
first.  Around that, what no single append can do:

- *Who is named.*  The challenged are named by handle (:meth:`PlayerService.by_handle`), or by player id.
- *Caps.*  A challenger may have ``max_open`` challenges sent and still open, and one at a time toward each player
  (both claimed in one transaction with the challenge's place in their index, on their slot:
  :class:`~service.storage.challenges.ChallengeIndex`, so that twelve identical creates at once make one); a player
  may have ``max_received`` received and still open (each inbox's place taken by one script with its cap's check, on
  the player's slot: fifty challengers cannot fill it past the cap); making and accepting one respects the quotas of
  games in play (:class:`~service.application.quotas.Quotas`) of whoever would play.  What a cap counts is pruned of
  what is no longer open when it is reached (answered, cancelled, expired, a create that stopped long ago).
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
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from engine import Variant
from service.application.commands import NewGame, SeatRequest, utc_now
from service.application.erasure import DELETED_NAME
from service.application.followups import FollowUps, NoFollowUps, challenge_notice
from service.application.games import GameService
from service.application.players import PlayerService
from service.common.config import Settings
from service.common.errors import Conflict, NotConfirmed, NotFound, Refused, bad_cursor
from service.domain import challenges as rules
from service.domain.challenges import Challenge, ChallengeCreated, ChallengeEvent, ChallengeStarted, Invitee, Terms
from service.domain.lobby import SeatSpec
from service.storage.challenges import AlreadyChallenged, ChallengeIndex, ChallengeStreams, TooManyOpen
from service.storage.events import Idempotency, IdempotencyMismatch, NotReplicated, Replayed, VersionConflict
from service.storage.idempotency import CreateRecords, Made
from service.storage.players import Player, PlayerStore, new_id, records_key

__all__ = ["Challenge", "ChallengeOutcome", "ChallengePage", "ChallengeService", "NewChallenge"]

log = logging.getLogger("red7.challenges")

#: How often a write decides again on the challenge as it is now before it gives up with a conflict.
RETRIES = 5
#: A player id as the service makes them: a challenged player may be named by it (before they chose a handle).
PLAYER_ID = re.compile(r"p_[0-9a-f]{16}")
#: An index entry with no challenge behind it for this long (ms) is a create that stopped before its append.
STOPPED_AFTER_MS = 60_000
#: The most index entries one page of the inbox looks at, whatever its filter keeps: a page may hold fewer than its
#: limit and a cursor, and the next one goes on from there.
PAGE_LOOKS_AT = 200


@dataclass(frozen=True, slots=True)
class NewChallenge:
    """A challenge as requested: who (handles, or player ids), the game (``game``'s seats, variant, action rules, time
    control, rated; its seed, deck and listing are not a challenge's to choose), and how long it stays open (seconds;
    ``None``: the server's default)."""

    players: Sequence[str]
    game: NewGame
    expires_in: int | None = None


@dataclass(frozen=True, slots=True)
class ChallengeOutcome:
    """A write's answer: the challenge after it; ``replayed``: a retry answered as its first attempt left it."""

    challenge: Challenge
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class ChallengePage:
    challenges: list[Challenge]
    next_cursor: str | None


def _ms(at: str) -> int:
    return int(rules.parse_time(at).timestamp() * 1000)


def _erased(challenge: Challenge, gone: set[str]) -> Challenge:
    """The challenge with the names of the players in ``gone`` (deleted accounts) shown as "deleted player"."""
    return replace(
        challenge,
        challenger_name=DELETED_NAME if challenge.challenger in gone else challenge.challenger_name,
        challenged=tuple(
            Invitee(invitee.player_id, DELETED_NAME) if invitee.player_id in gone else invitee for invitee in challenge.challenged
        ),
    )


def _already(names: list[str]) -> Refused:
    return Refused(
        "already_challenged",
        f"An open challenge of yours already challenges {', '.join(names)}: cancel it first, or wait for the answer.",
        players=names,
    )


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """``<ms>.<challenge id>``: after that entry of the inbox."""
    if cursor is None:
        return None
    if match := re.fullmatch(r"([0-9]{1,15})\.(c_[0-9a-f]{16})", cursor):
        return int(match[1]), match[2]
    raise bad_cursor()


class ChallengeService:
    """Every command on a challenge, and the reads of one and of a player's inbox."""

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

    def now(self) -> datetime:
        return rules.parse_time(self.clock())

    # --- reading ----------------------------------------------------------------------

    def load(self, challenge_id: str) -> Challenge:
        """The challenge as its stream leaves it (``challenge_not_found`` if it has none)."""
        stored = [(event.number, event.payload) for event in self.streams.read_all(challenge_id)]
        if not stored:
            raise NotFound("challenge_not_found", "There is no such challenge, or you have no part in it.")
        return rules.fold(challenge_id, stored)

    def get(self, challenge_id: str, player: Player) -> Challenge:
        """A challenge the player has a part in; a started one's game is made if it is not yet."""
        challenge = self._visible(challenge_id, player)
        self._made(challenge)
        return self.shown(challenge)

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

    def inbox(self, player: Player, *, status: str | None = None, limit: int = 50, cursor: str | None = None) -> ChallengePage:
        """The challenges the player sent and received, newest first, a page at a time; ``status``: only those that
        stand so now (``open``, ``started``, ``declined``, ``cancelled``, ``expired``)."""
        before = _parse_cursor(cursor)
        now = self.now()
        found: list[Challenge] = []
        looked, exhausted = 0, False
        while len(found) < limit and looked < PAGE_LOOKS_AT:
            want = min(limit - len(found), PAGE_LOOKS_AT - looked)
            entries = self.challenge_index.page(player.id, before, want)
            for challenge_id, made_ms in entries:
                looked += 1
                before = (made_ms, challenge_id)
                challenge = self._find(challenge_id)
                if challenge is not None and challenge.concerns(player.id) and status in (None, challenge.status(now)):
                    found.append(challenge)
            if len(entries) < want:
                exhausted = True
                break
        more = not exhausted and before is not None and bool(self.challenge_index.page(player.id, before, 1))
        for challenge in found:
            self._made(challenge)
        return ChallengePage(self.shown_all(found), f"{before[0]}.{before[1]}" if more and before is not None else None)

    # --- writing ----------------------------------------------------------------------

    def create(self, challenger: Player, request: NewChallenge, idempotency: Idempotency | None = None) -> ChallengeOutcome:
        """A new challenge, open until its expiry; with ``idempotency``, once per key of the challenger.

        The key's record (the challenge's id, its time and expiry) is claimed with the challenge's place in the
        challenger's index and the cap's check, before anything else is written: a retry that finds the challenge
        answers with it as it was made, one that does not makes it under the recorded id.
        """
        try:
            return self._create(challenger, request, idempotency)
        except IdempotencyMismatch as exc:
            raise Refused("idempotency_key_reused", str(exc)) from None

    def _create(self, challenger: Player, request: NewChallenge, idempotency: Idempotency | None) -> ChallengeOutcome:
        if idempotency is not None:
            first = self.records.find(records_key(self.players.prefix, challenger.id), idempotency)
            if first is not None:
                return self._create_again(challenger, request, first, idempotency)
        at = self.clock()
        now = rules.parse_time(at)
        expires_in = self.expiry if request.expires_in is None else request.expires_in
        if expires_in > self.max_expiry:
            raise Refused(
                "invalid_request",
                f"A challenge stays open at most {self.max_expiry} seconds, not {expires_in}.",
                errors=[{"field": "expires_in", "message": f"must be at most {self.max_expiry}", "location": "json"}],
                limit=self.max_expiry,
            )
        command = self._command(challenger, request, rules.format_time(now + timedelta(seconds=expires_in)))
        new = Challenge(new_id("c"))
        events = rules.decide(new, command, now)
        self.games.quotas.check_new_game(challenger, command.terms.ai_seats)
        if command.terms.rated:
            self.games.check_rated(challenger)
        stale = self._check_sent(challenger, command, now)
        made = {"id": new.id, "at": at, "expires_at": command.expires_at}
        challenged = [invitee.player_id for invitee in command.challenged]
        try:
            first = self.challenge_index.claim(
                challenger.id, new.id, _ms(at), self.max_open, idempotency, made, challenged=challenged, stale=stale
            )
        except TooManyOpen:
            raise Refused(
                "challenge_limit_reached",
                f"You have {self.max_open} challenges open; a player may have {self.max_open} open at once. Cancel one, "
                "or wait for its answers.",
                limit=self.max_open,
            ) from None
        except AlreadyChallenged as taken:  # a create beside this one claimed the pair between the check and here
            raise _already(sorted(i.name for i in command.challenged if i.player_id in taken.players)) from None
        if first is not None:  # an attempt with this key beside this one claimed it first
            return self._create_again(challenger, request, first, idempotency)
        return ChallengeOutcome(self.shown(self._open(new, events, at, idempotency)))

    def _create_again(
        self, challenger: Player, request: NewChallenge, first: Made, idempotency: Idempotency | None
    ) -> ChallengeOutcome:
        """A retry of a create: the challenge as its first attempt made it, or made now if that attempt never did."""
        challenge_id = str(first["id"])
        if not self.streams.exists(challenge_id):
            new = Challenge(challenge_id)
            command = self._command(challenger, request, str(first["expires_at"]))
            events = rules.decide(new, command, rules.parse_time(first["at"]))
            try:
                made = self._open(new, events, first["at"], idempotency)
                return ChallengeOutcome(self.shown(made), replayed=True)
            except Conflict:
                pass  # the first attempt made it meanwhile: its answer, below
        return ChallengeOutcome(self.shown(self._as_of(challenge_id, 1)), replayed=True)

    def _open(
        self, new: Challenge, events: Sequence[ChallengeEvent], at: str, idempotency: Idempotency | None = None
    ) -> Challenge:
        """Index a new challenge under the challenged, each inbox within its cap, then append it (a crash between
        leaves entries readers skip), then tell them.

        An inbox at its cap is pruned of what is no longer open and asked again; still full, the challenge is not
        made (``challenge_inbox_full``) and what it claimed is given back, its key's record too."""
        created = events[0]
        assert isinstance(created, ChallengeCreated)
        challenged = [invitee.player_id for invitee in created.challenged]
        full = self.challenge_index.receive(challenged, new.id, _ms(at), self.max_received)
        if full:
            for player_id in full:
                self._prune_received(player_id)
            full = self.challenge_index.receive(full, new.id, _ms(at), self.max_received)
        if full:
            self.challenge_index.withdraw([p for p in challenged if p not in full], new.id)
            self.challenge_index.unclaim(created.challenger, new.id, idempotency)
            names = [invitee.name for invitee in created.challenged if invitee.player_id in full]
            raise Refused(
                "challenge_inbox_full",
                f"{', '.join(names)} already {'has' if len(names) == 1 else 'have'} {self.max_received} open challenges "
                "waiting for an answer, as many as a player may: try again once they have answered some.",
                players=names,
                limit=self.max_received,
            )
        made = self._append(new, events, created.challenger, at=at)
        assert isinstance(made, Challenge)  # a create appends without a record of its own (it is on the challenger's slot)
        self._tell(made, "challenge_received", challenged)
        return made

    def _command(self, challenger: Player, request: NewChallenge, expires_at: str) -> rules.Create:
        game = request.game
        terms = Terms(
            seats=tuple(SeatSpec(seat.kind, seat.level) for seat in game.seats),
            variant=game.variant.value,
            action_rules=game.action_rules,
            turn_timeout=None if game.days_per_turn else game.turn_timeout,
            timeout_action=game.timeout_action,
            days_per_turn=game.days_per_turn,
            rated=game.rated,
        )
        return rules.Create(challenger.id, challenger.name, self._resolve(request.players), terms, expires_at)

    def _resolve(self, names: Sequence[str]) -> tuple[Invitee, ...]:
        """The players named, by handle or by id (``unknown_players`` names those that are neither)."""
        found, unknown = [], []
        for name in names:
            player = self.accounts.by_handle(name) or (self.players.get(name) if PLAYER_ID.fullmatch(name) else None)
            if player is None:
                unknown.append(name)
            else:
                found.append(Invitee(player.id, player.name))
        if unknown:
            raise Refused("unknown_players", f"No player has the handle (or id) {', '.join(unknown)}.", players=unknown)
        return tuple(found)

    def _check_sent(self, challenger: Player, command: rules.Create, now: datetime) -> dict[str, str]:
        """Drop from the challenger's open ones those no longer open (the cap counts what is left), and refuse a
        challenge to a player an open one (or one being made) already challenges (``already_challenged``).

        The pairs of the players named that a challenge no longer open still holds: the claim may take them over
        (and only those: a pair another create claims meanwhile is refused there, in the claim's transaction)."""
        named = {invitee.player_id: invitee.name for invitee in command.challenged}
        # The pairs first, the open ones sent next: a challenge a pair names was claimed with its place among those
        # sent (one transaction), so it is among them below unless it closed meanwhile (then its pair is stale).
        # Read the other way round, a create claimed between the two reads would look stale, and be taken over.
        pairs = self.challenge_index.pairs(challenger.id, list(named))
        again: set[str] = set()
        live: set[str] = set()  # open, or being made (claimed, not appended yet)
        now_ms = int(now.timestamp() * 1000)
        for challenge_id, made_ms in self.challenge_index.sent(challenger.id):
            challenge = self._find(challenge_id)
            if challenge is None:
                if now_ms - made_ms > STOPPED_AFTER_MS:
                    self.challenge_index.closed(challenger.id, challenge_id)  # its create stopped before its append
                else:
                    live.add(challenge_id)
                continue
            if challenge.status(now) != "open":
                self.challenge_index.closed(challenger.id, challenge_id)
                continue
            live.add(challenge_id)
            again |= {invitee.name for invitee in challenge.challenged if invitee.player_id in named}
        stale = {}
        for player_id, challenge_id in pairs.items():
            if challenge_id in live:
                again.add(named[player_id])
            else:
                stale[player_id] = challenge_id
        if again:
            raise _already(sorted(again))
        return stale

    def _prune_received(self, player_id: str) -> None:
        """Drop from what the player received and left open what is no longer open: what their inbox's cap counts."""
        now = self.now()
        now_ms = int(now.timestamp() * 1000)
        for challenge_id, made_ms in self.challenge_index.received(player_id):
            challenge = self._find(challenge_id)
            if challenge is None and now_ms - made_ms <= STOPPED_AFTER_MS:
                continue  # being made
            if challenge is None or challenge.status(now) != "open":
                self.challenge_index.answered([player_id], challenge_id)

    def accept(self, challenge_id: str, player: Player, idempotency: Idempotency | None = None) -> ChallengeOutcome:
        """A challenged player accepts; the last acceptance starts the game (``challenge.game_id``).

        Accepting commits the player to a game: their games in play are counted (``game_limit_reached``), and, when
        this acceptance starts it, everyone's (``challenge_cannot_start`` names who has no room, and why).
        """
        game_id = new_id("g")

        def decide(challenge: Challenge, now: datetime) -> list[ChallengeEvent]:
            events = rules.decide(challenge, rules.Accept(player.id, game_id), now)
            if events:
                starts = any(isinstance(e, ChallengeStarted) for e in events)
                self._check_room(challenge, player, starts=starts)
                if challenge.terms.rated:  # a rated game: each player must be able to play one when it starts
                    others = [self.players.get(p) for p in challenge.players if p != player.id] if starts else []
                    self.games.check_rated(player, *(other for other in others if other is not None))
            return events

        challenge, appended, replayed = self._write(challenge_id, player, decide, idempotency)
        self._made(challenge)
        if challenge.game_id is not None:
            self._closed(challenge)
        if appended:
            others = [p for p in challenge.players if p != player.id]
            self._tell(challenge, "challenge_accepted", others, game_id=challenge.game_id)
        return ChallengeOutcome(self.shown(challenge), replayed)

    def _check_room(self, challenge: Challenge, player: Player, *, starts: bool) -> None:
        quotas = self.games.quotas
        quotas.check_join(player)
        if not starts:
            return
        for player_id in challenge.players:
            if player_id == player.id:
                continue
            other = self.players.get(player_id)
            if other is None:
                continue  # no account any more: nothing of theirs to count
            try:
                if player_id == challenge.challenger:
                    quotas.check_new_game(other, challenge.terms.ai_seats)
                else:
                    quotas.check_join(other)
            except Refused as refused:
                raise Refused(
                    "challenge_cannot_start",
                    f"The game cannot start now: {other.name} is at a limit of theirs ({refused.code}); accept again once "
                    "they have room for it.",
                    player_id=player_id,
                    reason=refused.code,
                    **refused.facts,
                ) from None

    def decline(
        self, challenge_id: str, player: Player, reason: str = "generic", idempotency: Idempotency | None = None
    ) -> ChallengeOutcome:
        """A challenged player declines, with a reason key: the challenge is over for everyone."""
        challenge, appended, replayed = self._write(
            challenge_id, player, lambda c, now: rules.decide(c, rules.Decline(player.id, reason), now), idempotency
        )
        if appended:
            self._closed(challenge)
            self._tell(challenge, "challenge_declined", [p for p in challenge.players if p != player.id])
        return ChallengeOutcome(self.shown(challenge), replayed)

    def cancel(self, challenge_id: str, player: Player) -> Challenge:
        """The challenger withdraws an open challenge (again: nothing more happens)."""
        challenge, appended, _ = self._write(challenge_id, player, lambda c, now: rules.decide(c, rules.Cancel(player.id), now))
        self._closed(challenge)
        if appended:
            self._tell(challenge, "challenge_cancelled", [invitee.player_id for invitee in challenge.challenged])
        return self.shown(challenge)

    def on_account_deleted(self, player_id: str) -> None:
        """A deleted account's open challenges end: those it sent are cancelled, those it received declined (an
        acceptance of theirs too: the challenge cannot start without them).  Called before the account goes and
        again after, on its tombstone: found in the player's index, which a challenge enters before it is appended."""
        player = self.players.get(player_id) or Player(player_id, DELETED_NAME, "")
        cursor: str | None = None
        while True:
            page = self.inbox(player, status="open", limit=50, cursor=cursor)
            for challenge in page.challenges:
                try:
                    if challenge.challenger == player_id:
                        self.cancel(challenge.id, player)
                    else:
                        self.decline(challenge.id, player, "generic")
                except Refused:
                    continue  # it closed meanwhile (expired, answered by the others): nothing left to end
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

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
