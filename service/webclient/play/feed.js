// The player's own feed (followMyEvents), opened once a visit: what stands when it opens (open challenges, waiting
// tickets, rematch offers, unread count), then each notice as it is written.  The lobby's lists, the tickets, a
// finished game's rematch and the unread badge are drawn from it: nothing is read again and again.
//
// EventSource goes with a stream ticket (createMyStreamTicket, good for a minute): the browser reconnects by itself
// with Last-Event-ID; a stream it gave up on is opened with a new ticket after the last notice seen.  Without
// EventSource or stream tickets, or through a proxy that cuts the stream as it opens, the feed is long-polled.  A
// feed another tab took (`replaced`) is read every SLOW_POLL ms until the tab is shown again, as live.js does.

import { isAbort, sleep } from "../core/api.js";
import { $ } from "../core/dom.js";
import { language, t } from "../core/words.js";
import { api, whenSaved } from "./session.js";
import { notice } from "./ui.js";

/** @import { Player } from "./session.js" */

const SLOW_POLL = 10000;  // ms between two reads of a feed another tab holds
const CUT_SHORT = 1000;  // ms: a stream or a wait ended sooner than this was cut, not renewed
const CUTS_TO_POLL = 3;  // streams cut in a row before the long-poll takes over

/**
 * A notice as the feed carries it (its schema in the OpenAPI document: Notice).
 * @typedef {{ event: string, notification_id: string, title: string, body: string, game_id?: string,
 *   challenge_id?: string, [member: string]: any }} Notice
 */
/**
 * What stands when the feed opens (FeedState).
 * @typedef {{ challenges: any[], tickets: any[], rematch_offers: { game_id: string, offered_by: number[] }[],
 *   your_turn: any[], unread: number }} FeedState
 */
/**
 * What a module hears of the feed: ``state`` once it opens (again after a gap the notices cannot fill), then each
 * ``notice``.
 * @typedef {{ state?: (state: FeedState) => void, notice?: (notice: Notice) => void }} Listener
 */

/** @type {Listener[]} */
const listeners = [];

const feed = {
  generation: 0,
  /** @type {string | null} the player followed */
  player: /** @type {string | null} */ (null),
  /** @type {EventSource | null} */
  source: /** @type {EventSource | null} */ (null),
  /** @type {AbortController | null} */
  abort: /** @type {AbortController | null} */ (null),
  /** the last notice's id (null: none yet, the feed opens with the state) */
  after: /** @type {string | null} */ (null),
  /** "stream", "poll", "slow" or "off": data-feed on the page */
  mode: "off",
  cuts: 0,
  /** @type {FeedState | null} the state as it opened */
  state: /** @type {FeedState | null} */ (null),
};

/**
 * Hear of the feed's state and notices (each module once, at set-up); one that opened already hands its state now.
 * @param {Listener} listener
 */
export function onFeed(listener) {
  listeners.push(listener);
  if (feed.state && listener.state) listener.state(feed.state);
}

/** Whether the feed is open (a stream or a long-poll): while it is, nothing is read again to find out what changed. */
export const feedOpen = () => feed.mode === "stream" || feed.mode === "poll";

/** @param {string} mode */
function setMode(mode) {
  feed.mode = mode;
  document.body.dataset.feed = mode;
}

/** @param {FeedState} state */
function tookState(state) {
  feed.state = state;
  showUnread(state.unread);
  for (const listener of listeners) if (listener.state) listener.state(state);
}

/**
 * Whether notice id ``a`` ("<ms>-<n>") comes after ``b``.
 * @param {string} a
 * @param {string} b
 */
function newer(a, b) {
  const [am, an] = a.split("-").map(Number);
  const [bm, bn] = b.split("-").map(Number);
  return am > bm || (am === bm && an > bn);
}

/** @param {Notice} got */
function tookNotice(got) {
  if (feed.after && !newer(got.notification_id, feed.after)) return;  // seen already
  feed.after = got.notification_id;
  notice(got.body ? `${got.title}: ${got.body}` : got.title);
  for (const listener of listeners) if (listener.notice) listener.notice(got);
}

/**
 * The unread badge: how many notices the player has not marked read (on any device); a click marks them read.
 * @param {number} unread
 */
function showUnread(unread) {
  const badge = $("unread", HTMLButtonElement);
  badge.hidden = !unread;
  badge.textContent = String(unread);
  badge.title = t("play.unread_notices", { n: unread });
  badge.setAttribute("aria-label", badge.title);
}

async function markRead() {
  if (!feed.after) return;
  try {
    showUnread((await api("POST", "/v1/players/me/notifications/read", { body: { up_to: feed.after }, quiet: true })).data.unread);
  } catch (problem) { /* the badge stays as it was: the next notice says the count again */ }
}

/** Stop following (the player signed out, or another signed in). */
function stop() {
  feed.generation += 1;
  if (feed.source) feed.source.close();
  if (feed.abort) feed.abort.abort();
  Object.assign(feed, { source: null, abort: null, after: null, state: null, player: null, cuts: 0 });
  setMode("off");
  $("unread").hidden = true;
}

