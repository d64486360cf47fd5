// A game followed live.  The view is the truth: each event only says "something happened" (and what, for the news
// and the marks of what the others did); the table then reads the view again.  Events come from the ticketed SSE
// stream (a ticket for each connection: createStreamTicket), or, where the server has no stream tickets, from the
// long-poll.
//
// A player holds only a few waits open at once (long-polls and streams: RED7_MAX_WAITS_PER_TOKEN per API
// process); a newer one takes the slot of the oldest, which the server ends (a stream says `event: replaced`).
// With more tabs open than that, a tab that reconnected at once would take another tab's slot, which would
// reconnect and take the next one's: a loop, every tab losing its feed in turn, and waiting a while before
// reconnecting only slows the loop down.  So a tab whose wait was replaced does not take a slot again on its
// own: it reads the feed every SLOW_POLL ms without waiting (a plain read holds no slot, so it ends no other
// tab's wait), and goes live again only when the player comes back to it (the tab shown again), the one tab
// that should have the live feed.  The long-poll has no such event: a wait that keeps answering at once with
// nothing (twice in a row, sooner than any server ends a wait) was cut short, and is taken the same way.

import { isAbort, sleep } from "../core/api.js";
import { $ } from "../core/dom.js";
import { t } from "../core/words.js";
import { api } from "./session.js";

/** @import { GameEvent } from "./moves.js" */

export const SLOW_POLL = 10000;
const CUT_SHORT = 1500;  // ms: an empty long-poll answer sooner than this was ended by a newer wait of the token

/** The events a stream sends, each by its type. */
export const EVENT_TYPES = Object.freeze([
  "game_created", "seat_taken", "seat_left", "game_started", "round_dealt", "turn_started", "card_played",
  "card_discarded", "card_drawn", "card_taken", "card_placed", "player_eliminated", "turn_timed_out",
  "seat_resigned", "game_cancelled", "game_aborted", "round_won", "round_scored", "game_finished",
]);

/**
 * The game on the table as the feed knows it: its id, the last event read (``after``) and its view's status.
 * @typedef {{ id: string, after: number, view: Record<string, any> | null, talk?: string }} Followed
 */

/**
 * What the table does with the feed: take an event in (false: seen already), catch up once events came, carry on
 * from ``version`` after the server lost events it sent, read the view again; and whether the game is still the
 * one shown.
 * @typedef {object} Table
 * @property {(event: GameEvent) => boolean} take
 * @property {() => void} caughtUp
 * @property {(version: number) => Promise<void>} lost
 * @property {() => Promise<void>} refresh
 * @property {() => boolean} shown
 * @property {(message: Record<string, any>) => void} [said] a message of the table talk came (a seated player's feed)
 */

/**
 * @typedef {object} Live
 * @property {number} generation a feed's number: one that is over stops as soon as it looks
 * @property {EventSource | null} source
 * @property {AbortController | null} abort
 * @property {boolean} slow
 * @property {Followed | null} game
 * @property {Table | null} table
 */

/** @type {Live} */
let live = { generation: 0, source: null, abort: null, slow: false, game: null, table: null };

/**
 * How the table says it follows the game (its data-live, and in words).
 * @param {"stream" | "poll" | "slow" | "over" | "retry" | "off"} mode
 */
function setLiveMode(mode) {
  $("table").dataset.live = mode;
  $("live-mode").textContent = {
    stream: t("play.live.stream"),
    poll: t("play.live.poll"),
    slow: t("play.live.slow", { seconds: SLOW_POLL / 1000 }),
    over: t("play.live.over"),
    retry: t("play.live.retry"),
    off: "",
  }[mode];
}

/** Stop following (another screen, another game, a player forgotten). */
export function stopLive() {
  live.generation += 1;
  if (live.source) live.source.close();
  if (live.abort) live.abort.abort();
  live = { generation: live.generation, source: null, abort: null, slow: false, game: null, table: null };
  setLiveMode("off");
}

/**
 * Follow ``game`` from its event ``after`` on, handing the table what comes.
 * @param {Followed} game
 * @param {Table} table
 */
export async function startLive(game, table) {
  const generation = live.generation;
  live.game = game;
  live.table = table;
  live.slow = false;
  if (game.view && ["finished", "cancelled", "aborted"].includes(game.view.status)) {
    setLiveMode("over");
    return;
  }
  let ticket;
  try {
    ticket = (await api("POST", `/v1/games/${encodeURIComponent(game.id)}/stream-tickets`, { quiet: true })).data;
  } catch (problem) {
    if (generation !== live.generation) return;
    // No ticket for this page (a server without stream tickets answers 404 or 405): the long-poll, which
    // sends the token in a header, does the same job.  A server error or no network: try again shortly.
    const status = /** @type {{ status?: number }} */ (problem).status || 0;
    if (status >= 400 && status < 500) {
      longPoll(game, table, generation);
      return;
    }
    setLiveMode("retry");
    await sleep(3000);
    if (generation === live.generation) startLive(game, table);
    return;
  }
  if (generation !== live.generation) return;
  stream(game, table, generation, ticket.ticket);
}

/**
 * @param {Followed} game
 * @param {Table} table
 * @param {number} generation
 * @param {string} ticket
 */
