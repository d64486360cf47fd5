"""What an organiser chooses when a tournament is made, the form it is stored in, and what makes a choice none of ours.

The settings are decided once, in the ``tournament_created`` event, and never change: every later decision (who may
enter, how a round is paired, how a game is scored) reads them from the fold, so a tournament replayed from its
stream is decided the same way whatever the code's defaults have become since.

Round robin's shape is fixed by three numbers, checked here so that no round can be asked for that the schedule
does not have: tables of ``table_size``, groups of ``group_size``, every pair of a group meeting ``meetings`` times.
The group sizes a table size allows are those whose schedule is exact (:mod:`service.domain.tournaments.pairing`):
tables of 2, any group (the circle method); tables of 3 or 4, a group of the table's size (the whole group at one
table) or of its square (the affine plane of that order: every pair meets once in ``table_size + 1`` rounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine import Variant
from service.domain.codec import Absent, Flag, Integer, Members, Nullable, OneOf, Time
from service.domain.lobby import AI_LEVELS, DAYS_PER_TURN

FORMATS = ("swiss", "round_robin")
#: What fills a seat a field's count leaves empty: an AI seat (of ``ai_level``), or a bye (no game that round).
ODD_RULES = ("ai_seat", "bye")
TIME_CONTROLS = ("live", "correspondence")
#: How a duplicate round's seats are turned: ``none`` (the pairing's order), ``by_table`` (table ``t`` turned by
#: ``t`` seats), ``by_round`` (round ``r`` turned by ``r - 1`` seats: over the rounds each player holds each seat).
SEAT_ROTATIONS = ("none", "by_table", "by_round")
TABLE_SIZES = (2, 3, 4)
MAX_ROUNDS = 30
MAX_MEETINGS = 4
MAX_PLAYERS = 10_000
#: The largest group tables of 2 allow (a cycle of ``group_size - 1`` rounds, or ``group_size`` if odd).
MAX_PAIR_GROUP = 20
MAX_TIMEOUTS = 10


@dataclass(frozen=True, slots=True)
class Settings:
    """A tournament's terms, as the organiser chose them (the module says why they never change).

    Times are ISO texts as the service writes them; ``entries_close`` is also the earliest a first round starts.
    ``late_entry_rounds`` (Swiss only): a player may still enter until round ``late_entry_rounds + 1`` starts.
    ``round_days`` (correspondence only): a round's deadline, days after it starts; games still running then are
    settled (:mod:`service.domain.tournaments.decision`).  ``min_finished_percent``: the entry gate on a player's
    record (the share of their last counted games they finished rather than lost on time).
    """

    format: str
    table_size: int
    rounds: int
    entries_open: str
    entries_close: str
    min_players: int
    max_players: int
    group_size: int | None = None
    meetings: int = 1
    odd_rule: str = "ai_seat"
    ai_level: str = "greedy"
    time_control: str = "correspondence"
    turn_timeout: int | None = None
    days_per_turn: int | None = 1
    round_days: int | None = None
    vacation_days_per_round: int = 0
    variant: str = Variant.ADVANCED.value
    action_rules: bool = False
    rated: bool = False
    late_entry_rounds: int = 0
    rating_min: int | None = None
    rating_max: int | None = None
    min_finished_percent: int | None = None
    duplicate: bool = False
    seat_rotation: str = "by_round"
    timeouts_to_withdraw: int = 2


#: How the settings are stored, inside ``tournament_created``.
SETTINGS_FORM: Members[Settings] = Members(
    Settings,
    {
        "format": OneOf(FORMATS),
        "table_size": OneOf(TABLE_SIZES),
        "rounds": Integer(1),
        "entries_open": Time(),
        "entries_close": Time(),
        "min_players": Integer(2),
        "max_players": Integer(2),
        "group_size": Nullable(Integer(2)),
        "meetings": Integer(1),
        "odd_rule": OneOf(ODD_RULES),
        "ai_level": OneOf(AI_LEVELS),
        "time_control": OneOf(TIME_CONTROLS),
        "turn_timeout": Nullable(Integer(1)),
        "days_per_turn": Nullable(OneOf(DAYS_PER_TURN)),
        "round_days": Nullable(Integer(1)),
        "vacation_days_per_round": Integer(0),
        "variant": OneOf([v.value for v in Variant]),
        "action_rules": Flag(),
        "rated": Flag(),
        "late_entry_rounds": Integer(0),
        "rating_min": Nullable(Integer()),
        "rating_max": Nullable(Integer()),
        "min_finished_percent": Nullable(Integer(0)),
        "duplicate": Flag(),
        "seat_rotation": OneOf(SEAT_ROTATIONS),
        "timeouts_to_withdraw": Absent(Integer(1), 2),
    },
    check=lambda s: settings_problem(s),
)


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as the service writes it (``...Z``)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_time(at: datetime) -> str:
    """A time as the service writes it: UTC, milliseconds, ``Z``."""
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def group_sizes(table_size: int) -> tuple[int, ...]:
    """The group sizes whose round-robin schedule is exact at tables of ``table_size`` (the module says which)."""
    if table_size == 2:
        return tuple(range(2, MAX_PAIR_GROUP + 1))
    return (table_size, table_size * table_size)


def rounds_per_meeting(group_size: int, table_size: int) -> int:
    """How many rounds a group needs for every pair to meet once (the length of one cycle of its schedule)."""
    if table_size == 2:
        return group_size - 1 if group_size % 2 == 0 else group_size
    if group_size == table_size:
        return 1
    return table_size + 1  # the affine plane of order table_size: its parallel classes


def settings_problem(s: Settings) -> str | None:
    """What makes ``s`` no tournament of ours, for people, or ``None``: a refusal's detail and a reader's check."""
    problems = [
        (s.table_size not in TABLE_SIZES, "a table seats 2 to 4 players"),
        (not 1 <= s.rounds <= MAX_ROUNDS, f"a tournament has 1 to {MAX_ROUNDS} rounds"),
        (
            not s.table_size <= s.min_players <= s.max_players <= MAX_PLAYERS,
            f"the table size <= min_players <= max_players <= {MAX_PLAYERS}",
        ),
        (parse_time(s.entries_open) >= parse_time(s.entries_close), "entries open before they close"),
        ((s.time_control == "live") != (s.turn_timeout is not None), "a live tournament, and only one, has a turn_timeout"),
        (
            (s.time_control == "correspondence") != (s.days_per_turn is not None),
            "a correspondence tournament, and only one, has days_per_turn",
        ),
        (s.round_days is not None and s.time_control != "correspondence", "only correspondence rounds have round_days"),
        (
            s.rating_min is not None and s.rating_max is not None and s.rating_min > s.rating_max,
            "rating_min is at most rating_max",
        ),
        (s.min_finished_percent is not None and s.min_finished_percent > 100, "min_finished_percent is 0 to 100"),
        (not 1 <= s.timeouts_to_withdraw <= MAX_TIMEOUTS, f"timeouts_to_withdraw is 1 to {MAX_TIMEOUTS}"),
    ]
    if s.format == "swiss":
        problems += [
            (s.group_size is not None or s.meetings != 1, "a Swiss tournament has no groups"),
            (s.late_entry_rounds >= s.rounds, "late entry closes before the last round"),
        ]
    else:
        cycle = rounds_per_meeting(s.group_size, s.table_size) if s.group_size in group_sizes(s.table_size) else 0
        problems += [
            (not cycle, f"groups at tables of {s.table_size} have {_sizes(s.table_size)} players"),
            (not 1 <= s.meetings <= MAX_MEETINGS, f"pairs meet 1 to {MAX_MEETINGS} times"),
            (bool(cycle) and s.rounds != cycle * s.meetings, f"a round robin of these groups has {cycle * s.meetings} rounds"),
            (s.late_entry_rounds != 0, "a round robin takes no late entries"),
        ]
    return next((detail for wrong, detail in problems if wrong), None)


def _sizes(table_size: int) -> str:
    sizes = group_sizes(table_size)
    return f"{sizes[0]} to {sizes[-1]}" if table_size == 2 else " or ".join(map(str, sizes))
