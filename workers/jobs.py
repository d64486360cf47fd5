"""The RQ jobs.  Each loads the game, checks that what it was queued for still holds, and appends.

A job is called with the game id and the version it was queued for.  If the
game is no longer at that version — the job ran already, a duplicate ran, a
player moved first, the deadline came after the move — it appends nothing
and says so.  So any job may run twice, late, or beside a twin.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import urllib.request
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from engine import DealRound, Event, Fold, GameState, Phase, RuleViolation, ScoreRound, decide_and_fold, decide_steps
from service.application.followups import plays_on
from service.application.ratings import LadderBusy
from service.challenges import CHALLENGE_NOTICES
from service.game import Game, decode
from service.lobby import LobbyEvent, TurnTimedOut
from workers import webhooks
from workers.ai import choose_steps
from workers.context import runtime
from workers.queues import PermanentJobError

log = logging.getLogger("red7.jobs")

SIGNATURE_HEADER = "X-Red7-Signature"
TIMESTAMP_HEADER = "X-Red7-Timestamp"


def _history(game_id: str) -> list[dict[str, Any]]:
    return [decode(e.payload) for e in runtime().store.read_all(game_id)]


#: AI turns one job plays in a row (AIs that move one after another) before it queues the next: enough for a
#: whole round of the table, few enough that an all-AI table leaves the worker to others now and then.
AI_TURNS_PER_JOB = 3


def ai_turn(game_id: str, version: int) -> str:
    """An AI seat plays its turn (or the part of it up to a 3's draw); then, if another AI of a quick level is to
    move at once, that one too, up to :data:`AI_TURNS_PER_JOB` turns (one job instead of one each: RQ's
    bookkeeping of a job costs Redis more than the turn; see ``workers.dispatch.QUICK_LEVELS``)."""
    rt = runtime()

    def decide(game: Game) -> Sequence[LobbyEvent | Event]:
        seat = game.seat_to_move()
        if seat is None or game.seats[seat].kind != "ai":
            return []
        level = game.seats[seat].level or "random"
        history = _history(game_id) if level == "expert" else ()  # only the expert reads the past: it costs a read of it all
        steps = choose_steps(game, seat, level, history, expert_seconds=rt.settings.expert_seconds)
        try:
            return decide_steps(game.state, steps, seat)[0]
        except RuleViolation as refusal:
            raise PermanentJobError(f"the {level} AI chose an illegal step: {refusal.code}: {refusal.message}") from None

    first = rt.games.load(game_id)
    game, at, played = first, version, 0
    try:
        while True:
            go_on = played + 1 < AI_TURNS_PER_JOB  # may this job play the next AI turn too?
            after = rt.games.advance(game_id, at, decide, by=f"ai:{game.seat_to_move()}", playing_on=go_on)
            if after is None:
                break
            played += 1
            if not (go_on and plays_on(after, rt.settings.ai_delay)):
                break
            game, at = after, after.version
    finally:
        rt.games.ai_turn_finished(first, version)  # its place in its owner's share, to the next game
    return f"played {played} turn(s)" if played else "nothing to do: the game moved on"


def round_end(state: GameState) -> list[Event]:
    """Score a won round and deal the next one (or finish the game), as one decision."""
    events: list[Event] = []
    if state.phase is Phase.ROUND_WON:
        scored, state = decide_and_fold(state, ScoreRound())
        events += scored
    if state.phase is Phase.ROUND_SCORED:
        dealt, state = decide_and_fold(state, DealRound())
        events += dealt
    return events


def score_round(game_id: str, version: int) -> str:
    """Score the round just won and deal the next one from the recorded seed, or finish the game."""
    done = runtime().games.advance(game_id, version, lambda game: round_end(game.state), by="system:scoring")
    return "scored" if done else "nothing to do: the game moved on"


#: How early a deadline job may run and still wait for its deadline in place (RQ's whole-second
#: schedule, the scheduler's polling, clocks of different hosts).  Earlier than that it is retried later.
EARLY_WAIT_MAX = 5.0


class NotYetDue(Exception):
    """A deadline job that ran well before its deadline; RQ retries it later (a transient failure)."""


def _seconds_to_deadline(game: Game) -> float | None:
    if not game.turn_timeout or not game.turn_started_at:
        return None
    started = datetime.fromisoformat(game.turn_started_at.replace("Z", "+00:00"))
    return game.turn_timeout - (datetime.now(UTC) - started).total_seconds()


def turn_deadline(game_id: str, version: int) -> str:
    """The turn ran out: the stalled seat folds, or an AI plays the turn for it if the game says so.

    A job that runs before the deadline must not be lost (a finished job is
    never queued again for the same version, and the turn would stall): it
    waits for the deadline if it is near, else fails as not yet due, and
    RQ's retries run it again later.
    """
    rt = runtime()
    game = rt.games.load(game_id)
    seat = game.seat_to_move()
    if game.version != version or seat is None or game.seats[seat].kind != "human":
        return "nothing to do: the turn was played"
    remaining = _seconds_to_deadline(game)
    if remaining is None:
        return "nothing to do: the game has no deadline"
    if remaining > EARLY_WAIT_MAX:
        raise NotYetDue(f"the deadline of game {game_id} at version {version} is {remaining:.1f} s away")
    if remaining > 0:
        time.sleep(remaining)

    def decide(current: Game) -> Sequence[LobbyEvent | Event]:
        steps = choose_steps(current, seat, "greedy", []) if current.timeout_action == "ai" else [Fold()]
        return [TurnTimedOut(seat, current.timeout_action), *decide_steps(current.state, steps, seat)[0]]

    done = rt.games.advance(game_id, version, decide, by="system:deadline")
    return f"seat {seat} timed out ({game.timeout_action})" if done else "nothing to do: the turn was played"


def start_rematch(game_id: str, version: int) -> str:
    """Make the rematch a finished game's players agreed on, if the request that agreed stopped before it did (safe
    to run twice: the rematch is made under the id the agreement named, and noted on the finished game once)."""
    game = runtime().games.start_rematch(game_id)
    return f"rematch {game.rematch} made" if game.rematch_started else "nothing to do: no rematch agreed on"


def rate(game_id: str, version: int) -> str:
    """A finished rated game goes into its ladder: applied once, however often this runs, beside whatever twin
    (``service.storage.ratings``); a ladder changing under every attempt fails it, and RQ retries it."""
    try:
        return runtime().ratings.apply(game_id)
    except LadderBusy as busy:
        raise RuntimeError(str(busy)) from None


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The webhook signature: HMAC-SHA256 over ``"<timestamp>.<body>"``, hex, prefixed ``v1=``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


def notify(subject_id: str, version: int, player_id: str, kind: str, game_id: str | None = None) -> str:
    """POST a signed event to the player's webhook; an error is retried by RQ with backoff.

    ``subject_id`` is the game the event is about, at its ``version``; or, for a challenge's notices
    (:data:`~service.challenges.CHALLENGE_NOTICES`), the challenge, at its version, and ``game_id`` the game it started
    if it did.  It runs when its turn in its receiver's line comes (``workers.dispatch.Dispatcher.line_of``), so that a
    receiver that hangs holds up its own deliveries only.
    """
    rt = runtime()
    player = rt.players.get(player_id)
    if player is None or not player.webhook_url or not player.webhook_secret:
        return "no webhook"
    public = rt.settings.public_url
    sent_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    event: dict[str, Any]
    if kind in CHALLENGE_NOTICES:
        event = {"event": kind, "challenge_id": subject_id, "version": version, "player_id": player_id, "sent_at": sent_at,
                 "challenge_url": f"{public}/v1/challenges/{subject_id}"}
        if game_id:
            event.update(game_id=game_id, game_url=f"{public}/v1/games/{game_id}")
    else:
        event = {"event": kind, "game_id": subject_id, "version": version, "player_id": player_id, "sent_at": sent_at,
                 "game_url": f"{public}/v1/games/{subject_id}"}
    body = json.dumps(event, separators=(",", ":")).encode()
    timestamp = str(int(time.time()))
    request = urllib.request.Request(
        player.webhook_url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "red7-webhooks/1",
            TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(player.webhook_secret, timestamp, body),
        },
    )
    try:
        status = webhooks.post(
            request,
            private_hosts=rt.settings.webhook_private_hosts,
            timeout=rt.settings.webhook_read_timeout,
            connect_timeout=rt.settings.webhook_connect_timeout,
        )
    except webhooks.UndeliverableWebhook as exc:
        raise PermanentJobError(str(exc)) from None
    return f"delivered ({status})"


#: The jobs a worker runs, by the names the dispatcher queues them under (``workers.dispatch``).
JOBS: dict[str, Callable[..., str]] = {
    "ai_turn": ai_turn,
    "score_round": score_round,
    "turn_deadline": turn_deadline,
    "start_rematch": start_rematch,
    "notify": notify,
    "rate": rate,
}