function stream(game, table, generation, ticket) {
  const url = `/v1/games/${encodeURIComponent(game.id)}/stream?ticket=${encodeURIComponent(ticket)}&after=${game.after}`;
  const source = new EventSource(url);
  live.source = source;
  setLiveMode("stream");
  /** @param {MessageEvent} message */
  const onEvent = (message) => {
    let event;
    try { event = JSON.parse(message.data); } catch (error) { return; }
    if (table.take(event)) table.caughtUp();
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
  source.addEventListener("talk", (message) => {  // table talk: no event of the game, no id (docs/safety.md)
    try { if (table.said) table.said(JSON.parse(message.data)); } catch (error) { /* a message unreadable: dropped */ }
  });
  source.addEventListener("reset", (message) => {
    let version;
    try { version = JSON.parse(message.data).version; } catch (error) { return; }
    table.lost(version);
  });
  source.addEventListener("end", () => {
    source.close();
    setLiveMode("over");
    table.refresh();
  });
  source.addEventListener("replaced", () => {
    // A newer wait of this player's token took this stream's slot (another tab, most likely): see SLOW_POLL.
    source.close();
    if (generation === live.generation) slowPoll(game, table, generation);
  });
  /** @type {number | null} */
  let openedAt = null;  // when the server answered: a stream that ends at once is a failure, not a renewal
  source.addEventListener("open", () => { openedAt = Date.now(); });
  source.addEventListener("error", () => {
    // The stream ended (the server closes it now and then) or was refused (a used or expired ticket):
    // never let the browser reconnect with the old ticket; come back with a new one, after the last event seen.
    // A stream that was open a while and ended is renewed at once and quietly: "Reconnecting…" is for a failure.
    source.close();
    if (generation !== live.generation) return;
    if (openedAt !== null && Date.now() - openedAt >= 1000) {
      startLive(game, table);
      return;
    }
    setLiveMode("retry");
    setTimeout(() => { if (generation === live.generation) startLive(game, table); }, 500);
  });
}

/**
 * Take a page of the events feed in; true when the game is over and every event was read.
 * @param {Followed} game
 * @param {Table} table
 * @param {{ version: number, events: GameEvent[], next: number, finished: boolean, talk?: Record<string, any>[], talk_next?: string }} page
 */
async function takePage(game, table, page) {
  if (page.version < game.after) {  // the server lost events this page saw
    await table.lost(page.version);
    return false;
  }
  let moved = false;
  for (const event of page.events) moved = table.take(event) || moved;
  if (page.talk && table.said) {
    for (const message of page.talk) table.said(message);
    game.talk = page.talk_next;
  }
  game.after = Math.max(game.after, page.next);
  if (moved) table.caughtUp();
  return page.finished && game.after >= page.version;
}

/**
 * @param {Followed} game
 * @param {Table} table
 * @param {number} generation
 */
async function longPoll(game, table, generation) {
  setLiveMode("poll");
  const abort = new AbortController();
  live.abort = abort;
  let cutShort = 0;
  while (generation === live.generation) {
    try {
      const talk = table.said ? `&talk_after=${encodeURIComponent(game.talk || "0")}` : "";
      const path = `/v1/games/${encodeURIComponent(game.id)}/events?after=${game.after}&wait=25${talk}`;
      const asked = Date.now();
      const page = (await api("GET", path, { signal: abort.signal, quiet: true, retries: 10 })).data;
      if (generation !== live.generation) return;
      if (await takePage(game, table, page)) {
        setLiveMode("over");
        return;
      }
      cutShort = !page.events.length && !page.finished && Date.now() - asked < CUT_SHORT ? cutShort + 1 : 0;
      if (cutShort >= 2) {
        slowPoll(game, table, generation);
        return;
      }
    } catch (problem) {
      if (generation !== live.generation || isAbort(problem)) return;
      setLiveMode("retry");
      await sleep(3000);
      if (generation === live.generation) setLiveMode("poll");
    }
  }
}

/**
 * Read the feed every SLOW_POLL ms without waiting (no slot taken), until the tab is shown again.
 * @param {Followed} game
 * @param {Table} table
 * @param {number} generation
 */
async function slowPoll(game, table, generation) {
  live.slow = true;
  setLiveMode("slow");
  const abort = new AbortController();
  live.abort = abort;
  while (generation === live.generation) {
    try {
      const path = `/v1/games/${encodeURIComponent(game.id)}/events?after=${game.after}`;
      const page = (await api("GET", path, { signal: abort.signal, quiet: true, retries: 10 })).data;
      if (generation !== live.generation) return;
      if (await takePage(game, table, page)) {
        setLiveMode("over");
        return;
      }
      if (page.events.length && page.next < page.version) continue;  // more than a page behind: the next one now
    } catch (problem) {
      if (generation !== live.generation || isAbort(problem)) return;
    }
    await sleep(SLOW_POLL);
  }
}

/** The player came back to a tab whose live feed another one took: live again (this tab's turn to hold it). */
export function setUpLive() {
  document.addEventListener("visibilitychange", () => {
    const { game, table } = live;
    if (document.visibilityState !== "visible" || !live.slow || !game || !table || !table.shown()) return;
    stopLive();
    startLive(game, table);
  });
}
