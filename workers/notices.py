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

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from typing import Any

from service.application.followups import Due
from service.application.notices import Notices
from service.jobqueue.dispatch import receiver
from service.jobqueue.logcontext import caused_by
from service.jobqueue.retries import PermanentJobError
from service.outbound import metrics, webhooks
from service.outbound.breaker import KNOWN_FOR, SLOW_AFTER, TROUBLED_FOR, Receivers
from service.outbound.notice_texts import REMINDERS
from service.runtime import Runtime
from workers.context import runtime

log = logging.getLogger("red7.notices")

__all__ = ["KNOWN_FOR", "NOTICE_BUDGET", "SLOW_AFTER", "TROUBLED_FOR", "notices", "notify", "push", "receivers"]

#: How long a ``notices`` job waits for its deliveries (seconds), and the longest each may take to connect and
#: between two reads: then it is handed to its own job, in its receiver's line.  A receiver that answers at all
#: answers a notice in milliseconds.
NOTICE_BUDGET = 1.0

#: Deliveries of ``notices`` jobs under way at once in a process (threads of one pool, made when first needed).
DELIVERY_THREADS = 16

#: The process's breakers of the receivers its ``notices`` jobs deliver to (:mod:`service.outbound.breaker`:
#: :data:`SLOW_AFTER`, :data:`KNOWN_FOR`, :data:`TROUBLED_FOR`), shared by the delivery threads of every job.
receivers = Receivers()


@dataclass(frozen=True, slots=True)
class _Delivery:
    """One delivery of a ``notices`` job: where it goes, how it is sent, and the job it is handed to if it fails."""

    receivers: frozenset[str]
    send: Callable[[], object]
    retry: Due
    channel: metrics.Channel = "webhook"
    #: The retry's arguments after its own (the notice's id in the player's feed), which do not name its job.
    extra: tuple[Any, ...] = ()


def _take_turns(deliveries: list[_Delivery]) -> tuple[dict[Future[object], _Delivery], list[_Delivery]]:
    """The deliveries started now, by their futures in the shared pool, and those to hand to their lines: a delivery
    to a receiver another attempt is probing waits for it, until it answers (then this one is started) or has been
    under way ``slow_after`` (then the receiver counts as troubled, and this one is handed over)."""
    started: dict[Future[object], _Delivery] = {}
    handed: list[_Delivery] = []
    waiting = list(deliveries)
    give_up = time.monotonic() + receivers.slow_after + 0.05  # by then a probe that began before is slow_after old
    while waiting:
        for delivery in list(waiting):
            if any(receivers.troubled(r) for r in delivery.receivers) or time.monotonic() > give_up:
                handed.append(delivery)
            elif (token := receivers.claim(delivery.receivers)) is not None:
                started[_deliveries_pool().submit(receivers.attempt, delivery.receivers, delivery.send, token)] = delivery
            else:
                continue
            waiting.remove(delivery)
        if waiting:
            time.sleep(0.01)
    return started, handed


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _deliveries_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(DELIVERY_THREADS, thread_name_prefix="red7-notice")
    return _pool


def _said(rt: Runtime) -> Notices:
    """What the notices say and how they are sent, by the runtime's settings and clock as they are now."""
    return Notices(rt.settings, rt.games, rt.push, rt.clock)


# --- the jobs -----------------------------------------------------------------------------------------------------


def notify(
    subject_id: str, version: int, player_id: str, kind: str, game_id: str | None = None, notification_id: str | None = None
) -> str:
    """POST a signed event to the player's webhook; an error is retried by RQ with backoff.

    ``subject_id`` is the game the event is about, at its ``version``; or, for a challenge's notices
    (:data:`~service.domain.challenges.CHALLENGE_NOTICES`), the challenge, at its version, and ``game_id`` the game it
    started if it did; ``notification_id`` the notice's id in the player's feed.  It runs when its turn in its
    receiver's line comes (``service.jobqueue.dispatch.Dispatcher.line_of``), so that a receiver that hangs holds up
    its own deliveries only: it is the retry of a ``notices`` job's delivery that failed.
    """
    rt = runtime()
    notice = _said(rt)
    player = rt.accounts.get(player_id)
    if player is None or not player.webhook_url or not player.webhook_secret:
        return "no webhook"
    game = notice.subject(subject_id).turn_of(version, player_id) if kind in REMINDERS else None
    if kind in REMINDERS and game is None:
        return "nothing to do: the turn was played"
    request = notice.webhook_request(player, subject_id, version, kind, game_id, game, notification_id)
    try:
        status = notice.post(request)
    except webhooks.UndeliverableWebhook as exc:
        raise PermanentJobError(str(exc)) from None
    receivers.well(receiver(player.webhook_url))
    return f"delivered ({status})"


