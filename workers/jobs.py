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
from service.clock import deadline
from service.errors import NotFound
from service.game import Game, decode
from service.lobby import LobbyEvent, TurnTimedOut
from service.texts import message, say, supported
from workers import push as web_push
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
    bookkeeping of a job costs Redis more than the turn; see ``service.application.followups.play_on_levels``: an
    expert that thinks briefly enough is played on too)."""
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
            if not (go_on and plays_on(after, rt.settings.ai_delay, rt.dispatcher.play_on_levels)):
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


def turn_deadline(game_id: str, version: int, deadline_ms: int | None = None) -> str:
    """The turn ran out: the stalled seat folds, or an AI plays the turn for it if the game says so; or, in a
    correspondence game whose mover has vacation left, a vacation is taken from the deadline (their clocks stop).

    The deadline is :mod:`service.clock`'s, with the mover's calendar as it is now: one that moved later since the job
    was queued (a vacation declared) puts the game back on the agenda at it; one near waits in place.  Two of these
    jobs at once (two tickers) take one vacation or time the turn out once: the vacation's append is checked against
    the calendar's version and the timeout's against the game's.  ``deadline_ms``, the deadline it was queued for, only
    names the job (a deadline moved later is a job of its own): the deadline is computed afresh.
    """
    rt = runtime()
    game = rt.games.load(game_id)
    seat = game.seat_to_move()
    if game.version != version or seat is None or game.seats[seat].kind != "human":
        return "nothing to do: the turn was played"
    turn = rt.games.turn(game)
    if turn is None:
        return "nothing to do: the game has no deadline"
    due_at = deadline(turn)
    remaining = (due_at - rt.clock()).total_seconds()
    if remaining > EARLY_WAIT_MAX:
        rt.dispatcher.reoffer(game, rt.games.needs(game))  # the agenda looks at it at its deadline as it is now
        return f"not yet due: the deadline is {remaining:.0f} s away"
    if remaining > 0:
        time.sleep(remaining)
    mover = game.seats[seat].player_id
    if turn.correspondence and mover and rt.calendars.take(mover, due_at, game_id):
        return f"seat {seat}'s player is on vacation from the deadline (automatically)"

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


def compact(game_id: str, version: int) -> str:
    """An over game's stream folded into one packed record, once its grace is over (safe to run twice)."""
    return runtime().games.compact(game_id)


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The webhook signature: HMAC-SHA256 over ``"<timestamp>.<body>"``, hex, prefixed ``v1=``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


#: Notifications about the turn being played: sent only while it is still being played (the game at their version).
REMINDERS = frozenset({"turn_reminder", "last_hour_reminder"})


def _still_due(subject_id: str, version: int, player_id: str, kind: str) -> Game | None:
    """The game a reminder is about, if its turn is still to play (else it is not sent)."""
    try:
        game = runtime().games.load(subject_id)
    except NotFound:
        return None
    return game if game.version == version and game.is_turn_of(player_id) else None


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
    game = _still_due(subject_id, version, player_id, kind) if kind in REMINDERS else None
    if kind in REMINDERS and game is None:
        return "nothing to do: the turn was played"
    public = rt.settings.public_url
    sent_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    event: dict[str, Any]
    if kind in CHALLENGE_NOTICES:
        event = {
            "event": kind,
            "challenge_id": subject_id,
            "version": version,
            "player_id": player_id,
            "sent_at": sent_at,
            "challenge_url": f"{public}/v1/challenges/{subject_id}",
            **notice_texts(kind, player.language),
        }
        if game_id:
            event.update(game_id=game_id, game_url=f"{public}/v1/games/{game_id}")
    else:
        event = {
            "event": kind,
            "game_id": subject_id,
            "version": version,
            "player_id": player_id,
            "sent_at": sent_at,
            "game_url": f"{public}/v1/games/{subject_id}",
        }
        event.update(notice_texts(kind, player.language))
        if game is not None and (due_at := rt.games.deadline(game)) is not None:
            event["deadline"] = due_at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
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


#: What a push (or a webhook) says, by kind: the codes of its title and body (the client's service worker shows them),
#: said in the receiving player's language (``Player.language``; English if they chose none).
PUSH_TEXT: dict[str, tuple[str, str]] = {
    "your_turn": (message("push.your_turn.title", "Your turn"), message("push.your_turn.body", "It is your turn to play.")),
    "turn_reminder": (
        message("push.turn_reminder.title", "Your turn is running out"),
        message("push.turn_reminder.body", "A fifth of your time to move is left."),
    ),
    "last_hour_reminder": (
        message("push.last_hour_reminder.title", "One hour left"),
        message("push.last_hour_reminder.body", "Your turn times out in an hour."),
    ),
    "game_finished": (
        message("push.game_finished.title", "Game over"),
        message("push.game_finished.body", "A game of yours has finished."),
    ),
    "game_aborted": (
        message("push.game_aborted.title", "Game aborted"),
        message("push.game_aborted.body", "A game of yours was aborted."),
    ),
    "match_found": (
        message("push.match_found.title", "Match found"),
        message("push.match_found.body", "A game has been found for you."),
    ),
    "challenge_received": (
        message("push.challenge_received.title", "You are challenged"),
        message("push.challenge_received.body", "A player challenges you to a game."),
    ),
    "challenge_accepted": (
        message("push.challenge_accepted.title", "Challenge accepted"),
        message("push.challenge_accepted.body", "A player accepted a challenge."),
    ),
    "challenge_declined": (
        message("push.challenge_declined.title", "Challenge declined"),
        message("push.challenge_declined.body", "A player declined a challenge."),
    ),
    "rematch_offered": (
        message("push.rematch_offered.title", "Rematch?"),
        message("push.rematch_offered.body", "A player offers you a rematch."),
    ),
    "rematch_started": (
        message("push.rematch_started.title", "Rematch"),
        message("push.rematch_started.body", "Your rematch has started."),
    ),
}
OTHER_TITLE = message("push.other.title", "Red7")
OTHER_BODY = message("push.other.body", "Something happened in a game of yours.")


