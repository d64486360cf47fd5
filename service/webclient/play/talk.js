// Table talk, at the table of a game you hold a seat in: the messages you receive (listTableTalk, then each new one
// as the live feed brings it: live.js hands it here), preset phrases as buttons in your language and free text
// (sayAtTable).  A text the word filter held back is shown to you, its author, marked held; nobody else sees it.
// Off where nobody else at the table is a person (an AI-only table), and off for you when your own "who may talk to
// you" setting says nobody.  From a message you report it or block its author (their messages go at once); from a
// seat, report the player (report.js).

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { mySeat, seatName } from "./moves.js";
import { openReport } from "./report.js";
import { api, me, newKey } from "./session.js";
import { notice, showProblem } from "./ui.js";

/** The preset phrases (the API's TalkPhrase codes), each a button in the reader's language. */
export const PHRASES = Object.freeze(["good_luck", "well_played", "your_move", "thinking"]);
/** The longest free text the API takes (sayAtTable's text). */
export const MAX_TEXT = 200;
/** Pages of the talk read when a table opens (50 a page): a table keeps 2,000 messages at most. */
const PAGES = 40;

/**
 * A message as the API renders it (TalkMessage).
 * @typedef {{ id: string, seat: number, author_id: string, phrase: string | null, text: string | null, words: string,
 *   held: boolean, at: string }} Message
 */

/**
 * The talk of the table shown: its game, the messages by id, the authors you blocked since, your "talk_from".
 * @type {{ gameId: string | null, messages: Map<string, Message>, gone: Set<string>, reach: string | null,
 *   view: Record<string, any> | null, reading: boolean }}
 */
const talk = { gameId: null, messages: new Map(), gone: new Set(), reach: null, view: null, reading: false };

/**
 * Order of two message ids ("<ms>-<seq>", a Redis stream's).
 * @param {string} a
 * @param {string} b
 */
export function byId(a, b) {
  const [am, as] = a.split("-").map(Number);
  const [bm, bs] = b.split("-").map(Number);
  return am - bm || (as || 0) - (bs || 0);
}

/**
 * Whether talk is on at ``view``'s table for ``you``, and if not why: "spectator" (no seat), "ai" (nobody else
 * there is a person), "yours" (your setting says nobody), else null.
 * @param {Record<string, any>} view
 * @param {string | null} youId
 * @param {string | null} reach
 */
export function talkOff(view, youId, reach) {
  if (!youId || mySeat(view) === null) return "spectator";
  if (!view.seats.some((/** @type {any} */ seat) => seat.player_id && seat.player_id !== youId)) return "ai";
  if (reach === "nobody") return "yours";
  return null;
}

/**
 * A new table: your setting read; its talk is read once its view says you hold a seat there (a spectator reads none).
 * @param {string} gameId
 */
export async function openTalk(gameId) {
  talk.gameId = gameId;
  talk.messages = new Map();
  talk.gone = new Set();
  talk.view = null;
  talk.reading = false;
  talk.reach = null;
  $("talk-list").replaceChildren();
  $("talk-panel").hidden = true;
  try {
    const reach = (await api("GET", "/v1/players/me", { quiet: true })).data.talk_from;
    if (talk.gameId !== gameId) return;
    talk.reach = reach;
  } catch (problem) {
    // No answer: the setting is taken as not "nobody"; the server honours it anyway.
  }
  if (talk.view) showTalk(talk.view);
}

/**
 * The table's talk from its first message on, a page at a time.
 * @param {string} gameId
 */
async function readTalk(gameId) {
  try {
    /** @type {string | null} */
    let after = null;
    for (let page = 0; page < PAGES && talk.gameId === gameId; page++) {
      /** @type {string} */
      const query = "limit=50" + (after ? `&after=${encodeURIComponent(after)}` : "");
      /** @type {{ messages: Message[], next_cursor: string | null }} */
      const data = (await api("GET", `/v1/games/${encodeURIComponent(gameId)}/talk?${query}`, { quiet: true })).data;
      if (talk.gameId !== gameId) return;
      for (const message of data.messages) talk.messages.set(message.id, message);
      after = data.next_cursor;
      if (!after || !data.messages.length) break;
    }
  } catch (problem) {
    // Anything failed: what was read is shown; the live feed brings what comes next.
  }
  if (talk.gameId === gameId) drawMessages();
}

/**
 * A message the live feed brought (or sayAtTable answered): kept and drawn.
 * @param {Record<string, any>} said
 */
export function heard(said) {
  const message = /** @type {Message} */ (said);
  if (!talk.gameId || talk.gone.has(message.author_id)) return;
  talk.messages.set(message.id, message);
  drawMessages();
}

