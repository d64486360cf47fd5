// The player this browser plays as, and their calls to /v1.  The token stays in localStorage ("red7.player"); the
// page never sends it anywhere but this origin's API (the CSP's connect-src 'self' keeps it so).

import { request } from "../core/api.js";
import { $ } from "../core/dom.js";
import { askedLanguage, keptLanguage, switchTo } from "../core/language.js";
import { t } from "../core/words.js";
import { notice } from "./ui.js";

/** @import { Answer } from "../core/api.js" */
/** @typedef {{ id: string, name: string, handle: string | null, token: string }} Player */

export const STORE = "red7.player";
/** The quick-match tickets this browser keeps ({player, ids}, the newest first): the player's, gone with them. */
export const TICKETS = "red7.tickets";

/** @type {Player | null} */
let player = null;

/** @type {((player: Player | null) => void)[]} */
const saved = [];

/**
 * Be told each time the player is saved (signed in, renamed, forgotten: null).
 * @param {(player: Player | null) => void} then
 */
export function whenSaved(then) {
  saved.push(then);
}

/** The player this browser plays as, or null. */
export function me() {
  return player;
}

/**
 * The player, where the screen is one only a player reaches (the router asks a visitor for a name first).
 * @returns {Player}
 */
export function signedIn() {
  if (!player) throw new Error("no player in this browser");
  return player;
}

/** @returns {Player | null} */
export function loadPlayer() {
  try {
    const stored = JSON.parse(localStorage.getItem(STORE) || "null");
    return stored && typeof stored.token === "string" ? stored : null;
  } catch (error) {
    return null;
  }
}

/**
 * Keep ``next`` as the player (null: forget them, and their tickets), and say who is signed in.
 * @param {Player | null} next
 */
export function savePlayer(next) {
  player = next;
  if (next) localStorage.setItem(STORE, JSON.stringify(next));
  else {
    localStorage.removeItem(STORE);
    localStorage.removeItem(TICKETS);  // the tickets were the player's: a next player starts with none
  }
  $("who").hidden = !next;
  $("nav").hidden = !next;
  document.body.classList.toggle("signed-in", !!next);
  $("who-name").textContent = next ? next.name : "";
  $("who-name").title = next ? next.name : "";
  const handle = $("who-handle", HTMLAnchorElement);
  handle.hidden = !(next && next.handle);
  handle.textContent = next && next.handle ? "@" + next.handle : "";
  if (next && next.handle) handle.href = "#player=" + encodeURIComponent(next.handle);
  for (const then of saved) then(next);
}

/** @type {() => void} */
let forgotten = () => {};

/**
 * What the page does when the server no longer knows the player's token (revoked elsewhere, the account deleted).
 * @param {() => void} then
 */
export function whenForgotten(then) {
  forgotten = then;
}

/**
 * @typedef {object} ApiCall
 * @property {unknown} [body]
 * @property {Record<string, string>} [headers]
 * @property {AbortSignal} [signal]
 * @property {number} [retries]
 * @property {boolean} [auth] false: without the token
 * @property {boolean} [quiet] true: a wait for a busy server is not said
 */

/**
 * One call to /v1 with the player's token (core/api.js's request): a wait for a busy server is said unless
 * ``quiet``, and a token the server no longer knows makes the page forget the player.  A refusal is thrown.
 * @param {string} method
 * @param {string} path
 * @param {ApiCall} [options]
 * @returns {Promise<Answer>}
 */
export async function api(method, path, options = {}) {
  const withToken = options.auth !== false;
  try {
    return await request(method, path, {
      body: options.body, headers: options.headers, signal: options.signal, retries: options.retries,
      token: player && withToken ? player.token : null,
      waiting: options.quiet ? undefined : (seconds) => notice(t("play.busy", { seconds })),
    });
  } catch (problem) {
    const refused = /** @type {{ status?: number, code?: string | null }} */ (problem);
    if (refused.status === 401 && refused.code === "invalid_token" && withToken) forgotten();
    throw problem;
  }
}

/** A fresh Idempotency-Key: a retry of the same request is safe, and a new request is new. */
export const newKey = () => ({ "Idempotency-Key": crypto.randomUUID() });

/** The player as the server has them now (a handle chosen in another tab, say), and their language setting. */
export async function reloadMe() {
  const got = (await api("GET", "/v1/players/me", { quiet: true })).data;
  if (player) savePlayer({ ...player, name: got.name, handle: got.handle || null });
  if (got.language && !askedLanguage() && !keptLanguage()) switchTo(got.language);  // the player's setting, from any device
}
