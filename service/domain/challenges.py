"""Challenges: a player invites one to three named players to a game; it starts once every one has accepted.

A challenge is an aggregate of its own, with a stream of its own (not a game's: nothing is seated until everyone
said yes, and a challenge that is declined never becomes a game).  Like the lobby, its rules are a decision and a
fold, pure: :func:`decide` turns a command into events, or refuses it with a stable code; :func:`apply` folds one
event into a :class:`Challenge`.  Nothing here does I/O or reads a clock: the time a decision is made at is an
argument, and so is the id of the game the last acceptance starts, as a game's seed is (decided once, by the caller,
and recorded in the event, so that whoever makes the game after it makes the same one).

Expiry is a fact of time, not an event: a challenge still open at its ``expires_at`` is expired to every reader from
that instant on (:meth:`Challenge.status`), and refuses an acceptance, without anything being written.

The events (``type`` and fields, as stored):

- ``challenge_created``: the challenger (id and name), the challenged (ids and names, in the order they take the
  human seats after the challenger's), the game's terms and the expiry;
- ``challenge_accepted``: a challenged player said yes;
- ``challenge_declined``: a challenged player said no, with a reason key (:data:`DECLINE_REASONS`): it is over;
- ``challenge_cancelled``: the challenger withdrew it: it is over;
- ``challenge_started``: appended with the last acceptance, naming the game that acceptance starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar

from engine import CorruptHistory, Variant
from service.common.errors import Refused
from service.domain.codec import Absent, Events, Flag, Integer, Many, Members, Nullable, OneOf, Text, Time
from service.domain.lobby import DAYS_PER_TURN, SEAT_FORM, TIMEOUT_ACTIONS, SeatSpec

#: The most players one challenge invites (a table seats four: the challenger and three).
MAX_CHALLENGED = 3

#: Why a challenged player declines, as a stable key (Lichess's set, in our spelling, with our table's own terms).
DECLINE_REASONS: dict[str, str] = {
    "generic": "I am not accepting challenges at the moment.",
    "later": "This is not the right time for me, please ask again later.",
    "too_fast": "This time control is too fast for me, please challenge again with a slower game.",
    "too_slow": "This time control is too slow for me, please challenge again with a faster game.",
    "time_control": "I am not accepting challenges with this time control.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "variant": "I am not willing to play this variant right now.",
    "action_rules": "Please challenge me with the other setting of the action rules.",
    "players": "I would rather play at a table of another size.",
    "no_ai": "I would rather play without AI seats at the table.",
}

#: Where a challenge stands: ``open`` (waiting for answers), ``started`` (every challenged player accepted: the game
#: is made), ``declined``, ``cancelled`` (by the challenger), ``expired`` (still open at its expiry).
STATUSES = ("open", "started", "declined", "cancelled", "expired")
#: What each challenged player has answered.
ANSWERS = ("pending", "accepted", "declined")
#: The webhook notices a challenge sends: to the challenged when it is made; to everyone else concerned when one of
#: them accepts or declines; to the challenged when the challenger cancels it.
CHALLENGE_NOTICES = ("challenge_received", "challenge_accepted", "challenge_declined", "challenge_cancelled")


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as the service writes it (``...Z``)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_time(at: datetime) -> str:
    """A time as the service writes it: UTC, milliseconds, ``Z``."""
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- what a challenge holds ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Invitee:
    """A challenged player, and the name they had when challenged."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Terms:
    """The game a challenge proposes: its seats (the challenger on the first human seat, the challenged on the other
    human seats in the order they were named, AI seats of a level where the challenger wants them), the variant, the
    action rules, the time control (``turn_timeout`` seconds a turn, or ``days_per_turn``), rated or not."""

    seats: tuple[SeatSpec, ...]
    variant: str = Variant.ADVANCED.value
    action_rules: bool = False
    turn_timeout: int | None = None
    timeout_action: str = "fold"
    days_per_turn: int | None = None
    rated: bool = False

    @property
    def human_seats(self) -> list[int]:
        return [n for n, seat in enumerate(self.seats) if seat.kind == "human"]

    @property
    def ai_seats(self) -> int:
        return sum(1 for seat in self.seats if seat.kind == "ai")