/**
 * Follow ``player``'s feed (a player signed in: once for the visit; the same player saved again changes nothing).
 * @param {Player | null} player
 */
function follow(player) {
  if (player && player.id === feed.player) return;
  stop();
  if (!player) return;
  feed.player = player.id;
  open(feed.generation);
}

/** @param {number} generation */
async function open(generation) {
  if (typeof EventSource === "undefined") {
    pages(generation);
    return;
  }
  let ticket;
  try {
    ticket = (await api("POST", "/v1/players/me/stream-tickets", { quiet: true })).data.ticket;
  } catch (problem) {
    if (generation !== feed.generation) return;
    const status = /** @type {{ status?: number }} */ (problem).status || 0;
    if (status >= 400 && status < 500) pages(generation);  // no tickets on this server: the long-poll sends the token
    else setTimeout(() => { if (generation === feed.generation) open(generation); }, 3000);
    return;
  }
  if (generation !== feed.generation) return;
  stream(generation, ticket);
}

/**
 * @param {number} generation
 * @param {string} ticket
 */
function stream(generation, ticket) {
  const after = feed.after ? `&after=${encodeURIComponent(feed.after)}` : "";
  // EventSource sends no Accept-Language: the page's language in the address, for the notices' words.
  const source = new EventSource(`/v1/players/me/events?ticket=${encodeURIComponent(ticket)}${after}&lang=${language()}`);
  feed.source = source;
  /** @type {number | null} */
  let openedAt = null;
  source.addEventListener("open", () => { openedAt = Date.now(); setMode("stream"); });
  source.addEventListener("state", (message) => {
    feed.cuts = 0;
    try { tookState(JSON.parse(message.data)); } catch (error) { /* unreadable: the next one */ }
  });
  source.addEventListener("notice", (message) => {
    feed.cuts = 0;
    try { tookNotice(JSON.parse(message.data)); } catch (error) { /* unreadable: dropped */ }
  });
  source.addEventListener("unread", (message) => {
    try { showUnread(JSON.parse(message.data).unread); } catch (error) { /* unreadable: the next one */ }
  });
  source.addEventListener("replaced", () => {
    source.close();
    if (generation === feed.generation) pages(generation, true);
  });
  source.addEventListener("error", () => {
    if (generation !== feed.generation) { source.close(); return; }
    const cut = openedAt === null || Date.now() - openedAt < CUT_SHORT;
    openedAt = null;
    if (!cut) feed.cuts = 0;
    if (source.readyState === EventSource.CONNECTING && !cut) return;  // the browser reconnects, with Last-Event-ID
    // Refused (the ticket ran out), or cut as it opened: a new ticket, after the last notice seen; a stream cut again
    // and again (a proxy that does not pass it on) gives way to the long-poll.
    source.close();
    if (cut) feed.cuts += 1;
    if (feed.cuts >= CUTS_TO_POLL) { pages(generation); return; }
    setTimeout(() => { if (generation === feed.generation) open(generation); }, cut ? 2000 : 0);
  });
}

/**
 * The feed as pages (a server without stream tickets, or a stream cut again and again): long-polled, or (``slow``: a
 * newer wait of the token took this one's slot, another tab) read every SLOW_POLL ms without waiting.
 * @param {number} generation
 * @param {boolean} [slow]
 */
async function pages(generation, slow = false) {
  setMode(slow ? "slow" : "poll");
  const abort = new AbortController();
  feed.abort = abort;
  let cutShort = 0;
  while (generation === feed.generation) {
    try {
      const asked = Date.now();
      const query = feed.after ? `?after=${encodeURIComponent(feed.after)}${slow ? "" : "&wait=25"}` : "";
      const page = (await api("GET", "/v1/players/me/events" + query, { signal: abort.signal, quiet: true, retries: 10 })).data;
      if (generation !== feed.generation) return;
      if (page.state) tookState(page.state);
      for (const got of page.notices) tookNotice(got);
      // An empty answer at once, twice, to a wait: a newer wait of the token took this one's slot.
      cutShort = query && !page.notices.length && Date.now() - asked < CUT_SHORT ? cutShort + 1 : 0;
      feed.after = page.next;
      showUnread(page.unread);
      if (!slow && cutShort >= 2) { pages(generation, true); return; }
    } catch (problem) {
      if (generation !== feed.generation || isAbort(problem)) return;
      await sleep(3000);
    }
    if (slow) await sleep(SLOW_POLL);
  }
}

/** The feed follows whoever signs in, for the whole visit; a tab shown again whose feed another took opens it again. */
export function setUpFeed() {
  whenSaved(follow);
  $("unread").addEventListener("click", markRead);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || feed.mode !== "slow") return;
    const generation = ++feed.generation;
    if (feed.abort) feed.abort.abort();
    open(generation);
  });
}
