"""Telling players: what one append makes them due to hear, delivered by one job; a delivery that fails, to its line.

After each append the dispatcher queues one ``notices`` job for all the notices it made due (``service.jobqueue.dispatch``:
every webhook and every web push of the move, on the webhook queue), not a job per receiver and per subscription:
a job's life costs the queue's Redis more round trips than a delivery costs anything, and a move that tells three
players by webhook and push was six jobs.  The job delivers them all at once, each in a thread of a pool this process
shares, each with a short timeout, and waits for them :data:`NOTICE_BUDGET` seconds at most.  A delivery that fails
(other than for good: a 4xx, a private address) or is not done by then is handed to the job of its own it had before,
as a retry: ``notify`` in its receiver's line (``Dispatcher.line_of``: one delivery to a receiver on its way at a
time, RQ's retries with backoff) or ``push`` on the push queue.  Its receiver is then *troubled* in this process for
:data:`TROUBLED_FOR` seconds (or until a delivery of its line gets through): the next moves hand its deliveries to its
line at once, without trying; and so are they while a delivery to it has been under way for :data:`SLOW_AFTER`
already (the moves that come while the first waits out its budget).  A receiver not heard from lately
(:data:`KNOWN_FOR`) takes one delivery at a time from a process until it answers: a burst of moves to one that
hangs (a worker starting with a backlog of them) sends it one delivery, and the jobs of the others hand theirs over
within :data:`SLOW_AFTER` instead of each waiting out a budget in a runner thread, with every thread so taken and the
other players' notices queued behind them.  So a receiver that hangs costs the others one runner thread for one
budget in each worker process, and then its own line only, as before; the everyday move — every receiver answering
in milliseconds — is one job, its deliveries to a receiver that answers all at once.

What a hand-over gives up: a delivery that was late (not failed) may still get through after it was handed over, and
then its receiver hears it twice (webhooks are at least once already: a retry after a timeout may repeat one; a push
carries its game as its Topic, so a second replaces the first).  What it keeps: a reminder is still claimed once by
the dispatcher before its job is queued (``Dispatcher._first_time``), and a worker killed under a ``notices`` job
leaves it to RQ's retry of an abandoned job, as any other.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from service.application.followups import Due
from service.application.players import Player
from service.application.push import Subscription
from service.common.errors import NotFound
from service.common.texts import message, say, supported
from service.domain.challenges import CHALLENGE_NOTICES
from service.domain.game import Game
from service.jobqueue.dispatch import receiver
from service.jobqueue.queues import PermanentJobError
from service.outbound import push as web_push
from service.outbound import webhooks
from service.runtime import Runtime
from workers.context import runtime

log = logging.getLogger("red7.notices")

SIGNATURE_HEADER = "X-Red7-Signature"
TIMESTAMP_HEADER = "X-Red7-Timestamp"

#: How long a ``notices`` job waits for its deliveries (seconds), and the longest each may take to connect and
#: between two reads: then it is handed to its own job, in its receiver's line.  A receiver that answers at all
#: answers a notice in milliseconds.
NOTICE_BUDGET = 1.0

#: A receiver with a delivery of a ``notices`` job under way this long (seconds) is passed over like a troubled one:
#: the moves after the first to a receiver that hangs do not each wait out a budget in a delivery thread.  A
#: receiver that answers (in milliseconds) is never under way that long, however many deliveries it gets at once.
SLOW_AFTER = 0.2

#: A receiver that answered a delivery of a ``notices`` job within this many seconds takes any number at once; one
#: that did not (never heard from, or not lately) takes one at a time from this process until it answers: the others
#: wait for that one, up to :data:`SLOW_AFTER` after it began, then go to its line if it still hangs.
KNOWN_FOR = 60.0

#: How long a receiver whose delivery failed or was late is passed over by ``notices`` jobs in this process
#: (seconds): its deliveries go to its line at once meanwhile.  A delivery of its line that gets through ends it.
TROUBLED_FOR = 60.0

#: Deliveries of ``notices`` jobs under way at once in a process (threads of one pool, made when first needed).
DELIVERY_THREADS = 16


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The webhook signature: HMAC-SHA256 over ``"<timestamp>.<body>"``, hex, prefixed ``v1=``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


#: Notifications about the turn being played: sent only while it is still being played (the game at their version).
REMINDERS = frozenset({"turn_reminder", "last_hour_reminder"})


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


# --- troubled receivers -----------------------------------------------------------------------------------------

_troubled: dict[str, float] = {}
_troubled_lock = threading.Lock()
#: The deliveries of ``notices`` jobs under way in this process, by receiver: when each began (monotonic), by attempt.
_under_way: dict[str, dict[int, float]] = {}
#: When each receiver last answered a delivery of a ``notices`` job in this process (monotonic).
_answered: dict[str, float] = {}
_attempts = itertools.count()


def troubled(who: str) -> bool:
    """Whether ``who`` (a receiver: host and port) failed a ``notices`` job's delivery within :data:`TROUBLED_FOR`,
    or has had one under way for :data:`SLOW_AFTER` already."""
    at = time.monotonic()
    until = _troubled.get(who)
    if until is not None and at < until:
        return True
    if who not in _under_way:
        return False
    with _troubled_lock:
        oldest = min(_under_way.get(who, {}).values(), default=at)
    return at - oldest >= SLOW_AFTER


def _claim(receivers: frozenset[str]) -> int | None:
    """Note an attempt to ``receivers`` as under way, and its token; ``None`` (nothing noted) while one of them that
    has not answered lately (:data:`KNOWN_FOR`) has an attempt under way already: a burst of moves to a receiver that
    may hang sends it one delivery to learn whether it does, not one per delivery thread (each would wait out a
    budget, and the other players' notices would wait for a thread meanwhile)."""
    at = time.monotonic()
    with _troubled_lock:
        for who in receivers:
            answered = _answered.get(who)
            if _under_way.get(who) and (answered is None or at - answered > KNOWN_FOR):
                return None
        token = next(_attempts)
        for who in receivers:
            _under_way.setdefault(who, {})[token] = at
    return token


def _attempt(receivers: frozenset[str], send: Callable[[], object], token: int) -> object:
    """``send``, under way to ``receivers`` by the claim ``token`` (:func:`_claim`) until it ends; a receiver that
    answers, even with a refusal, is noted as answering."""
    answered = False
    try:
        result = send()
        answered = True
        return result
    except webhooks.UndeliverableWebhook:
        answered = True  # a 4xx is an answer, and quick
        raise
    finally:
        with _troubled_lock:
            for who in receivers:
                begun = _under_way.get(who, {})
                begun.pop(token, None)
                if not begun:
                    _under_way.pop(who, None)
                if answered:
                    _note_answered(who)


def _note_answered(who: str) -> None:
    """(The lock held.)"""
    if len(_answered) > 10_000:  # receivers come and go: forget those not heard from lately
        for gone in [r for r, at in _answered.items() if time.monotonic() - at > KNOWN_FOR]:
            del _answered[gone]
    _answered[who] = time.monotonic()


def _take_turns(deliveries: list[_Delivery]) -> tuple[dict[Future[object], _Delivery], list[_Delivery]]:
    """The deliveries started now, by their futures in the shared pool, and those to hand to their lines: a delivery
    to a receiver another attempt is probing waits for it, until it answers (then this one is started) or has been
    under way :data:`SLOW_AFTER` (then the receiver counts as troubled, and this one is handed over)."""
    started: dict[Future[object], _Delivery] = {}
    handed: list[_Delivery] = []
    waiting = list(deliveries)
    give_up = time.monotonic() + SLOW_AFTER + 0.05  # by then a probe that began before is SLOW_AFTER old
    while waiting:
        for delivery in list(waiting):
            if any(troubled(r) for r in delivery.receivers) or time.monotonic() > give_up:
                handed.append(delivery)
            elif (token := _claim(delivery.receivers)) is not None:
                started[_deliveries_pool().submit(_attempt, delivery.receivers, delivery.send, token)] = delivery
            else:
                continue
            waiting.remove(delivery)
        if waiting:
            time.sleep(0.01)
    return started, handed


def mark_troubled(who: str) -> None:
    with _troubled_lock:
        if len(_troubled) > 10_000:  # receivers come and go: forget those whose time is over
            for gone in [r for r, until in _troubled.items() if until <= time.monotonic()]:
                del _troubled[gone]
        _troubled[who] = time.monotonic() + TROUBLED_FOR


def mark_well(who: str) -> None:
    with _troubled_lock:
        _troubled.pop(who, None)
        _note_answered(who)


# --- what is said -----------------------------------------------------------------------------------------------


class _Games:
    """The game a job's notices are about, loaded once, when first needed (``None``: no such game)."""

    def __init__(self, rt: Runtime, subject_id: str) -> None:
        self.rt, self.subject_id = rt, subject_id
        self._game: Game | None = None
        self._loaded = False

    def get(self) -> Game | None:
        if not self._loaded:
            try:
                self._game = self.rt.games.load(self.subject_id)
            except NotFound:
                self._game = None
            self._loaded = True
        return self._game

    def turn_of(self, version: int, player_id: str) -> Game | None:
        """The game, if it is still ``player_id``'s turn at ``version`` (else a reminder is not sent)."""
        game = self.get()
        return game if game is not None and game.version == version and game.is_turn_of(player_id) else None


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def webhook_request(
    rt: Runtime, player: Player, subject_id: str, version: int, kind: str, game_id: str | None, game: Game | None
) -> urllib.request.Request:
    """The signed POST that tells ``player`` (who has a webhook) of ``kind`` (``game``: a reminder's, for its deadline)."""
    url, secret, language, player_id = player.webhook_url or "", player.webhook_secret or "", player.language, player.id
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
            **notice_texts(kind, language),
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
        event.update(notice_texts(kind, language))
        if game is not None and (due_at := rt.games.deadline(game)) is not None:
            event["deadline"] = _stamp(due_at)
    body = json.dumps(event, separators=(",", ":")).encode()
    timestamp = str(int(time.time()))
    return urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "red7-webhooks/1",
            TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(secret, timestamp, body),
        },
    )