@dataclass
class Challenge:
    """A challenge as its events leave it (the fold of its stream)."""

    id: str
    version: int = 0
    #: The stored payload of event ``version``: the history this fold came from (see :mod:`service.storage.events`).
    head: str = ""
    challenger: str = ""
    challenger_name: str = ""
    challenged: tuple[Invitee, ...] = ()
    terms: Terms = field(default_factory=lambda: Terms(()))
    created_at: str = ""
    updated_at: str = ""
    expires_at: str = ""
    accepted: tuple[str, ...] = ()
    declined_by: str | None = None
    decline_reason: str | None = None
    cancelled: bool = False
    game_id: str | None = None

    def status(self, now: datetime) -> str:
        """Where it stands at ``now``: expiry is a fact of time, so the same fold is ``open`` now and ``expired`` later."""
        if self.game_id is not None:
            return "started"
        if self.cancelled:
            return "cancelled"
        if self.declined_by is not None:
            return "declined"
        if self.expires_at and now >= parse_time(self.expires_at):
            return "expired"
        return "open"

    def answer_of(self, player_id: str) -> str:
        if player_id == self.declined_by:
            return "declined"
        return "accepted" if player_id in self.accepted else "pending"

    def is_challenged(self, player_id: str) -> bool:
        return any(invitee.player_id == player_id for invitee in self.challenged)

    def concerns(self, player_id: str) -> bool:
        """Whether the player has a part in it (the challenger or one of the challenged): nobody else may see it."""
        return player_id == self.challenger or self.is_challenged(player_id)

    @property
    def players(self) -> list[str]:
        """Everyone concerned: the challenger, then the challenged."""
        return [self.challenger, *(invitee.player_id for invitee in self.challenged)]

    def seating(self) -> list[tuple[int, Invitee]]:
        """The human seat each challenged player takes: the human seats after the challenger's, in the order named."""
        return list(zip(self.terms.human_seats[1:], self.challenged, strict=True))

    def copy(self) -> Challenge:
        return replace(self)


# --- events --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChallengeCreated:
    type: ClassVar[str] = "challenge_created"
    challenger: str
    challenger_name: str
    challenged: tuple[Invitee, ...]
    terms: Terms
    expires_at: str


@dataclass(frozen=True, slots=True)
class ChallengeAccepted:
    type: ClassVar[str] = "challenge_accepted"
    player_id: str


@dataclass(frozen=True, slots=True)
class ChallengeDeclined:
    type: ClassVar[str] = "challenge_declined"
    player_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class ChallengeCancelled:
    type: ClassVar[str] = "challenge_cancelled"


@dataclass(frozen=True, slots=True)
class ChallengeStarted:
    """Every challenged player accepted: the game is ``game_id`` (made after this event, under this id, by whoever
    appended it or, should that one stop first, by the next reader)."""

    type: ClassVar[str] = "challenge_started"
    game_id: str


ChallengeEvent = ChallengeCreated | ChallengeAccepted | ChallengeDeclined | ChallengeCancelled | ChallengeStarted
CHALLENGE_EVENTS = (ChallengeCreated, ChallengeAccepted, ChallengeDeclined, ChallengeCancelled, ChallengeStarted)

#: The schema version of a stored challenge event (``v`` in its envelope), for upcasting should they change.
SCHEMA_VERSION = 1


#: How each challenge event is stored (:mod:`service.domain.codec`).
STORED: Events[ChallengeEvent] = Events(
    "challenge",
    [
        Members(
            ChallengeCreated,
            {
                "challenger": Text(),
                "challenger_name": Text(),
                "challenged": Many(Members(Invitee, {"player_id": Text(), "name": Text()}), least=1, most=MAX_CHALLENGED),
                "terms": Members(
                    Terms,
                    {
                        "seats": Many(SEAT_FORM, least=2, most=4),
                        "variant": OneOf([v.value for v in Variant]),
                        "action_rules": Flag(),
                        "turn_timeout": Absent(Nullable(Integer(1)), None),
                        "timeout_action": OneOf(TIMEOUT_ACTIONS),
                        "days_per_turn": Absent(Nullable(OneOf(DAYS_PER_TURN)), None),
                        "rated": Flag(),
                    },
                ),
                "expires_at": Time(),
            },
        ),
        Members(ChallengeAccepted, {"player_id": Text()}),
        Members(ChallengeDeclined, {"player_id": Text(), "reason": OneOf(list(DECLINE_REASONS))}),
        Members(ChallengeCancelled, {}),
        Members(ChallengeStarted, {"game_id": Text()}),
    ],
)


