"""Who is calling: a player's bearer token, and (optionally) a service API key."""

from __future__ import annotations

import hmac
from typing import Literal, overload

from flask import g, request

from service.errors import ApiError
from service.http.common import red7_runtime
from service.storage.players import Player, hash_token


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


@overload
def current_player(required: Literal[True] = True) -> Player: ...


@overload
def current_player(required: Literal[False]) -> Player | None: ...


def current_player(required: bool = True) -> Player | None:
    """The player the bearer token belongs to; ``None`` (or 401) without one."""
    if "player" in g:
        known: Player | None = g.player  # this request's caller, found by an earlier call
        if known is not None or not required:
            return known
    token = bearer_token()
    if token is None:
        if request.headers.get("Authorization"):
            raise ApiError("invalid_token", "Send the token as: Authorization: Bearer <token>.")
        if required:
            raise ApiError("token_required")
        g.player = None
        return None
    player = red7_runtime().players.by_token(token)
    if player is None:
        raise ApiError("invalid_token")
    g.player = player
    return player


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
    token = bearer_token()
    return (hash_token(token) if token else None), request.remote_addr or "unknown"
