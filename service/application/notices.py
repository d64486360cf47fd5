"""What a notice is and how it is sent: a webhook's signed event, a web push to each device of a player, a native push
(FCM) to each of the player's apps.

The notice jobs (``workers/notices.py``) decide when and in which thread each is sent, and what happens to one that
fails; this says what each delivery carries (the subject, its texts in the player's language, the turn's deadline)
and sends it within the settings' timeouts through the webhook rules (``service.outbound``: no private address, no
redirect).  A push subscription whose push service says it is gone is forgotten here, and so is a native device FCM
says is no longer registered.
"""

from __future__ import annotations

import json
import logging
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from service.application.games import GameService
from service.application.players import Player
from service.application.push import PushService, Subscription
from service.application.push_devices import Device
from service.common.config import Settings
from service.common.errors import NotFound
from service.domain.challenges import CHALLENGE_NOTICES
from service.domain.game import Game
from service.domain.tournaments import TOURNAMENT_NOTICES
from service.outbound import fcm, webhooks
from service.outbound import push as web_push
from service.outbound.metrics import delivery
from service.outbound.notice_texts import notice_fields
from service.outbound.signing import signed_post

log = logging.getLogger("red7.notices")

#: How long a push service keeps a message for a device that is away when there is no turn to act on (seconds).
PUSH_TTL = 24 * 3600
#: Urgency is high from this long before a deadline (seconds).
URGENT_WITHIN = 3600


@dataclass(frozen=True, slots=True)
class Push:
    """A web push as it goes to each of a player's devices."""

    payload: bytes
    ttl: int
    urgency: str
    topic: str


class Subject:
    """The game a job's notices are about, loaded once, when first needed (``None``: no such game)."""

    def __init__(self, games: GameService, subject_id: str) -> None:
        self.games, self.subject_id = games, subject_id
        self._game: Game | None = None
        self._loaded = False

    def get(self) -> Game | None:
        if not self._loaded:
            try:
                self._game = self.games.load(self.subject_id)
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