def event_to_dict(event: ChallengeEvent) -> dict[str, Any]:
    """The event as stored (``type`` and its members, as JSON holds them)."""
    return STORED.to_dict(event)


def event_from_dict(data: dict[str, Any]) -> ChallengeEvent:
    """A stored challenge event, checked member by member (:class:`~engine.CorruptHistory` for one no event holds)."""
    return STORED.from_dict(data)


def envelope(event: ChallengeEvent, *, at: str, by: str) -> str:
    """The stored payload: the event, when it was appended (``at``), who caused it (``by``), its schema version."""
    return STORED.envelope(event, at=at, by=by, v=SCHEMA_VERSION)


def from_envelope(payload: str) -> tuple[ChallengeEvent, str]:
    """The event a stored payload holds, and when it was appended."""
    return STORED.from_envelope(payload)


# --- the fold -------------------------------------------------------------------------


def apply(challenge: Challenge, number: int, event: ChallengeEvent, at: str) -> None:
    """Fold event ``number``, appended at ``at``, into ``challenge``; one that cannot happen there is corrupt history."""
    if number != challenge.version + 1:
        raise CorruptHistory(f"challenge event {number} follows event {challenge.version}")
    if isinstance(event, ChallengeCreated):
        if challenge.version:
            raise CorruptHistory("challenge_created: the challenge exists already")
        challenge.challenger, challenge.challenger_name = event.challenger, event.challenger_name
        challenge.challenged, challenge.terms = event.challenged, event.terms
        challenge.created_at, challenge.expires_at = at, event.expires_at
    elif not challenge.version:
        raise CorruptHistory(f"{event.type}: no challenge was created")
    elif challenge.game_id is not None or challenge.cancelled or challenge.declined_by is not None:
        raise CorruptHistory(f"{event.type}: the challenge is over")
    elif isinstance(event, ChallengeAccepted):
        if not challenge.is_challenged(event.player_id) or event.player_id in challenge.accepted:
            raise CorruptHistory(f"challenge_accepted: {event.player_id} is not a challenged player yet to accept")
        challenge.accepted = (*challenge.accepted, event.player_id)
    elif isinstance(event, ChallengeDeclined):
        if not challenge.is_challenged(event.player_id):
            raise CorruptHistory(f"challenge_declined: {event.player_id} is not challenged")
        challenge.declined_by, challenge.decline_reason = event.player_id, event.reason
    elif isinstance(event, ChallengeCancelled):
        challenge.cancelled = True
    elif isinstance(event, ChallengeStarted):
        if len(challenge.accepted) != len(challenge.challenged):
            raise CorruptHistory("challenge_started: not every challenged player has accepted")
        challenge.game_id = event.game_id
    challenge.version, challenge.updated_at = number, at


def fold(challenge_id: str, stored: Sequence[tuple[int, str]]) -> Challenge:
    """A challenge from its stored events, ``(number, payload)``, oldest first."""
    challenge = Challenge(challenge_id)
    for number, payload in stored:
        event, at = from_envelope(payload)
        apply(challenge, number, event, at)
        challenge.head = payload
    return challenge


# --- commands and the decision ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Create:
    """Challenge ``challenged`` (resolved players) to a game on ``terms``, open until ``expires_at``."""

    challenger: str
    challenger_name: str
    challenged: tuple[Invitee, ...]
    terms: Terms
    expires_at: str


@dataclass(frozen=True, slots=True)
class Accept:
    """A challenged player says yes; ``game_id`` is the game's id should this be the last acceptance."""

    player_id: str
    game_id: str


@dataclass(frozen=True, slots=True)
class Decline:
    player_id: str
    reason: str = "generic"


@dataclass(frozen=True, slots=True)
class Cancel:
    """The challenger withdraws the challenge."""

    player_id: str


ChallengeCommand = Create | Accept | Decline | Cancel


