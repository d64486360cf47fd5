"""Quick match: a player's tickets — open one, read it (matched: its game), call it off."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.matchmaking import MatchService, TicketRequest, TicketView, iso
from service.http.auth import current_player
from service.http.common import PRIVATE, TOKEN, documented_errors, json_response, red7_runtime, response_headers, v1
from service.http.examples import example
from service.http.idempotency import REPLAYED, idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.schemas import MatchTicketCreateSchema, MatchTicketSchema


def match_service() -> MatchService:
    return red7_runtime().matches


def ticket_json(view: TicketView) -> dict[str, Any]:
    """A ticket as its player reads it (``MatchTicketSchema``)."""
    ticket, kind = view.ticket, view.kind
    low, high = view.rating_range_now
    return {
        "id": ticket.id,
        "status": view.status,
        "game_id": view.game_id,
        "player_counts": list(ticket.counts),
        "variant": kind.variant,
        "action_rules": kind.action_rules,
        "rated": kind.rated,
        "turn_seconds": kind.turn_seconds,
        "days_per_turn": kind.days_per_turn,
        "rating": ticket.rating,
        "rating_range_now": {"low": low, "high": high},
        "rating_range": ticket.range.start,
        "rating_range_widen": ticket.range.widen,
        "rating_range_max": ticket.range.most,
        "ai_fill_after": None if ticket.ai_fill_after is None else ticket.ai_fill_after / 1000,
        "ai_level": ticket.ai_level,
        "created_at": iso(ticket.opened),
        "expires_at": iso(ticket.expires),
        "waited_seconds": view.waited_ms / 1000,
        "closed_at": None if view.closed_at is None else iso(view.closed_at),
    }


@v1.route("/match-tickets")
class MatchTickets(MethodView):
    @documented_errors(400, 401, 403, 409, 413, 415, 422, 429, rated_seat=True)
    @v1.arguments(MatchTicketCreateSchema(), required=False, example=example("MatchTicketCreate"))
    @v1.response(
        201, MatchTicketSchema, headers=response_headers("Location", "Idempotent-Replayed"), example=example("MatchTicket")
    )
    @v1.doc(operationId="createMatchTicket", security=TOKEN, parameters=[idempotency_parameter("opens no second ticket")])
    def post(self, request: TicketRequest) -> Response:
        """Ask for a quick match: the ticket waits (you need not stay connected) until a table of players who want the
        same kind of game sits down, then names your game; you hear of it by webhook (`match_found`) too.  One open
        ticket per kind of game (409 `match_ticket_already_open`), a few in all (409 `match_ticket_limit_reached`)."""
        player = current_player()
        view = match_service().create(player, request, idempotency(player.id, red7_runtime().settings.idempotency_ttl))
        headers = {"Location": f"/v1/match-tickets/{view.ticket.id}", **PRIVATE, **(REPLAYED if view.replayed else {})}
        return json_response(ticket_json(view), 201, headers)


@v1.route("/match-tickets/<ticket_id>")
class MatchTicketResource(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(200, MatchTicketSchema, example=example("MatchTicket"))
    @v1.doc(operationId="getMatchTicket", security=TOKEN)
    def get(self, ticket_id: str) -> Response:
        """Your ticket now: waiting (how long, the ratings it takes now), matched (your game), cancelled or expired."""
        return json_response(ticket_json(match_service().get(current_player(), ticket_id)), 200, PRIVATE)

    @documented_errors(401, 404, 409, 429)
    @v1.response(200, MatchTicketSchema, example=example("MatchTicket"))
    @v1.doc(operationId="cancelMatchTicket", security=TOKEN)
    def delete(self, ticket_id: str) -> Response:
        """Stop waiting: the ticket is cancelled (one over already is answered as it is; a matched one is 409
        `match_ticket_matched`, naming your game)."""
        return json_response(ticket_json(match_service().cancel(current_player(), ticket_id)), 200, PRIVATE)
