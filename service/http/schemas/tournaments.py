"""What tournament requests may carry and what their answers hold (rendered by ``service.http.routes.tournaments``).

A create's terms are read here for their shape only; whether they make a tournament (a group size the table size
allows, rounds a round robin has, a time control and only one) is the domain's to say, with
``invalid_tournament_settings`` naming the setting (:mod:`service.domain.tournaments.settings`)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, post_load, validate

from service.application.tournaments import STATUSES
from service.domain.lobby import AI_LEVELS, DAYS_PER_TURN
from service.domain.tournaments import FORMATS, ODD_RULES, SEAT_ROTATIONS, TIME_CONTROLS
from service.http.schemas.base import Strict

VARIANTS = ("basic", "advanced")


def _choice(values: tuple[str, ...], description: str, default: str | None = None) -> fields.String:
    extra: dict[str, Any] = {} if default is None else {"load_default": default}
    return fields.String(validate=validate.OneOf(values), metadata={"description": description, "enum": list(values)}, **extra)


def _count(low: int, high: int, description: str, default: int | None = None, **more: Any) -> fields.Integer:
    extra: dict[str, Any] = {} if default is None else {"load_default": default}
    return fields.Integer(strict=True, validate=validate.Range(low, high), metadata={"description": description}, **extra, **more)


# --- requests -----------------------------------------------------------------------


class TournamentCreateSchema(Strict):
    name = fields.String(required=True, validate=validate.Length(1, 80), metadata={"example": "Autumn Swiss"})
    format = _choice(FORMATS, "Swiss (paired by score) or round robin (groups)", "swiss")
    table_size = _count(2, 4, "seats at each table", 3)
    rounds = _count(1, 30, "how many rounds (a round robin: as its groups' schedule has)", 5)
    entries_open = fields.AwareDateTime(metadata={"description": "when entries open (default: now)"})
    entries_close = fields.AwareDateTime(required=True, metadata={"description": "when entries close; round 1 starts then"})
    min_players = _count(2, 10_000, "fewer at entries' close: the tournament does not start", 4)
    max_players = _count(2, 10_000, "entries stop at this many", 64)
    group_size = _count(2, 20, "round robin: players per group", allow_none=True)
    meetings = _count(1, 4, "round robin: how often each pair of a group meets", 1)
    odd_rule = _choice(ODD_RULES, "a seat the field leaves empty: an AI seat, or a bye", "ai_seat")
    ai_level = _choice(AI_LEVELS, "the AI that takes empty seats and withdrawn players' seats", "greedy")
    time_control = _choice(TIME_CONTROLS, "live (turn_timeout) or correspondence (days_per_turn)", "correspondence")
    turn_timeout = _count(5, 30 * 24 * 3600, "live: seconds a turn may take", allow_none=True)
    days_per_turn = fields.Integer(
        strict=True, validate=validate.OneOf(DAYS_PER_TURN), metadata={"description": "correspondence: days a turn may take (1)"}
    )
    round_days = _count(1, 365, "correspondence: a round's deadline, in days; running games are then settled", allow_none=True)
    vacation_days_per_round = _count(0, 30, "vacation honoured per round, in days", 0)
    variant = _choice(VARIANTS, "the rules played", "advanced")
    action_rules = fields.Boolean(load_default=False, truthy={True}, falsy={False})
    rated = fields.Boolean(load_default=False, truthy={True}, falsy={False}, metadata={"description": "not with duplicate"})
    late_entry_rounds = _count(0, 29, "Swiss: entries stay open until this round has started", 0)
    rating_min = _count(0, 4000, "entry gate: the lowest rating that may enter", allow_none=True)
    rating_max = _count(0, 4000, "entry gate: the highest rating that may enter", allow_none=True)
    min_finished_percent = _count(0, 100, "entry gate: the share of recent games an entrant finished", allow_none=True)
    duplicate = fields.Boolean(load_default=False, truthy={True}, falsy={False})
    seat_rotation = _choice(SEAT_ROTATIONS, "duplicate: how seats turn between tables or rounds", "by_round")
    timeouts_to_withdraw = _count(1, 10, "timed-out turns that withdraw a player", 2)

    @post_load
    def _terms(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if data.get("time_control") == "live":
            data["days_per_turn"] = None  # a live tournament's turns are timed by turn_timeout alone
        elif "days_per_turn" not in data:
            data["days_per_turn"] = 1
        return data


class TournamentsQuerySchema(Strict):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={"description": "only tournaments that stand so now"})
    format = fields.String(validate=validate.OneOf(FORMATS))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Length(1, 100), metadata={"description": "the next_cursor of the page before"})


# --- responses ----------------------------------------------------------------------


class _TournamentFacts(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    organiser = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    format = fields.String(required=True)
    table_size = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    time_control = fields.String(required=True)
    variant = fields.String(required=True)
    rated = fields.Boolean(required=True)
    duplicate = fields.Boolean(required=True)
    entries_open = fields.String(required=True)
    entries_close = fields.String(required=True)
    max_players = fields.Integer(required=True)
    started = fields.Integer(required=True, metadata={"description": "rounds started"})
    finished = fields.String(required=True, allow_none=True, metadata={"description": "why it ended, once it has"})
    created_at = fields.String(required=True)


class TournamentSummarySchema(_TournamentFacts):
    entrants = fields.Integer(required=True, metadata={"description": "how many are in the field"})


class EntrantSchema(Schema):
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    rating = fields.Integer(required=True, metadata={"description": "at entry"})
    withdrawn = fields.String(required=True, allow_none=True, metadata={"description": "choice or timeouts, once withdrawn"})


class TournamentSchema(_TournamentFacts):
    entrants = fields.List(fields.Nested(EntrantSchema), required=True)
    settings = fields.Dict(required=True, metadata={"description": "every term as it was chosen"})
    version = fields.Integer(required=True)


class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSummarySchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class StandingSchema(Schema):
    rank = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    points = fields.Float(required=True, metadata={"description": "from each game's place (docs/tournaments.md)"})
    games = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    firsts = fields.Integer(required=True)
    buchholz = fields.Float(required=True, metadata={"description": "Swiss: the opponents' points"})
    head_to_head = fields.Integer(required=True, metadata={"description": "round robin: against those tied"})
    average_place = fields.Float(required=True, allow_none=True)
    duplicate = fields.Float(required=True, allow_none=True, metadata={"description": "duplicate tournaments: the score"})
    withdrawn = fields.String(required=True, allow_none=True)


class StandingsSchema(Schema):
    tournament_id = fields.String(required=True)
    groups = fields.List(fields.List(fields.Nested(StandingSchema)), required=True, metadata={"description": "a Swiss: one"})


class RoundTableSchema(Schema):
    game_id = fields.String(required=True)
    seats = fields.List(fields.String(allow_none=True), required=True, metadata={"description": "null: an AI seat"})
    places = fields.List(fields.Integer(), required=True, allow_none=True)


class DealSchema(Schema):
    size = fields.Integer(required=True)
    seed = fields.Integer(required=True)


class TournamentRoundSchema(Schema):
    tournament_id = fields.String(required=True)
    number = fields.Integer(required=True)
    closed = fields.Boolean(required=True)
    deadline = fields.String(required=True, allow_none=True)
    tables = fields.List(fields.Nested(RoundTableSchema), required=True)
    byes = fields.List(fields.String(), required=True)
    settled = fields.List(fields.String(), required=True)
    deals = fields.List(fields.Nested(DealSchema), required=True, metadata={"description": "a duplicate round's, once closed"})
    your_game = fields.String(required=True, allow_none=True)