/**
 * The talk panel for ``view`` (the table draws it with each view).
 * @param {Record<string, any>} view
 */
export function showTalk(view) {
  if (view.id !== talk.gameId) return;
  talk.view = view;
  const you = me();
  const off = talkOff(view, you ? you.id : null, talk.reach);
  $("talk-panel").hidden = off === "spectator" || off === "ai";  // nobody to talk to: no panel at all
  if (off === "spectator" || off === "ai") return;
  if (!talk.reading) {
    talk.reading = true;
    readTalk(view.id);
  }
  $("talk-off").hidden = !off;
  $("talk-off").textContent = off === "yours" ? t("play.talk_off_yours") : "";
  $("talk-off-link").hidden = off !== "yours";
  if (you) $("talk-off-link", HTMLAnchorElement).href = `#player=${encodeURIComponent(you.id)}`;
  $("talk-on").hidden = !!off;
  drawSeats(view);
  drawMessages();
}

/** @param {Record<string, any>} view the other people at the table, each with a button to report them */
function drawSeats(view) {
  const you = me();
  const others = view.seats.filter((/** @type {any} */ seat) => seat.player_id && (!you || seat.player_id !== you.id));
  $("talk-seats").replaceChildren(
    ...others.map((/** @type {any} */ seat) => h("li", { "data-talk-seat": seat.seat },
      h("span", { text: seatName(view, seat.seat) }), " ",
      h("button", {
        type: "button", class: "small", "data-report-seat": seat.seat, text: t("play.report"),
        "aria-label": t("play.report_player", { name: seatName(view, seat.seat) }),
        onclick: () => openReport({ player: seat.player_id, name: seatName(view, seat.seat), gameId: view.id }),
      }))),
  );
}

function drawMessages() {
  const view = talk.view;
  if (!view) return;
  const you = me();
  const shown = [...talk.messages.values()].filter((m) => !talk.gone.has(m.author_id)).sort((a, b) => byId(a.id, b.id));
  $("talk-none").hidden = shown.length > 0;
  $("talk-list").replaceChildren(...shown.map((message) => {
    const mine = !!you && message.author_id === you.id;
    const name = seatName(view, message.seat);
    return h("li", { "data-id": message.id, "data-author": message.author_id, "data-held": message.held ? "true" : null, class: mine ? "mine" : null },
      h("strong", { text: mine ? t("play.name_you", { name }) : name }), " ",
      h("span", { class: "words", text: message.words }),
      message.held ? h("span", { class: "badge held", text: t("play.talk_held") }) : null,
      mine ? null : h("span", { class: "talk-actions" },
        h("button", {
          type: "button", class: "small", "data-report": message.id, text: t("play.report"),
          "aria-label": t("play.report_message", { name }),
          onclick: () => openReport({ player: message.author_id, name, gameId: view.id, messageId: message.id, words: message.words }),
        }),
        h("button", {
          type: "button", class: "small", "data-block": message.author_id, text: t("play.block"),
          "aria-label": t("play.block_player", { name }),
          onclick: () => blockAuthor(message.author_id),
        })));
  }));
}

/**
 * Block a message's author: their messages leave the list at once (the server no longer sends them either).
 * @param {string} playerId
 */
async function blockAuthor(playerId) {
  try {
    await api("PUT", `/v1/players/me/blocks/${encodeURIComponent(playerId)}`);
    talk.gone.add(playerId);
    drawMessages();
    notice(t("play.blocked"));
  } catch (problem) {
    showProblem(problem);
  }
}

/**
 * Say a phrase or a text at the table shown.
 * @param {{ phrase?: string, text?: string }} body
 * @returns {Promise<boolean>} whether it was said
 */
async function say(body) {
  const gameId = talk.gameId;
  if (!gameId) return false;
  try {
    const said = (await api("POST", `/v1/games/${encodeURIComponent(gameId)}/talk`, { body, headers: newKey() })).data;
    if (gameId === talk.gameId) heard(said);
    if (said.held) notice(t("play.talk_held_notice"));
    return true;
  } catch (problem) {
    showProblem(problem);
    return false;
  }
}

export function setUpTalk() {
  $("talk-phrases").replaceChildren(...PHRASES.map((phrase) => h("button", {
    type: "button", "data-phrase": phrase, text: t("play.phrase." + phrase), onclick: () => say({ phrase }),
  })));
  const input = $("talk-text", HTMLInputElement);
  input.maxLength = MAX_TEXT;
  $("talk-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (await say({ text })) input.value = "";
  });
}
