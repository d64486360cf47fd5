"""A quick-match ticket and the kind of game it waits for: what must be equal, and what must be near, to share a table.

Tickets of one kind only (:class:`Kind`: variant, action rules, rated or not, the time control) can ever share a
table, so the kind names the pool a ticket waits in.  Inside a pool tickets differ in the player counts they accept
(2 to 4), their rating and the range around it that widens as they wait (:class:`RatingRange`), and whether their
empty seats may become AI seats after a while (``ai_fill_after``, of a level).  A ticket is stored whole in the
``ticket_opened`` event and in its player's index once it is over (:data:`TICKET_FORM`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import CorruptHistory, Variant
from service.common.errors import Refused
from service.domain.codec import Integer, Many, Members, Nullable, Row, Text
from service.domain.lobby import AI_LEVELS, DAYS_PER_TURN

#: The player counts a ticket may accept.
PLAYER_COUNTS = (2, 3, 4)
#: A live ticket's time control: seconds per turn, from these (fewer pools, each fuller, than any number would make).
LIVE_TURN_SECONDS = (30, 60, 120, 300)
#: A ticket's rating when its player has none on the kind's ladder.
DEFAULT_RATING = 1000  # a new player's displayed rating (service.domain.ratings.NEW; tests/service/domain/test_matchmaking.py)

MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class Kind:
    """What two tickets must agree on to share a table; its :attr:`key` names the pool."""

    variant: str = Variant.ADVANCED.value
    action_rules: bool = False
    rated: bool = False
    turn_seconds: int | None = 60
    days_per_turn: int | None = None

    def __post_init__(self) -> None:
        if self.variant not in tuple(v.value for v in Variant):
            raise Refused("invalid_request", f"{self.variant!r} is not a variant.", field="variant")
        if (self.turn_seconds is None) == (self.days_per_turn is None):
            raise Refused(
                "invalid_request",
                "A ticket has a live turn limit (turn_seconds) or days per turn, not both.",
                field="days_per_turn",
            )
        if self.turn_seconds is not None and self.turn_seconds not in LIVE_TURN_SECONDS:
            raise Refused("invalid_request", f"turn_seconds is one of {LIVE_TURN_SECONDS}.", field="turn_seconds")
        if self.days_per_turn is not None and self.days_per_turn not in DAYS_PER_TURN:
            raise Refused("invalid_request", f"days_per_turn is one of {DAYS_PER_TURN}.", field="days_per_turn")

    @property
    def live(self) -> bool:
        return self.turn_seconds is not None

    @property
    def key(self) -> str:
        """``advanced-plain-casual-60s``, ``basic-actions-rated-3d``: letters, digits and ``-`` only."""
        clock = f"{self.turn_seconds}s" if self.turn_seconds is not None else f"{self.days_per_turn}d"
        return "-".join((self.variant, "actions" if self.action_rules else "plain", "rated" if self.rated else "casual", clock))

    @classmethod
    def parse(cls, key: str) -> Kind:
        try:
            variant, rules, rated, clock = key.split("-")
            number = int(clock[:-1])
            if rules not in ("actions", "plain") or rated not in ("rated", "casual") or clock[-1:] not in ("s", "d"):
                raise ValueError(key)
            live = clock[-1] == "s"
            return cls(variant, rules == "actions", rated == "rated", number if live else None, None if live else number)
        except (ValueError, Refused):
            raise CorruptHistory(f"{key!r} names no pool") from None


@dataclass(frozen=True, slots=True)
class RatingRange:
    """``start`` either side of the ticket's rating, wider by ``widen`` a minute of waiting, up to ``most``."""

    start: int = 100
    widen: int = 100
    most: int = 500

    def width(self, waited_ms: int) -> int:
        return min(self.most, self.start + self.widen * max(0, waited_ms) // MINUTE_MS)


@dataclass(frozen=True, slots=True)
class Ticket:
    """A player waiting for a table: the counts they accept, their rating and range, how long until AIs fill in."""

    id: str
    player_id: str
    name: str
    counts: tuple[int, ...]
    rating: int
    range: RatingRange
    opened: int  # ms
    expires: int  # ms
    ai_fill_after: int | None = None  # ms after opening; None: never
    ai_level: str = "greedy"

    def waited(self, now: int) -> int:
        return max(0, now - self.opened)

    def width(self, now: int) -> int:
        return self.range.width(self.waited(now))

    def expired(self, now: int) -> bool:
        return now >= self.expires

    def ai_due(self, now: int) -> bool:
        return self.ai_fill_after is not None and self.waited(now) >= self.ai_fill_after

    def problem(self) -> str | None:
        """What makes this no ticket the service takes, or ``None``."""
        if not self.id or not self.player_id:
            return "a ticket has an id and a player"
        if not self.counts or sorted(set(self.counts)) != list(self.counts) or not set(self.counts) <= set(PLAYER_COUNTS):
            return f"player_counts are some of {list(PLAYER_COUNTS)}, each once"
        if not 0 <= self.range.start <= self.range.most or self.range.widen < 0:
            return "a rating range starts at 0 or more, widens by 0 or more, and is at most its maximum"
        if self.ai_fill_after is not None and self.ai_fill_after < 0:
            return "ai_fill_after is 0 or more seconds"
        if self.ai_level not in AI_LEVELS:
            return f"ai_level is one of {', '.join(AI_LEVELS)}"
        if self.expires <= self.opened:
            return "a ticket expires after it is opened"
        return None


def compatible(a: Ticket, b: Ticket, now: int) -> bool:
    """Each of the two within the other's rating range as it has widened by ``now``."""
    gap = abs(a.rating - b.rating)
    return gap <= a.width(now) and gap <= b.width(now)


#: A ticket as stored: its members in an object, its rating range as ``[start, widen, most]``.
TICKET_FORM = Members(
    Ticket,
    {
        "id": Text(),
        "player_id": Text(),
        "name": Text(),
        "counts": Many(Integer()),
        "rating": Integer(),
        "range": Row(RatingRange, Integer()),
        "opened": Integer(),
        "expires": Integer(),
        "ai_fill_after": Nullable(Integer()),
        "ai_level": Text(),
    },
    check=Ticket.problem,
)


def ticket_to_dict(ticket: Ticket) -> dict[str, Any]:
    return TICKET_FORM.write(ticket)


def ticket_from_dict(data: Any) -> Ticket:
    """A stored ticket (in an event, a pool's snapshot, a closed entry of its player's index), checked."""
    return TICKET_FORM.read(data, "ticket_opened: ticket")
