"""``Idempotency-Key``: which requests honour it, what makes two requests the same, and the refusal everywhere else.

A client that sends the header believes a retry is safe: it was ignored on ``POST /v1/games``, and the same key
and body made two games.  So every ``POST`` that creates or changes something honours it, and the one where it
makes no sense refuses it (400 ``idempotency_key_not_supported``) rather than ignore it:

- honoured: sign-up (keyed by the caller's address: there is no token yet), a new token, a new game, joining,
  leaving, an action, aborting, a rematch offered or declined, time given to the player to move (given again, it
  would add up), a replay import, a challenge made, accepted or declined, a match ticket, a message at a table (keyed by the
  caller's token's player).  The answer to a retry is the first one's (status,
  body, ``Location``/``ETag``), with ``Idempotent-Replayed: true``; the same key with another request is 422
  ``idempotency_key_reused``.  The body is what the first attempt made (a game at the version it made, a ticket, a
  challenge), rendered again: what counts down (a turn's time left, a ticket's wait and range, a challenge's status)
  is as of the retry, as a client retrying after a lost answer needs it.
- refused: a stream ticket.  Each ticket is new, good for a minute and for reading only; asking again is as safe
  as asking once, and an answer kept for a day would hold a ticket long dead.

The request a key stands for is its method, path and body (its fingerprint); not its preconditions: the same
action sent again without its ``If-Match`` is the same request, answered with what the first one did.
``GET``, ``PATCH`` and ``DELETE`` are idempotent by themselves (a rename, a revocation or calling off a game
repeated changes nothing more), so the header is not read there.
"""

from __future__ import annotations

import hashlib
from typing import Any

from flask import Request, request

from service.application.commands import Idempotency
from service.http.problems import ApiError

HEADER = "Idempotency-Key"
MAX_KEY = 200

#: The header of an answer given again.
REPLAYED = {"Idempotent-Replayed": "true"}

#: The endpoints whose POST honours the header (every other POST refuses it).
HONOURED = frozenset(
    {
        "v1.Players",
        "v1.Tokens",
        "v1.Games",
        "v1.Join",
        "v1.Leave",
        "v1.Actions",
        "v1.GiveTime",
        "v1.Replays",
        "v1.Challenges",
        "v1.AcceptChallenge",
        "v1.DeclineChallenge",
        "v1.Abort",
        "v1.Rematch",
        "v1.RematchDecline",
        "v1.MatchTickets",
        "v1.TableTalk",
        "v1.Tournaments",
    }
)


def parameter(what: str) -> dict[str, Any]:
    """The header as an OpenAPI parameter of an operation that honours it; ``what``: what a retry does not do twice."""
    return {
        "in": "header",
        "name": HEADER,
        "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY},
        "description": f"A key of yours for this request (a UUID): a retry with the same key and body {what}, and is "
        "answered with the first answer (status, body, Location/ETag) and `Idempotent-Replayed: true`, for a day; "
        "the body is what the first attempt made, with what counts down (a turn's `time_left`) told as of the retry. "
        "The same key with another body (or path) is 422 `idempotency_key_reused`; preconditions (If-Match) are no "
        "part of the request it names.",
    }


def refused_here(req: Request) -> None:
    """Before the route (``service.http.checks``): a POST that does not honour the header refuses it, so that no
    client believes a retry safe when it is not."""
    if req.method == "POST" and HEADER in req.headers and req.endpoint not in HONOURED:
        raise ApiError(
            "idempotency_key_not_supported",
            "This operation takes no Idempotency-Key: asking again is as safe as asking once (each stream ticket is "
            "new, and good for a minute). Send it without the header.",
        )


def idempotency(scope: str, ttl: int) -> Idempotency | None:
    """The request's key as ``scope`` (a player id, or an address for a sign-up) holds it, or ``None`` without one.

    Refuses a key that is empty or longer than :data:`MAX_KEY` (422, naming the header).
    """
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not 0 < len(key) <= MAX_KEY:
        error = {"field": HEADER, "message": f"must be 1 to {MAX_KEY} characters", "location": "headers"}
        raise ApiError("invalid_request", f"{HEADER} must be 1 to {MAX_KEY} characters.", errors=[error])
    return Idempotency(scope, key, fingerprint(), ttl)


def fingerprint() -> str:
    """What the request asks for: its method, path and body (parsed, when JSON: the same JSON written otherwise is
    the same request)."""
    body: Any = request.get_json(silent=True) if request.is_json else None
    if body is None and request.content_length:
        body = hashlib.sha256(request.get_data(cache=True)).hexdigest()  # a replay's NDJSON lines
    return Idempotency.fingerprint_of(request.method, request.path, body)
