"""Challenges: made to named players, accepted, declined, cancelled, read, and each player's inbox of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Response
from flask.views import MethodView

from service.application.challenges import Challenge, ChallengeOutcome, ChallengeService, NewChallenge
from service.application.commands import Idempotency
from service.application.players import Player
from service.http.auth import current_player
from service.http.common import PRIVATE, TOKEN, documented_errors, json_response, red7_runtime, response_headers, v1
from service.http.examples import example
from service.http.idempotency import REPLAYED, idempotency
from service.http.idempotency import parameter as idempotency_parameter
from service.http.schemas.challenges import (
    ChallengeCreateSchema,
    ChallengeDeclineSchema,
    ChallengeListSchema,
    ChallengeSchema,
    ChallengesQuerySchema,
)


def challenge_service() -> ChallengeService:
    return red7_runtime().challenges


def challenge_json(challenge: Challenge, viewer: str, now: datetime) -> dict[str, Any]:
    """A challenge as one of its players sees it (all of them see the same, but for ``role``), at ``now``."""
    terms = challenge.terms
    return {
        "id": challenge.id,
        "version": challenge.version,
        "status": challenge.status(now),
        "role": "challenger" if viewer == challenge.challenger else "challenged",
        "challenger": {"id": challenge.challenger, "name": challenge.challenger_name},
        "challenged": [
            {"id": invitee.player_id, "name": invitee.name, "answer": challenge.answer_of(invitee.player_id)}
            for invitee in challenge.challenged
        ],
        "seats": [{"kind": seat.kind, "level": seat.level} for seat in terms.seats],
        "variant": terms.variant,
        "action_rules": terms.action_rules,
        "turn_timeout": terms.turn_timeout,
        "timeout_action": terms.timeout_action,
        "days_per_turn": terms.days_per_turn,
        "rated": terms.rated,
        "created_at": challenge.created_at,
        "updated_at": challenge.updated_at,
        "expires_at": challenge.expires_at,
        "decline_reason": challenge.decline_reason,
        "game_id": challenge.game_id,
    }


def _answer(challenge: Challenge, player: Player, status: int = 200, *, replayed: bool = False) -> Response:
    body = challenge_json(challenge, player.id, challenge_service().now())
    return json_response(body, status, {**PRIVATE, **(REPLAYED if replayed else {})})


def _outcome(outcome: ChallengeOutcome, player: Player) -> Response:
    return _answer(outcome.challenge, player, replayed=outcome.replayed)


def _idempotency(player: Player) -> Idempotency | None:
    return idempotency(player.id, red7_runtime().settings.idempotency_ttl)


@v1.route("/challenges")
class Challenges(MethodView):
    @documented_errors(400, 401, 403, 409, 413, 415, 422, 429, rated_seat=True)
    @v1.arguments(ChallengeCreateSchema(), example=example("ChallengeCreate"))
    @v1.response(201, ChallengeSchema, headers=response_headers("Location", "Idempotent-Replayed"), example=example("Challenge"))
    @v1.doc(operationId="createChallenge", security=TOKEN, parameters=[idempotency_parameter("makes no second challenge")])
    def post(self, request: NewChallenge) -> Response:
        """Challenge one to three players, named by handle, to a game; it starts once every one of them has accepted.

        The players challenged are told by webhook (``challenge_received``) and find it in their inbox. It stays open
        until its ``expires_at``; you may have ``RED7_MAX_OPEN_CHALLENGES`` (20) open at once
        (``challenge_limit_reached``), and one open challenge per player challenged (``already_challenged``, however
        many are sent at once); a player may have ``RED7_MAX_CHALLENGES_RECEIVED`` (20) open challenges waiting for
        their answer (``challenge_inbox_full``, naming them: nothing is made). Challenges made from one address draw
        on a budget of their own (``RED7_RATE_LIMIT_CHALLENGE``, 60 an hour: 429 past it), so that many new accounts
        cannot flood inboxes either.
        """
        player = current_player()
        outcome = challenge_service().create(player, request, _idempotency(player))
        response = _answer(outcome.challenge, player, 201, replayed=outcome.replayed)
        response.headers["Location"] = f"/v1/challenges/{outcome.challenge.id}"
        return response

    @documented_errors(401, 422, 429)
    @v1.arguments(ChallengesQuerySchema(), location="query")
    @v1.response(200, ChallengeListSchema, example=example("ChallengeList"))
    @v1.doc(operationId="listChallenges", security=TOKEN)
    def get(self, query: dict[str, Any]) -> Response:
        """Your challenges, sent and received (``role``), newest first, a page at a time; ``status`` keeps those that
        stand so now (``open``: the ones waiting for an answer)."""
        player = current_player()
        service = challenge_service()
        page = service.inbox(player, status=query.get("status"), limit=query["limit"], cursor=query.get("cursor"))
        now = service.now()
        body = {"challenges": [challenge_json(c, player.id, now) for c in page.challenges], "next_cursor": page.next_cursor}
        return json_response(body, 200, PRIVATE)


@v1.route("/challenges/<challenge_id>")
class ChallengeResource(MethodView):
    @documented_errors(401, 404, 429)
    @v1.response(200, ChallengeSchema, example=example("Challenge"))
    @v1.doc(operationId="getChallenge", security=TOKEN)
    def get(self, challenge_id: str) -> Response:
        """A challenge you sent or received (anyone else's is 404): its players' answers, its status, its game once
        started."""
        player = current_player()
        return _answer(challenge_service().get(challenge_id, player), player)

    @documented_errors(401, 403, 404, 409, 429)
    @v1.response(200, ChallengeSchema, example=example("Challenge"))
    @v1.doc(operationId="cancelChallenge", security=TOKEN)
    def delete(self, challenge_id: str) -> Response:
        """Cancel a challenge you sent, while it is open; the players challenged are told (``challenge_cancelled``)."""
        player = current_player()
        return _answer(challenge_service().cancel(challenge_id, player), player)


@v1.route("/challenges/<challenge_id>/accept")
class AcceptChallenge(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429, rated_seat=True)
    @v1.response(200, ChallengeSchema, headers=response_headers("Idempotent-Replayed"), example=example("Challenge"))
    @v1.doc(operationId="acceptChallenge", security=TOKEN, parameters=[idempotency_parameter("does not accept again")])
    def post(self, challenge_id: str) -> Response:
        """Accept a challenge sent to you; the last acceptance starts the game (``game_id``), with every player seated.

        Accepting again changes nothing. An expired challenge refuses it (``challenge_expired``); so does one whose
        game a player has no room for (``game_limit_reached`` for you, ``challenge_cannot_start`` for another).
        """
        player = current_player()
        return _outcome(challenge_service().accept(challenge_id, player, _idempotency(player)), player)


@v1.route("/challenges/<challenge_id>/decline")
class DeclineChallenge(MethodView):
    @documented_errors(400, 401, 403, 404, 409, 413, 415, 422, 429)
    @v1.arguments(ChallengeDeclineSchema(), required=False, example=example("ChallengeDecline"))
    @v1.response(200, ChallengeSchema, headers=response_headers("Idempotent-Replayed"), example=example("Challenge"))
    @v1.doc(operationId="declineChallenge", security=TOKEN, parameters=[idempotency_parameter("does not decline again")])
    def post(self, body: dict[str, Any], challenge_id: str) -> Response:
        """Decline a challenge sent to you, with a reason key: it is over for everyone, who are told
        (``challenge_declined``)."""
        player = current_player()
        outcome = challenge_service().decline(challenge_id, player, body["reason"], _idempotency(player))
        return _outcome(outcome, player)
