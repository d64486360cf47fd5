"""A player's own feed and inbox through the client openapi-python-client generates (package ``red7_client``).

Another player challenges us, and we wait for its notice from the feed's beginning (``followMyEvents``, the JSON
page: the form the generator types).  Opened afresh, the feed states what stands, that challenge among it, and our
unread count.  Then we long-poll it from where the state left off
(``after``) while a third player challenges us: the wait answers with that notice as it is written.  Resumed
after it, the feed repeats nothing.  The inbox (``listNotifications``) lists both notices newest first, ``getMe``
counts them unread, and ``markNotificationsRead`` up to the newest drops the count to none, on ``getMe`` too.

Run by tests/clients/test_python_client.py after ``mypy --strict`` checked it against the generated package (no
casts, no dict access).  Usage: ``python inbox.py BASE_URL``; it prints one line.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NoReturn

import httpx
from red7_client import AuthenticatedClient, Client
from red7_client.api.v1 import (
    create_challenge,
    create_player,
    follow_my_events,
    get_me,
    list_notifications,
    mark_notifications_read,
)
from red7_client.models import (
    Challenge,
    ChallengeCreate,
    FeedState,
    MyEventsPage,
    NotificationList,
    NotificationsRead,
    NotificationsReadResult,
    Player,
    PlayerCreate,
    PlayerCreated,
)
from red7_client.types import Unset

#: How long the long-poll may wait for the notice (the server caps a wait at RED7_LONG_POLL_MAX, 25 s by default).
WAIT = 20.0
#: How long after the wait began the third player challenges us: the wait is open on the server by then.
CHALLENGE_AFTER = 0.5


def fail(what: str, got: object) -> NoReturn:
    raise SystemExit(f"{what}: {got!r}")


def sign_up(anonymous: Client, base_url: str, name: str) -> tuple[str, AuthenticatedClient]:
    created = create_player.sync(client=anonymous, body=PlayerCreate(name=name))
    if not isinstance(created, PlayerCreated):
        fail("sign-up failed", created)
    # A long-poll waits up to WAIT: the request's timeout is longer.
    return created.id, AuthenticatedClient(base_url=base_url, token=created.token, timeout=httpx.Timeout(WAIT + 15))


def challenge(them: AuthenticatedClient, my_id: str) -> Challenge:
    made = create_challenge.sync(client=them, body=ChallengeCreate(players=[my_id]))
    if not isinstance(made, Challenge):
        fail("the challenge", made)
    return made


def unread_on_me(me: AuthenticatedClient) -> int:
    mine = get_me.sync(client=me)
    if not isinstance(mine, Player) or isinstance(mine.unread_notifications, Unset):
        fail("getMe's unread_notifications", mine)
    return mine.unread_notifications


def main(base_url: str) -> None:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    my_id, me = sign_up(anonymous, base_url, "Inbox")
    _, them = sign_up(anonymous, base_url, "Challenger")
    _, rival = sign_up(anonymous, base_url, "Rival")  # one open challenge per challenger and player: another one's
    first = challenge(them, my_id)
    # Its notice is written by the workers a moment later: waited for from the feed's very beginning.
    arrived = follow_my_events.sync(client=me, after="0-0", wait=WAIT)
    if not isinstance(arrived, MyEventsPage) or [n.challenge_id for n in arrived.notices] != [first.id]:
        fail("the first challenge's notice", arrived)

    # The feed opens with what stands: the challenge to us, and the unread count its notice makes.
    opened = follow_my_events.sync(client=me)
    if not isinstance(opened, MyEventsPage) or not isinstance(opened.state, FeedState):
        fail("the feed's opening page", opened)
    if [c.id for c in opened.state.challenges] != [first.id] or opened.state.unread != 1 or opened.notices:
        fail("the feed's opening state", opened.state)

    # Long-polled from where the state left off, while a third player challenges us.
    with ThreadPoolExecutor(1) as pool:
        started = time.monotonic()
        waiting = pool.submit(follow_my_events.sync, client=me, after=opened.next_, wait=WAIT)
        time.sleep(CHALLENGE_AFTER)
        second = challenge(rival, my_id)
        page = waiting.result()
    took = time.monotonic() - started
    if not isinstance(page, MyEventsPage) or not isinstance(page.state, Unset):
        fail("the long-polled page (no state after `after`)", page)
    if [(n.event, n.challenge_id) for n in page.notices] != [("challenge_received", second.id)] or page.unread != 2:
        fail("the notice the wait answered with", page)
    if not CHALLENGE_AFTER <= took < WAIT:
        fail("the wait did not answer as the notice came", took)
    # Resumed after it: nothing repeated, nothing new.
    resumed = follow_my_events.sync(client=me, after=page.next_)
    if not isinstance(resumed, MyEventsPage) or resumed.notices or resumed.next_ != page.next_:
        fail("the feed resumed after the notice", resumed)

    # The inbox: both notices, newest first, unread; marked read up to the newest, none unread on any device.
    inbox = list_notifications.sync(client=me)
    if not isinstance(inbox, NotificationList):
        fail("listNotifications", inbox)
    newest = page.notices[0].notification_id
    if [n.challenge_id for n in inbox.notifications] != [second.id, first.id] or inbox.notifications[0].notification_id != newest:
        fail("the inbox, newest first", inbox.notifications)
    before = unread_on_me(me)
    if (inbox.unread, before) != (2, 2):
        fail("the unread counts before marking", (inbox.unread, before))
    marked = mark_notifications_read.sync(client=me, body=NotificationsRead(up_to=newest))
    if not isinstance(marked, NotificationsReadResult) or (marked.read_up_to, marked.unread) != (newest, 0):
        fail("markNotificationsRead", marked)
    after = unread_on_me(me)
    again = list_notifications.sync(client=me)
    if after != 0 or not isinstance(again, NotificationList) or (again.read_up_to, again.unread) != (newest, 0):
        fail("the unread counts after marking", (after, again))
    print(
        f"feed: opened with {len(opened.state.challenges)} challenge, {opened.state.unread} unread; "
        f"long-poll answered {page.notices[0].event} as it came; resumed: nothing repeated; "
        f"inbox: {len(inbox.notifications)} notices newest first, getMe unread {before} -> {after} once marked read"
    )


if __name__ == "__main__":
    main(sys.argv[1])