def notice_texts(kind: str, language: str | None) -> dict[str, Any]:
    """A notice's title and body: each as a code (``title_code``, ``body_code``) and in ``language`` (``lang``)."""
    title, body = PUSH_TEXT.get(kind, (OTHER_TITLE, OTHER_BODY))
    lang = supported(language)
    return {"lang": lang, "title": say(title, lang), "body": say(body, lang), "title_code": title, "body_code": body}


#: How long a push service keeps a message for a device that is away when there is no turn to act on (seconds).
PUSH_TTL = 24 * 3600
#: Urgency is high from this long before a deadline (seconds).
URGENT_WITHIN = 3600


def push(subject_id: str, version: int, player_id: str, kind: str, game_id: str | None = None) -> str:
    """Send a web push to every device of the player: encrypted for each subscription, signed with the server's VAPID
    key, its Topic the game (or challenge), its TTL the time left to act, its Urgency high in the last hour.

    A subscription whose push service answers 404 or 410 is forgotten.  A push service that fails for a while makes
    the job fail, and RQ retry it (a device that got it gets it again under the same Topic: it replaces the first).
    It runs on the push queue, in threads of its own: a push service that hangs delays no game, and no webhook.
    """
    rt = runtime()
    subscriptions = rt.push.store.of(player_id)
    if not subscriptions or rt.push.public_key is None:
        return "no push subscription"
    game = _still_due(subject_id, version, player_id, kind) if kind in REMINDERS or kind == "your_turn" else None
    if kind in REMINDERS and game is None:
        return "nothing to do: the turn was played"
    ttl, urgency, due_at = PUSH_TTL, "normal", None
    if game is not None and (due_at := rt.games.deadline(game)) is not None:
        ttl = max(0, int((due_at - rt.clock()).total_seconds()))
        urgency = "high" if ttl <= URGENT_WITHIN else "normal"
    player = rt.players.get(player_id)
    about = "challenge_id" if kind in CHALLENGE_NOTICES else "game_id"
    notice: dict[str, Any] = {
        "event": kind,
        about: subject_id,
        "version": version,
        **notice_texts(kind, player.language if player is not None else None),
        "url": f"/play#game={game_id or subject_id}" if about == "game_id" or game_id else "/play",
    }
    if game_id:
        notice["game_id"] = game_id
    if due_at is not None:
        notice["deadline"] = due_at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    payload = json.dumps(notice, separators=(",", ":")).encode()
    sent = gone = 0
    failed: list[str] = []
    for device, subscription in subscriptions.items():
        try:
            web_push.send(
                subscription.info(),
                payload,
                private_key=rt.settings.vapid_private_key,
                subject=rt.settings.vapid_subject,
                ttl=ttl,
                urgency=urgency,
                topic=subject_id.replace("_", "-"),
                private_hosts=rt.settings.webhook_private_hosts,
                timeout=rt.settings.webhook_read_timeout,
                connect_timeout=rt.settings.webhook_connect_timeout,
            )
            sent += 1
        except web_push.SubscriptionGone:
            rt.push.store.drop_endpoint(player_id, subscription.endpoint)
            gone += 1
        except webhooks.UndeliverableWebhook as refused:
            log.warning(
                "push to %s of player %s (device %s…) refused: %s", subscription.endpoint[:60], player_id, device[:8], refused
            )
        except Exception as error:  # a push service that is down or slow: tried again (RQ's retries)
            failed.append(f"{subscription.endpoint[:60]}: {error}")
    if failed and not sent:
        raise RuntimeError(f"no push got through ({len(failed)} failed): {'; '.join(failed)}")
    return f"pushed to {sent} device(s), {gone} subscription(s) gone, {len(failed)} failed"


def analyse(game_id: str) -> str:
    """A finished game's decision analysis (``service.application.analysis``), on the analyses' own queue."""
    return runtime().analyses.run(game_id)


def analyse_import(replay_id: str) -> str:
    """An imported replay's decision analysis, on the same queue: kept while the import is."""
    return runtime().imported_analyses.run(replay_id)


#: The jobs a worker runs, by the names the dispatcher queues them under (``workers.dispatch``).
JOBS: dict[str, Callable[..., str]] = {
    "ai_turn": ai_turn,
    "score_round": score_round,
    "turn_deadline": turn_deadline,
    "start_rematch": start_rematch,
    "notify": notify,
    "rate": rate,
    "push": push,
    "analyse": analyse,
    "analyse_import": analyse_import,
    "compact": compact,
}