def _post(rt: Runtime, request: urllib.request.Request, budget: float | None = None) -> int:
    """POST a webhook within the settings' timeouts (each cut to ``budget``, if given)."""
    read, connect = rt.settings.webhook_read_timeout, rt.settings.webhook_connect_timeout
    if budget is not None:
        read, connect = min(read, budget), min(connect, budget)
    return webhooks.post(request, private_hosts=rt.settings.webhook_private_hosts, timeout=read, connect_timeout=connect)


@dataclass(frozen=True, slots=True)
class Push:
    """A web push as it goes to each of a player's devices."""

    payload: bytes
    ttl: int
    urgency: str
    topic: str


def push_of(
    rt: Runtime, language: str | None, subject_id: str, version: int, kind: str, game_id: str | None, game: Game | None
) -> Push:
    """What a push says (``game``: the game whose turn it is about, for its deadline: the TTL, the urgency)."""
    ttl, urgency, due_at = PUSH_TTL, "normal", None
    if game is not None and (due_at := rt.games.deadline(game)) is not None:
        ttl = max(0, int((due_at - rt.clock()).total_seconds()))
        urgency = "high" if ttl <= URGENT_WITHIN else "normal"
    about = "challenge_id" if kind in CHALLENGE_NOTICES else "game_id"
    notice: dict[str, Any] = {
        "event": kind,
        about: subject_id,
        "version": version,
        **notice_texts(kind, language),
        "url": f"/play#game={game_id or subject_id}" if about == "game_id" or game_id else "/play",
    }
    if game_id:
        notice["game_id"] = game_id
    if due_at is not None:
        notice["deadline"] = _stamp(due_at)
    return Push(json.dumps(notice, separators=(",", ":")).encode(), ttl, urgency, subject_id.replace("_", "-"))


