"""Who is calling: a player's bearer token (or, on a game's feeds, a stream ticket), and (optionally) a service API key."""

from __future__ import annotations

import hmac
from typing import Literal, overload

from flask import Request, g, request

from service.application.players import ACCOUNT_GONE, Grant, Player, hash_token
from service.http.common import player_service, red7_runtime, this_request
from service.http.problems import ApiError

#: Methods that change nothing: a token is checked against the store for every other (see :func:`current_player`).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def bearer_token() -> str | None:
    return _bearer(this_request())


def _bearer(req: Request) -> str | None:
    header = req.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


@overload
def current_player(required: Literal[True] = True) -> Player: ...


@overload
def current_player(required: Literal[False]) -> Player | None: ...


def current_player(required: bool = True) -> Player | None:
    """The player the bearer token belongs to; ``None`` (or 401) without one.

    For a write the store is asked whether the token still works, whatever this process cached: a token revoked, or
    deleted with its account, writes nothing anywhere from the moment its revocation answered.  A read trusts the
    process's cache while Redis's tracking of the tokens' keys vouches for it (:class:`PlayerService`)."""
    ctx = g._get_current_object()  # the request's g, not its proxy: read up to three times
    if "player" in ctx:
        known: Player | None = ctx.player  # this request's caller, found by an earlier call
        if known is not None or not required:
            return known
    req = this_request()
    token = _bearer(req)
    if token is None:
        if req.headers.get("Authorization"):
            raise ApiError("invalid_token", "Send the token as: Authorization: Bearer <token>.")
        if required:
            raise ApiError("token_required")
        ctx.player = None
        return None
    player = caller_grant(req, token).player
    admit(player.id, write=req.method not in SAFE_METHODS)  # suspended, banned, the terms not accepted: refused
    ctx.player = player
    return player


def caller_grant(req: Request, token: str) -> Grant:
    """Who the request's bearer ``token`` speaks for and what it may do, asked once a request (the scope check before
    the route asks first: :mod:`service.http.scoping`); ``invalid_token`` if it works no more."""
    ctx = g._get_current_object()
    known: Grant | None = ctx.get("grant")
    if known is not None:
        return known
    grant = player_service().grant_of(token, fresh=req.method not in SAFE_METHODS)
    if grant is None:
        raise ApiError("invalid_token")
    ctx.grant = grant
    return grant


def caller_scopes() -> tuple[str, ...] | None:
    """The scopes of the token this request came with, as stored (``None``: it may do everything); call after
    :func:`current_player`."""
    grant: Grant | None = g.get("grant")
    return None if grant is None else grant.scopes


def admit(player_id: str, *, write: bool) -> None:
    """The safety gate (service/application/standing.py): a suspension, a ban or terms not accepted refuse the call
    (``acceptTerms`` alone passes without the terms; ``deleteMe`` passes whatever holds: leaving for good is a right
    a sanction or new terms never take away, and the audit keeps the decision under the pseudonymous id)."""
    safety = red7_runtime().safety
    if safety is not None and not g.get("erasing_account"):
        safety.gate.admit(player_id, write=write, terms=not g.get("terms_exempt"))


def settle_write(failure: BaseException | None = None) -> None:
    """After a write's route (its answer, or the ``failure`` it raised): if the caller's account was deleted while it
    ran, whatever the write made for them is ended (:meth:`PlayerService.still_there`), and it is answered
    ``invalid_token``, as any request with a token of that account is from then on, never with what the route said
    (a 201 for something that no longer lives, or a failure of a write that found the account gone half-way)."""
    req = this_request()
    player: Player | None = g.get("player")
    if player is None or req.method in SAFE_METHODS or g.get("deleted_by_request"):
        return
    if not player_service().still_there(player):
        raise ApiError("invalid_token", ACCOUNT_GONE) from failure
    safety = red7_runtime().safety
    if safety is not None:
        safety.after_write(player.id)  # suspended or banned as it ran: what it made ends too


def account_deleted_by_request() -> None:
    """The caller deleted their own account (``DELETE /v1/players/me``): that write ends it, and answers 204."""
    g.deleted_by_request = True


def feed_reader(game_id: str, ticket: str | None) -> Player | None:
    """Who reads a game's feed: the holder of a stream ticket for it, else the bearer token's player (or a spectator).

    A ticket never falls back to the spectator's feed: one that is unknown, has
    expired, is for another game or whose token was revoked is a 401, so that a
    page never mistakes the public feed for its own.
    """
    if ticket is None:
        return current_player(required=False)
    if request.headers.get("Authorization"):
        raise ApiError("invalid_request", "Send a stream ticket or a bearer token, not both.")
    holder = red7_runtime().tickets.redeem(ticket, game_id)
    if holder is None:
        raise ApiError("invalid_ticket", f"Ask for a new one: POST /v1/games/{game_id}/stream-tickets with your token.")
    admit(holder.player.id, write=False)
    g.player = holder.player
    g.token_digest = holder.token_digest  # the token it stands for, for the caps on open waits
    return holder.player


def require_api_key() -> None:
    """When the server has API keys, creating players and games needs one of them."""
    keys = red7_runtime().settings.api_keys
    if not keys:
        return
    given = request.headers.get("X-Api-Key", "")
    if not any(hmac.compare_digest(given.encode(), key.encode()) for key in keys):
        raise ApiError("api_key_required")


def waiter() -> tuple[str | None, str]:
    """Who holds a long-poll or stream open: the token (hashed) if the request carries one, and the address."""
    digest: str | None = g.get("token_digest")  # a stream ticket's token (see feed_reader)
    if digest is None:
        token = bearer_token()
        digest = hash_token(token) if token else None
    return digest, request.remote_addr or "unknown"