def push(
    subject_id: str, version: int, player_id: str, kind: str, game_id: str | None = None, notification_id: str | None = None
) -> str:
    """Send a web push to every device of the player: encrypted for each subscription, signed with the server's VAPID
    key, its Topic the game (or challenge), its TTL the time left to act, its Urgency high in the last hour; and a
    native push (FCM) to each of the player's apps, the same notice with the same collapse key, lifetime and priority.

    A subscription whose push service answers 404 or 410 is forgotten, and so is a device FCM says is unregistered.  A
    push service that fails for a while makes the job fail, and RQ retry it (a device that got it gets it again under the
    same Topic or collapse key: it replaces the first).
    It runs on the push queue, in threads of its own: the retry of a ``notices`` job's push that failed.
    """
    rt = runtime()
    notice = _said(rt)
    subscriptions = list(rt.push.devices(player_id).values()) if rt.push.public_key is not None else []
    natives = rt.push.native.devices(player_id) if rt.push.native is not None else []
    if not subscriptions and not natives:
        return "no push subscription"
    game = notice.subject(subject_id).turn_of(version, player_id) if kind in REMINDERS or kind == "your_turn" else None
    if kind in REMINDERS and game is None:
        return "nothing to do: the turn was played"
    player = rt.accounts.get(player_id)
    language = player.language if player is not None else None
    message = notice.push_of(language, subject_id, version, kind, game_id, game, notification_id)
    results: list[str] = []
    errors: list[Exception] = []
    for send, receiving in (
        (partial(notice.send_push, player_id, subscriptions, message), [s.endpoint for s in subscriptions]),
        (partial(notice.send_native, player_id, natives, message), _fcm_receivers(rt) if natives else []),
    ):
        if not receiving:
            continue
        try:
            results.append(send())  # each channel tried even when the other fails: a retry repeats under the same topic
        except Exception as error:
            errors.append(error)
            continue
        for where in receiving:
            receivers.well(receiver(where))
    if errors:
        raise errors[0]
    return "; ".join(results)


def _fcm_receivers(rt: Runtime) -> list[str]:
    """FCM's endpoint as a receiver of the breakers (one for every app: it is one service)."""
    native = rt.push.native
    return [native.fcm.endpoint] if native is not None and native.fcm is not None else []


def notices(subject_id: str, version: int, digest: str, entries: Sequence[Sequence[Any]]) -> str:
    """Deliver the notices of one append at once; hand those that fail, or are late, to their own jobs (see the
    module's docstring).

    ``entries``: ``[player_id, kind, game_id or None, channels, notification_id]`` each (``Dispatcher.notify``),
    ``channels`` saying how the player is told: ``"w"`` by webhook, ``"p"`` by push, ``"wp"`` both; the notice's id in
    the player's feed last (``None``, or left out by a job queued before feeds were kept: none).  ``digest`` only names the job
    (the same notices queued twice are one job)."""
    rt = runtime()
    said = _said(rt)
    subject = said.subject(subject_id)
    deliveries: list[_Delivery] = []
    skipped = 0
    for player_id, kind, game_id, channels, *rest in entries:
        notification_id = rest[0] if rest else None
        extra = (game_id,) if game_id else ()
        after: tuple[Any, ...] = (((None,) if not game_id else ()) + (notification_id,)) if notification_id else ()
        reminder = kind in REMINDERS
        game = subject.turn_of(version, player_id) if reminder or ("p" in channels and kind == "your_turn") else None
        if reminder and game is None:
            skipped += 1  # the turn was played
            continue
        player = rt.accounts.get(player_id)
        if player is None:
            continue
        if "w" in channels and player.webhook_url and player.webhook_secret:
            request = said.webhook_request(player, subject_id, version, kind, game_id, game, notification_id)
            deliveries.append(
                _Delivery(
                    frozenset({receiver(player.webhook_url)}),
                    partial(said.post, request, NOTICE_BUDGET),
                    Due("notify", subject_id, version, (player_id, kind, *extra)),
                    extra=after,
                )
            )
        if "p" in channels and rt.push.public_key is not None and (subscriptions := list(rt.push.devices(player_id).values())):
            message = said.push_of(player.language, subject_id, version, kind, game_id, game, notification_id)
            deliveries.append(
                _Delivery(
                    frozenset(receiver(s.endpoint) for s in subscriptions),
                    partial(said.send_push, player_id, subscriptions, message, NOTICE_BUDGET),
                    Due("push", subject_id, version, (player_id, kind, *extra)),
                    "web_push",
                    extra=after,
                )
            )
        if "p" in channels and rt.push.native is not None and (natives := rt.push.native.devices(player_id)):
            message = said.push_of(player.language, subject_id, version, kind, game_id, game, notification_id)
            deliveries.append(
                _Delivery(
                    frozenset(receiver(where) for where in _fcm_receivers(rt)),
                    partial(said.send_native, player_id, natives, message, NOTICE_BUDGET),
                    Due("push", subject_id, version, (player_id, kind, *extra)),
                    "fcm",
                    extra=after,
                )
            )
    futures, handed = _take_turns(deliveries)
    for untried in handed:
        metrics.delivery(untried.channel, "handed_over")  # (those tried count what they met: service.application.notices)
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
            receivers.fail(who)  # passed over from now on (not again for those passed over already: see TROUBLED_FOR)
    handed += failed
    request_id = caused_by()  # the request that caused the move, named by the retries' log lines too
    for delivery in handed:
        # its line on its game's queue shard
        rt.shard_of(delivery.retry.game_id).dispatcher.enqueue(delivery.retry, extra=delivery.extra, request_id=request_id)
    return f"{delivered} delivered, {len(handed)} handed to their lines, {refused} refused, {skipped} no longer due"