def send_push(
    rt: Runtime, player_id: str, subscriptions: Sequence[Subscription], message_: Push, budget: float | None = None
) -> str:
    """Send a push to each subscription (one after another); a subscription whose push service answers 404 or 410 is
    forgotten.  Raises ``RuntimeError`` if none got through and some failed for a while (worth a retry)."""
    read, connect = rt.settings.webhook_read_timeout, rt.settings.webhook_connect_timeout
    if budget is not None:
        read, connect = min(read, budget), min(connect, budget)
    sent = gone = 0
    failed: list[str] = []
    for subscription in subscriptions:
        try:
            web_push.send(
                subscription.info(),
                message_.payload,
                private_key=rt.settings.vapid_private_key,
                subject=rt.settings.vapid_subject,
                ttl=message_.ttl,
                urgency=message_.urgency,
                topic=message_.topic,
                private_hosts=rt.settings.webhook_private_hosts,
                timeout=read,
                connect_timeout=connect,
            )
            sent += 1
        except web_push.SubscriptionGone:
            rt.push.store.drop_endpoint(player_id, subscription.endpoint)
            gone += 1
        except webhooks.UndeliverableWebhook as refused:
            log.warning("push to %s of player %s refused: %s", subscription.endpoint[:60], player_id, refused)
        except Exception as error:  # a push service that is down or slow: tried again (RQ's retries)
            failed.append(f"{subscription.endpoint[:60]}: {error}")
    if failed and not sent:
        raise RuntimeError(f"no push got through ({len(failed)} failed): {'; '.join(failed)}")
    return f"pushed to {sent} device(s), {gone} subscription(s) gone, {len(failed)} failed"