class Notices:
    """Building and sending one notice, over the settings, the games (a turn's deadline) and the push subscriptions."""

    def __init__(self, settings: Settings, games: GameService, push: PushService, clock: Callable[[], datetime]) -> None:
        self.settings, self.games, self.push, self.clock = settings, games, push, clock

    def subject(self, subject_id: str) -> Subject:
        return Subject(self.games, subject_id)

    def webhook_request(
        self,
        player: Player,
        subject_id: str,
        version: int,
        kind: str,
        game_id: str | None,
        game: Game | None,
        notification_id: str | None = None,
    ) -> urllib.request.Request:
        """The signed POST that tells ``player`` (who has a webhook) of ``kind`` (``game``: a reminder's, for its
        deadline; ``notification_id``: the notice's id in the player's feed)."""
        url, secret, player_id = player.webhook_url or "", player.webhook_secret or "", player.id
        public = self.settings.public_url
        sent_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        event = notice_fields(kind, subject_id, version, game_id, player.language, notification_id)
        event.update(player_id=player_id, sent_at=sent_at)
        if kind in CHALLENGE_NOTICES:
            event["challenge_url"] = f"{public}/v1/challenges/{subject_id}"
            if game_id:
                event["game_url"] = f"{public}/v1/games/{game_id}"
        elif kind in TOURNAMENT_NOTICES:
            event["tournament_url"] = f"{public}/v1/tournaments/{subject_id}"
            if game_id:
                event["game_url"] = f"{public}/v1/games/{game_id}"
        else:
            event["game_url"] = f"{public}/v1/games/{subject_id}"
            if game is not None and (due_at := self.games.deadline(game)) is not None:
                event["deadline"] = _stamp(due_at)
        return signed_post(url, secret, json.dumps(event, separators=(",", ":")).encode())

    def _timeouts(self, budget: float | None) -> tuple[float, float]:
        """The read and connect timeouts of a delivery (each cut to ``budget``, if given)."""
        read, connect = self.settings.webhook_read_timeout, self.settings.webhook_connect_timeout
        if budget is not None:
            read, connect = min(read, budget), min(connect, budget)
        return read, connect

    def post(self, request: urllib.request.Request, budget: float | None = None) -> int:
        """POST a webhook within the settings' timeouts (each cut to ``budget``, if given)."""
        read, connect = self._timeouts(budget)
        try:
            status = webhooks.post(
                request, private_hosts=self.settings.webhook_private_hosts, timeout=read, connect_timeout=connect
            )
        except webhooks.UndeliverableWebhook:
            delivery("webhook", "refused")
            raise
        except Exception:
            delivery("webhook", "failed")
            raise
        delivery("webhook", "delivered")
        return status

    def push_of(
        self,
        language: str | None,
        subject_id: str,
        version: int,
        kind: str,
        game_id: str | None,
        game: Game | None,
        notification_id: str | None = None,
    ) -> Push:
        """What a push says (``game``: the game whose turn it is about, for its deadline: the TTL, the urgency;
        ``notification_id``: the notice's id in the player's feed)."""
        ttl, urgency, due_at = PUSH_TTL, "normal", None
        if game is not None and (due_at := self.games.deadline(game)) is not None:
            ttl = max(0, int((due_at - self.clock()).total_seconds()))
            urgency = "high" if ttl <= URGENT_WITHIN else "normal"
        notice = notice_fields(kind, subject_id, version, game_id, language, notification_id)
        on_game = (kind not in CHALLENGE_NOTICES and kind not in TOURNAMENT_NOTICES) or game_id
        notice["url"] = f"/play#game={game_id or subject_id}" if on_game else "/play"
        if due_at is not None:
            notice["deadline"] = _stamp(due_at)
        return Push(json.dumps(notice, separators=(",", ":")).encode(), ttl, urgency, subject_id.replace("_", "-"))

    def send_push(
        self, player_id: str, subscriptions: Sequence[Subscription], message_: Push, budget: float | None = None
    ) -> str:
        """Send a push to each subscription (one after another); a subscription whose push service answers 404 or 410
        is forgotten.  Raises ``RuntimeError`` if none got through and some failed for a while (worth a retry)."""
        read, connect = self._timeouts(budget)
        sent = gone = 0
        failed: list[str] = []
        for subscription in subscriptions:
            try:
                web_push.send(
                    subscription.info(),
                    message_.payload,
                    private_key=self.settings.vapid_private_key,
                    subject=self.settings.vapid_subject,
                    ttl=message_.ttl,
                    urgency=message_.urgency,
                    topic=message_.topic,
                    private_hosts=self.settings.webhook_private_hosts,
                    timeout=read,
                    connect_timeout=connect,
                )
                sent += 1
            except web_push.SubscriptionGone:
                self.push.gone(player_id, subscription.endpoint)
                gone += 1
            except webhooks.UndeliverableWebhook as refused:
                log.warning("push to %s of player %s refused: %s", subscription.endpoint[:60], player_id, refused)
            except Exception as error:  # a push service that is down or slow: tried again (RQ's retries)
                failed.append(f"{subscription.endpoint[:60]}: {error}")
        delivery("web_push", "delivered", sent)
        delivery("web_push", "unregistered", gone)
        delivery("web_push", "refused", len(subscriptions) - sent - gone - len(failed))
        delivery("web_push", "failed", len(failed))
        if failed and not sent:
            raise RuntimeError(f"no push got through ({len(failed)} failed): {'; '.join(failed)}")
        return f"pushed to {sent} device(s), {gone} subscription(s) gone, {len(failed)} failed"

    def native_of(self, message_: Push) -> fcm.FcmMessage:
        """The same notice as a native push: its members as FCM's ``data`` (strings), its texts as the notification, the
        web push's topic as the collapse key, its TTL as the lifetime, high priority where its urgency is high."""
        notice = json.loads(message_.payload)
        data = {key: value if isinstance(value, str) else json.dumps(value) for key, value in notice.items()}
        return fcm.FcmMessage(data, notice["title"], notice["body"], message_.topic, message_.ttl, message_.urgency == "high")

    def send_native(self, player_id: str, devices: Sequence[Device], message_: Push, budget: float | None = None) -> str:
        """Send a native push to each device (one after another); a device FCM says is unregistered is forgotten.
        Raises ``RuntimeError`` if none got through and some failed for a while (worth a retry)."""
        sender = self.push.native.fcm if self.push.native is not None else None
        if sender is None:
            return "no native push: FCM is not configured"
        read, _ = self._timeouts(budget)
        native = self.native_of(message_)
        sent = gone = 0
        failed: list[str] = []
        for device in devices:
            try:
                sender.send(device.token, native, timeout=read)
                sent += 1
            except fcm.DeviceGone:
                if self.push.native is not None:
                    self.push.native.gone(player_id, device)
                gone += 1
            except fcm.FcmRefused as refused:
                log.warning("native push to device %s of player %s refused: %s", device.id, player_id, refused)
            except Exception as error:  # FCM down or slow, a token endpoint that fails: tried again (RQ's retries)
                failed.append(f"device {device.id}: {error}")
        delivery("fcm", "delivered", sent)
        delivery("fcm", "unregistered", gone)
        delivery("fcm", "refused", len(devices) - sent - gone - len(failed))
        delivery("fcm", "failed", len(failed))
        if failed and not sent:
            raise RuntimeError(f"no native push got through ({len(failed)} failed): {'; '.join(failed)}")
        return f"pushed to {sent} app(s), {gone} device(s) gone, {len(failed)} failed"