def decide(challenge: Challenge, command: ChallengeCommand, now: datetime) -> list[ChallengeEvent]:
    """The events ``command`` makes on ``challenge`` at ``now`` (none: nothing to do, it is done already), or a
    :class:`~service.common.errors.Refused` with a stable code.  ``challenge`` is not changed."""
    if isinstance(command, Create):
        return _create(command, now)
    if isinstance(command, Accept):
        return _accept(challenge, command, now)
    if isinstance(command, Decline):
        return _decline(challenge, command, now)
    return _cancel(challenge, command, now)


def _create(command: Create, now: datetime) -> list[ChallengeEvent]:
    ids = [invitee.player_id for invitee in command.challenged]
    if not ids:
        raise Refused(
            "invalid_request",
            "Name one to three players to challenge.",
            errors=[{"field": "players", "message": "name 1 to 3 players", "location": "json"}],
        )
    if len(ids) > MAX_CHALLENGED:
        raise Refused(
            "too_many_challenged",
            f"A challenge names at most {MAX_CHALLENGED} players (a table seats four), not {len(ids)}.",
            limit=MAX_CHALLENGED,
        )
    if command.challenger in ids:
        raise Refused("cannot_challenge_yourself", "You are the challenger: name the players you challenge.")
    twice = sorted({i.name for i in command.challenged if ids.count(i.player_id) > 1})
    if twice:
        raise Refused(
            "player_challenged_twice", f"Each player is challenged once; named twice: {', '.join(twice)}.", players=twice
        )
    humans = len(command.terms.human_seats)
    if humans != len(ids) + 1:
        raise Refused(
            "challenge_seats_mismatch",
            f"The seats hold {humans} human seats: a challenge to {len(ids)} player(s) needs {len(ids) + 1}, one for you "
            "and one for each player challenged (the other seats are AI seats).",
            human_seats=humans,
            needed=len(ids) + 1,
        )
    if parse_time(command.expires_at) <= now:
        raise Refused(
            "invalid_request",
            "A challenge expires after it is made.",
            errors=[{"field": "expires_in", "message": "must be in the future", "location": "json"}],
        )
    return [ChallengeCreated(command.challenger, command.challenger_name, command.challenged, command.terms, command.expires_at)]


def _answering(challenge: Challenge, player_id: str, now: datetime) -> None:
    """Refuse an answer (accept, decline) from a player who is not challenged, or to a challenge no longer open."""
    if not challenge.is_challenged(player_id):
        raise Refused(
            "not_challenged", "Only a challenged player accepts or declines a challenge; the challenger cancels it (DELETE)."
        )
    _still_open(challenge, now)


def _still_open(challenge: Challenge, now: datetime) -> None:
    status = challenge.status(now)
    if status == "expired":
        raise Refused("challenge_expired", f"The challenge expired at {challenge.expires_at}.", expires_at=challenge.expires_at)
    if status != "open":
        raise Refused("challenge_not_open", f"The challenge is {status}.", challenge_status=status)


def _accept(challenge: Challenge, command: Accept, now: datetime) -> list[ChallengeEvent]:
    if challenge.is_challenged(command.player_id) and challenge.answer_of(command.player_id) == "accepted":
        return []  # accepted already (the game may have started since): nothing more to do
    _answering(challenge, command.player_id, now)
    events: list[ChallengeEvent] = [ChallengeAccepted(command.player_id)]
    if len(challenge.accepted) + 1 == len(challenge.challenged):
        events.append(ChallengeStarted(command.game_id))
    return events


def _decline(challenge: Challenge, command: Decline, now: datetime) -> list[ChallengeEvent]:
    if command.reason not in DECLINE_REASONS:
        raise Refused(
            "invalid_request",
            f"{command.reason!r} is not a reason; one of {', '.join(DECLINE_REASONS)}.",
            errors=[{"field": "reason", "message": "not a reason key", "location": "json"}],
        )
    _answering(challenge, command.player_id, now)
    return [ChallengeDeclined(command.player_id, command.reason)]


def _cancel(challenge: Challenge, command: Cancel, now: datetime) -> list[ChallengeEvent]:
    if command.player_id != challenge.challenger:
        raise Refused("not_the_challenger", "Only the challenger cancels a challenge; a challenged player declines it.")
    if challenge.cancelled:
        return []  # cancelled already
    _still_open(challenge, now)
    return [ChallengeCancelled()]