# --- the jobs -----------------------------------------------------------------------------------------------------


def notify(subject_id: str, version: int, player_id: str, kind: str, game_id: str | None = None) -> str:
    """POST a signed event to the player's webhook; an error is retried by RQ with backoff.

    ``subject_id`` is the game the event is about, at its ``version``; or, for a challenge's notices
    (:data:`~service.domain.challenges.CHALLENGE_NOTICES`), the challenge, at its version, and ``game_id`` the game it started
    if it did.  It runs when its turn in its receiver's line comes (``service.jobqueue.dispatch.Dispatcher.line_of``), so that a
    receiver that hangs holds up its own deliveries only: it is the retry of a ``notices`` job's delivery that failed.
    """
    rt = runtime()
    player = rt.players.get(player_id)
    if player is None or not player.webhook_url or not player.webhook_secret:
        return "no webhook"
    game = _Games(rt, subject_id).turn_of(version, player_id) if kind in REMINDERS else None
    if kind in REMINDERS and game is None:
        return "nothing to do: the turn was played"
    request = webhook_request(rt, player, subject_id, version, kind, game_id, game)
    try:
        status = _post(rt, request)
    except webhooks.UndeliverableWebhook as exc:
        raise PermanentJobError(str(exc)) from None
    mark_well(receiver(player.webhook_url))
    return f"delivered ({status})"


def push(subject_id: str, version: int, player_id: str, kind: str, game_id: str | None = None) -> str:
    """Send a web push to every device of the player: encrypted for each subscription, signed with the server's VAPID
    key, its Topic the game (or challenge), its TTL the time left to act, its Urgency high in the last hour.

    A subscription whose push service answers 404 or 410 is forgotten.  A push service that fails for a while makes
    the job fail, and RQ retry it (a device that got it gets it again under the same Topic: it replaces the first).
    It runs on the push queue, in threads of its own: the retry of a ``notices`` job's push that failed.
    """
    rt = runtime()
    subscriptions = rt.push.store.of(player_id)
    if not subscriptions or rt.push.public_key is None:
        return "no push subscription"
    game = _Games(rt, subject_id).turn_of(version, player_id) if kind in REMINDERS or kind == "your_turn" else None
    if kind in REMINDERS and game is None:
        return "nothing to do: the turn was played"
    player = rt.players.get(player_id)
    said = push_of(rt, player.language if player is not None else None, subject_id, version, kind, game_id, game)
    result = send_push(rt, player_id, list(subscriptions.values()), said)
    for subscription in subscriptions.values():
        mark_well(receiver(subscription.endpoint))
    return result


