"""A challenge made: the players named, the caps claimed, the challenged told.

- *Who is named.*  The challenged are named by handle (:meth:`PlayerService.by_handle`), or by player id.
- *Caps.*  A challenger may have ``max_open`` challenges sent and still open, and one at a time toward each player
  (both claimed in one transaction with the challenge's place in their index, on their slot:
  :class:`~service.storage.challenges.ChallengeIndex`, so that twelve identical creates at once make one); a player
  may have ``max_received`` received and still open (each inbox's place taken by one script with its cap's check, on
  the player's slot: fifty challengers cannot fill it past the cap); making and accepting one respects the quotas of
  games in play (:class:`~service.application.quotas.Quotas`) of whoever would play.  What a cap counts is pruned of
  what is no longer open when it is reached (answered, cancelled, expired, a create that stopped long ago).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.application.blocks import challenge_gate
from service.application.challenges.base import ChallengeOutcome, ChallengeServiceBase
from service.application.commands import NewGame
from service.common.errors import Conflict, Refused
from service.domain import challenges as rules
from service.domain.blocks import refused
from service.domain.challenges import Challenge, ChallengeCreated, ChallengeEvent, Invitee, Terms
from service.domain.lobby import SeatSpec
from service.storage.challenges import AlreadyChallenged, TooManyOpen
from service.storage.events import Idempotency, IdempotencyMismatch
from service.storage.idempotency import Made
from service.storage.players import Player, new_id

#: A player id as the service makes them: a challenged player may be named by it (before they chose a handle).
PLAYER_ID = re.compile(r"p_[0-9a-f]{16}")
#: An index entry with no challenge behind it for this long (ms) is a create that stopped before its append.
STOPPED_AFTER_MS = 60_000


@dataclass(frozen=True, slots=True)
class NewChallenge:
    """A challenge as requested: who (handles, or player ids), the game (``game``'s seats, variant, action rules, time
    control, rated; its seed, deck and listing are not a challenge's to choose), and how long it stays open (seconds;
    ``None``: the server's default)."""

    players: Sequence[str]
    game: NewGame
    expires_in: int | None = None


def _ms(at: str) -> int:
    return int(rules.parse_time(at).timestamp() * 1000)


def _already(names: list[str]) -> Refused:
    return Refused(
        "already_challenged",
        f"An open challenge of yours already challenges {', '.join(names)}: cancel it first, or wait for the answer.",
        players=names,
    )


class Creating(ChallengeServiceBase):
    """Challenges made (part of :class:`~service.application.challenges.ChallengeService`)."""

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
            first = self.records.find(self.players.create_records_key(challenger.id), idempotency)
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
        played = challenge_gate(self.block_store, created.challenger, [(i.player_id, i.name) for i in created.challenged])
        full, refusing = self.challenge_index.receive_from(
            created.challenger, played, challenged, new.id, _ms(at), self.max_received
        )
        if refusing:  # a block or a setting of theirs: told as any refusal, never why
            self.challenge_index.withdraw([p for p in challenged if p not in refusing], new.id)
            self.challenge_index.unclaim(created.challenger, new.id, idempotency)
            raise refused([invitee.name for invitee in created.challenged if invitee.player_id in refusing])
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
