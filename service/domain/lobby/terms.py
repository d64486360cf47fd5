"""The words a table is set up in: seat kinds, AI levels, what a turn that times out becomes, how the deck is dealt,
how a game came to be, the days a correspondence turn may take; and a seat as a new game asks for it.

They are apart from the lobby's events and commands because more than the lobby speaks them: a challenge's terms
(:mod:`service.domain.challenges`), a quick-match ticket (:mod:`service.domain.matchmaking`), the API's schemas and
the replay checker all offer or check the same choices.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.codec import Absent, Members, Nullable, OneOf, Text

AI_LEVELS = ("random", "greedy", "expert")
SEAT_KINDS = ("human", "ai")
TIMEOUT_ACTIONS = ("fold", "ai")
DEALINGS = ("random", "seeded", "custom")
#: How a game came to be: created directly, from the open tables' list, a quick match, a challenge, a rematch.
ORIGINS = ("direct", "open_table", "quick_match", "challenge", "rematch", "tournament")
#: Days a correspondence turn may take (what correspondence players are used to choosing from).
DAYS_PER_TURN = (1, 2, 3, 5, 7, 10, 14)


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat as a new game is set up: a human seat to fill, or an AI of a level."""

    kind: str
    level: str | None = None


def seat_problem(seat: SeatSpec) -> str | None:
    """What makes ``seat`` no seat of ours (a human seat has no level, an AI seat one of :data:`AI_LEVELS`), or
    ``None``: the one rule wherever a seat is stored (a game's creation, a challenge's terms)."""
    if seat.kind == "ai" and seat.level not in AI_LEVELS:
        return f"{seat.level!r} is not an AI level"
    if seat.kind == "human" and seat.level is not None:
        return "a human seat has no level"
    return None


#: A seat as a game's creation and a challenge's terms store it: ``{"kind": ..., "level": ...}``.
SEAT_FORM = Members(SeatSpec, {"kind": OneOf(SEAT_KINDS), "level": Absent(Nullable(Text()), None)}, check=seat_problem)