@dataclass(frozen=True, slots=True)
class _Delivery:
    """One delivery of a ``notices`` job: where it goes, how it is sent, and the job it is handed to if it fails."""

    receivers: frozenset[str]
    send: Callable[[], object]
    retry: Due


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _deliveries_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(DELIVERY_THREADS, thread_name_prefix="red7-notice")
    return _pool


def notices(subject_id: str, version: int, digest: str, entries: Sequence[Sequence[Any]]) -> str:
    """Deliver the notices of one append at once; hand those that fail, or are late, to their own jobs (see the
    module's docstring).

    ``entries``: ``[player_id, kind, game_id or None, channels]`` each (``Dispatcher.notify``), ``channels`` saying
    how the player is told: ``"w"`` by webhook, ``"p"`` by push, ``"wp"`` both.  ``digest`` only names the job
    (the same notices queued twice are one job)."""
    rt = runtime()
    games = _Games(rt, subject_id)
    deliveries: list[_Delivery] = []
    skipped = 0
    for player_id, kind, game_id, channels in entries:
        extra = (game_id,) if game_id else ()
        reminder = kind in REMINDERS
        game = games.turn_of(version, player_id) if reminder or ("p" in channels and kind == "your_turn") else None
        if reminder and game is None:
            skipped += 1  # the turn was played
            continue
        player = rt.players.get(player_id)
        if player is None:
            continue
        if "w" in channels and player.webhook_url and player.webhook_secret:
            request = webhook_request(rt, player, subject_id, version, kind, game_id, game)
            deliveries.append(
                _Delivery(
                    frozenset({receiver(player.webhook_url)}),
                    partial(_post, rt, request, NOTICE_BUDGET),
                    Due("notify", subject_id, version, (player_id, kind, *extra)),
                )
            )
        if "p" in channels and rt.push.public_key is not None and (subscriptions := list(rt.push.store.of(player_id).values())):
            said = push_of(rt, player.language, subject_id, version, kind, game_id, game)
            deliveries.append(
                _Delivery(
                    frozenset(receiver(s.endpoint) for s in subscriptions),
                    partial(send_push, rt, player_id, subscriptions, said, NOTICE_BUDGET),
                    Due("push", subject_id, version, (player_id, kind, *extra)),
                )
            )
    futures, handed = _take_turns(deliveries)
    if futures:
        wait(futures, timeout=NOTICE_BUDGET)
    delivered = refused = 0
    failed: list[_Delivery] = []
    for future, delivery in futures.items():
        error = future.exception(timeout=0) if future.done() else TimeoutError(f"not done within {NOTICE_BUDGET} s")
        if error is None:
            delivered += 1
        elif isinstance(error, webhooks.UndeliverableWebhook):
            refused += 1  # no retry mends it (a 4xx, a private address): not handed over
            log.warning("notice %s refused: %s", delivery.retry.job_id(rt.dispatcher.namespace), error)
        else:
            log.info("notice %s failed (%s): handed to its line", delivery.retry.job_id(rt.dispatcher.namespace), error)
            failed.append(delivery)
    for delivery in failed:
        for who in delivery.receivers:
            mark_troubled(who)  # passed over from now on (not again for those passed over already: see TROUBLED_FOR)
    handed += failed
    for delivery in handed:
        rt.shard_of(delivery.retry.game_id).dispatcher.enqueue(delivery.retry)  # its line on its game's queue shard
    return f"{delivered} delivered, {len(handed)} handed to their lines, {refused} refused, {skipped} no longer due"
