"""Tournaments: listed and filtered, made, read, entered and left, their standings and rounds.

The reads of one tournament do what is due on it first (:meth:`TournamentService.tick`: the first round once entries
close, a round's missing games, a finished game not yet folded in), so a tournament read after its time is never
shown behind it."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.commands import Idempotency
from service.application.players import Player
from service.application.tournaments import TournamentService
from service.common.errors import NotFound
from service.domain.tournaments import Settings, Standing, Tournament
from service.http.auth import current_player
from service.http.common import (
    PRIVATE,
    PUBLIC,
    TOKEN,
    TOKEN_OR_NONE,
    documented_errors,
    json_response,
    red7_runtime,
    response_headers,
    v1,
)
from service.http.examples import example
from service.http.idempotency import REPLAYED, idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.schemas.tournaments import (
    StandingsSchema,
    TournamentCreateSchema,
    TournamentListSchema,
    TournamentRoundSchema,
    TournamentSchema,
    TournamentsQuerySchema,
)


def tournament_service() -> TournamentService:
    service = red7_runtime().tournaments
    assert service is not None  # the runtime always builds it
    return service


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def tournament_json(t: Tournament) -> dict[str, Any]:
    service = tournament_service()
    view = service.view(t)
    settings = {name: getattr(t.terms, name) for name in Settings.__dataclass_fields__}
    return {**view, "settings": settings, "version": t.version}


def _ticked(tournament_id: str) -> Tournament:
    service = tournament_service()
    service.tick(tournament_id)
    return service.get(tournament_id)


def _number(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def standing_json(line: Standing) -> dict[str, Any]:
    return {
        "rank": line.rank,
        "player_id": line.player_id,
        "name": line.name,
        "points": float(line.points),
        "games": line.games,
        "byes": line.byes,
        "firsts": line.firsts,
        "buchholz": float(line.buchholz),
        "head_to_head": line.head_to_head,
        "average_place": _number(line.average_place),
        "duplicate": _number(line.duplicate),
        "withdrawn": line.withdrawn,
    }


def _idempotency(player: Player) -> Idempotency | None:
    return idempotency(player.id, red7_runtime().settings.idempotency_ttl)


@v1.route("/tournaments")
class Tournaments(MethodView):
    @documented_errors(422, 429)
    @v1.arguments(TournamentsQuerySchema(), location="query")
    @v1.response(200, TournamentListSchema, example=example("TournamentList"))
    @v1.doc(operationId="listTournaments", security=PUBLIC)
    def get(self, query: dict[str, Any]) -> Response:
        """Tournaments, newest first, a page at a time; ``status`` and ``format`` keep those that stand so now."""
        page = tournament_service().list_tournaments(
            status=query.get("status"), format=query.get("format"), limit=query["limit"], cursor=query.get("cursor")
        )
        return json_response({"tournaments": page.tournaments, "next_cursor": page.next_cursor}, 200)

    @documented_errors(400, 401, 409, 413, 415, 422, 429)
    @v1.arguments(TournamentCreateSchema(), example=example("TournamentCreate"))
    @v1.response(
        201, TournamentSchema, headers=response_headers("Location", "Idempotent-Replayed"), example=example("Tournament")
    )
    @v1.doc(operationId="createTournament", security=TOKEN, parameters=[idempotency_parameter("makes no second tournament")])
    def post(self, body: dict[str, Any]) -> Response:
        """Organise a tournament: Swiss or round robin, tables of 2 to 4, live or correspondence, optionally with
        duplicate deals (docs/tournaments.md states every rule). Its terms never change once it is made; terms that
        make no tournament are ``invalid_tournament_settings``, naming the setting (``problem``)."""
        player = current_player()
        service = tournament_service()
        name = body.pop("name")
        body["entries_open"] = _iso(body.get("entries_open") or service.now())
        body["entries_close"] = _iso(body["entries_close"])
        made, replayed = service.create(player, name, Settings(**body), _idempotency(player))
        response = json_response(tournament_json(made), 201, {**PRIVATE, **(REPLAYED if replayed else {})})
        response.headers["Location"] = f"/v1/tournaments/{made.id}"
        return response


@v1.route("/tournaments/<tournament_id>")
class TournamentResource(MethodView):
    @documented_errors(404, 429)
    @v1.response(200, TournamentSchema, example=example("Tournament"))
    @v1.doc(operationId="getTournament", security=PUBLIC)
    def get(self, tournament_id: str) -> Response:
        """A tournament: its terms, status, entrants and rounds started."""
        return json_response(tournament_json(_ticked(tournament_id)), 200)


@v1.route("/tournaments/<tournament_id>/entries")
class TournamentEntries(MethodView):
    @documented_errors(401, 403, 404, 409, 429)
    @v1.response(200, TournamentSchema, example=example("Tournament"))
    @v1.doc(operationId="joinTournament", security=TOKEN)
    def post(self, tournament_id: str) -> Response:
        """Enter a tournament while entries are open (a Swiss with late entry: until its round has started). Its gates
        are checked now: ``rating_out_of_range``, ``record_too_low``; ``tournament_full``, ``entries_closed``,
        ``already_entered``, ``tournament_withdrawn`` (a withdrawal is final)."""
        player = current_player()
        after, _ = tournament_service().join(tournament_id, player)
        return json_response(tournament_json(after), 200, PRIVATE)

    @documented_errors(401, 403, 404, 409, 429)
    @v1.response(200, TournamentSchema, example=example("Tournament"))
    @v1.doc(operationId="withdrawFromTournament", security=TOKEN)
    def delete(self, tournament_id: str) -> Response:
        """Withdraw from a tournament, for good: an AI of the tournament's level plays out your seats in games still
        running; you are paired no more. Withdrawing again changes nothing."""
        player = current_player()
        return json_response(tournament_json(tournament_service().withdraw(tournament_id, player)), 200, PRIVATE)


@v1.route("/tournaments/<tournament_id>/standings")
class TournamentStandings(MethodView):
    @documented_errors(404, 429)
    @v1.response(200, StandingsSchema, example=example("Standings"))
    @v1.doc(operationId="getTournamentStandings", security=PUBLIC)
    def get(self, tournament_id: str) -> Response:
        """The standings with every tie-break, computed from the games' places on each read (live as games end): one
        list for a Swiss, one per group for a round robin."""
        _ticked(tournament_id)
        t, groups = tournament_service().standings(tournament_id)
        body = {"tournament_id": t.id, "groups": [[standing_json(line) for line in group] for group in groups]}
        return json_response(body, 200)


@v1.route("/tournaments/<tournament_id>/rounds/<number>")
class TournamentRound(MethodView):
    @documented_errors(404, 429)
    @v1.response(200, TournamentRoundSchema, example=example("TournamentRound"))
    @v1.doc(operationId="getTournamentRound", security=TOKEN_OR_NONE)
    def get(self, tournament_id: str, number: str) -> Response:
        """A round: its tables and games, byes, deadline, and each game's places once known. A duplicate round's deal
        seeds are shown once it has closed.

        The token is optional: with it, ``your_game`` names the game you play in this round."""
        _ticked(tournament_id)
        viewer = current_player(required=False)
        if not number.isdigit() or len(number) > 3:
            raise NotFound("tournament_round_not_found", f"Round {number[:8]} of this tournament has not started.")
        body = tournament_service().round_view(tournament_id, int(number), viewer.id if viewer else None)
        return json_response(body, 200, PRIVATE if viewer else None)
