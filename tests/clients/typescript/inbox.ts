// A player's own feed and inbox through openapi-typescript's types (red7.d.ts) and openapi-fetch, no casts.
// Another player challenges us, and we wait for its notice from the feed's beginning (followMyEvents, the JSON page:
// the form a typed client reads; its NDJSON and SSE forms are strings to it).  Opened afresh, the feed states what
// stands, that challenge among it, and our unread count.  Then we long-poll it from where the state left off
// (`after`) while a third player challenges us: the wait answers with that notice as it is written.  Resumed after
// it, the feed repeats nothing.  The inbox (listNotifications) lists both notices newest first, getMe counts them
// unread, and markNotificationsRead up to the newest drops the count to none, on getMe too.
// Usage: node inbox.js BASE_URL; it prints one line.
import createClient from "openapi-fetch";
import type { components, paths } from "./red7.js";

type Client = ReturnType<typeof createClient<paths>>;
type MyEventsPage = components["schemas"]["MyEventsPage"];
type Challenge = components["schemas"]["Challenge"];

const baseUrl = process.argv[2];
// How long the long-poll may wait for the notice (the server caps a wait at RED7_LONG_POLL_MAX, 25 s by default).
const WAIT = 20;
// How long after the wait began the third player challenges us: the wait is open on the server by then.
const CHALLENGE_AFTER_MS = 500;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function fail(what: string, got: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(got)}`);
}

async function signUp(anonymous: Client, name: string): Promise<{ id: string; client: Client }> {
  const made = await anonymous.POST("/v1/players", { body: { name } });
  if (made.data === undefined) fail("sign-up failed", made.error);
  return { id: made.data.id, client: createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${made.data.token}` } }) };
}

async function challenge(them: Client, myId: string): Promise<Challenge> {
  const made = await them.POST("/v1/challenges", { body: { players: [myId] } });
  if (made.data === undefined) fail("the challenge", made.error);
  return made.data;
}

// The feed's page (its JSON form, which openapi-fetch parses: the other forms are typed as strings).
async function follow(me: Client, query: { after?: string; wait?: number }): Promise<MyEventsPage> {
  const read = await me.GET("/v1/players/me/events", { params: { query } });
  if (read.data === undefined || typeof read.data === "string") fail("followMyEvents", read.error);
  return read.data;
}

async function unreadOnMe(me: Client): Promise<number> {
  const mine = await me.GET("/v1/players/me", {});
  if (mine.data === undefined || mine.data.unread_notifications === undefined) fail("getMe's unread_notifications", mine.error);
  return mine.data.unread_notifications;
}

async function main(): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const { id: myId, client: me } = await signUp(anonymous, "Inbox");
  const { client: them } = await signUp(anonymous, "Challenger");
  const { client: rival } = await signUp(anonymous, "Rival"); // one open challenge per challenger and player
  const first = await challenge(them, myId);
  // Its notice is written by the workers a moment later: waited for from the feed's very beginning.
  const arrived = await follow(me, { after: "0-0", wait: WAIT });
  if (arrived.notices.map((n) => n.challenge_id).join() !== first.id) fail("the first challenge's notice", arrived);

  // The feed opens with what stands: the challenge to us, and the unread count its notice makes.
  const opened = await follow(me, {});
  const state = opened.state;
  if (state === undefined || state.challenges.map((c) => c.id).join() !== first.id || state.unread !== 1 || opened.notices.length !== 0) {
    fail("the feed's opening state", opened);
  }

  // Long-polled from where the state left off, while a third player challenges us.
  const started = Date.now();
  const waiting = follow(me, { after: opened.next, wait: WAIT });
  await sleep(CHALLENGE_AFTER_MS);
  const second = await challenge(rival, myId);
  const page = await waiting;
  const took = Date.now() - started;
  const heard = page.notices.map((n) => `${n.event} ${n.challenge_id}`);
  if (page.state !== undefined || heard.join() !== `challenge_received ${second.id}` || page.unread !== 2) {
    fail("the notice the wait answered with", page);
  }
  if (took < CHALLENGE_AFTER_MS || took >= WAIT * 1000) fail("the wait did not answer as the notice came", took);
  // Resumed after it: nothing repeated, nothing new.
  const resumed = await follow(me, { after: page.next });
  if (resumed.notices.length !== 0 || resumed.next !== page.next) fail("the feed resumed after the notice", resumed);

  // The inbox: both notices, newest first, unread; marked read up to the newest, none unread on any device.
  const inbox = await me.GET("/v1/players/me/notifications", {});
  if (inbox.data === undefined) fail("listNotifications", inbox.error);
  const newest = page.notices[0]?.notification_id;
  if (newest === undefined) fail("the notice's id", page.notices);
  const listed = inbox.data.notifications.map((n) => n.challenge_id);
  if (listed.join() !== `${second.id},${first.id}` || inbox.data.notifications[0]?.notification_id !== newest) {
    fail("the inbox, newest first", inbox.data.notifications);
  }
  const before = await unreadOnMe(me);
  if (inbox.data.unread !== 2 || before !== 2) fail("the unread counts before marking", [inbox.data.unread, before]);
  const marked = await me.POST("/v1/players/me/notifications/read", { body: { up_to: newest } });
  if (marked.data === undefined || marked.data.read_up_to !== newest || marked.data.unread !== 0) fail("markNotificationsRead", marked.error);
  const after = await unreadOnMe(me);
  const again = await me.GET("/v1/players/me/notifications", {});
  if (after !== 0 || again.data === undefined || again.data.read_up_to !== newest || again.data.unread !== 0) {
    fail("the unread counts after marking", [after, again.error]);
  }
  console.log(
    `feed: opened with ${state.challenges.length} challenge, ${state.unread} unread; ` +
      `long-poll answered ${page.notices[0]?.event} as it came; resumed: nothing repeated; ` +
      `inbox: ${inbox.data.notifications.length} notices newest first, getMe unread ${before} -> ${after} once marked read`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
