// /play's settings, times and choices in words: a game's settings, a turn's time, a wait, a ticket, the choices of
// the forms.  Pure (the words come from core/words.js), so node's tests run them without a browser.

import { counted, language, t } from "../core/words.js";

/**
 * A time-control choice ("t:60": 60 s a turn, "d:3": 3 days a turn, "": none) as the API's members.
 * @param {string} value
 * @returns {{ turn_timeout?: number, days_per_turn?: number }}
 */
export function timeControl(value) {
  if (value.startsWith("t:")) return { turn_timeout: Number(value.slice(2)) };
  if (value.startsWith("d:")) return { days_per_turn: Number(value.slice(2)) };
  return {};
}

/**
 * A number of seconds in the largest whole unit: "2 hours", "5 minutes", "30 seconds".
 * @param {number} seconds
 */
export function durationWords(seconds) {
  if (seconds % 3600 === 0) return counted("hours", seconds / 3600);
  if (seconds % 60 === 0) return counted("minutes", seconds / 60);
  return counted("seconds", seconds);
}

/**
 * "After 10 s", "After 1 day" (``code``: "play.after", or "play.after_lower" inside a sentence).
 * @param {number} seconds
 * @param {string} code
 */
export function afterWords(seconds, code) {
  if (seconds < 60) return t(code + "_s", { seconds });
  return t(code, { time: seconds % 86400 === 0 ? counted("days", seconds / 86400) : durationWords(seconds) });
}

/**
 * A game's (or a challenge's, an open table's) settings in a few words: "basic, card actions, 3 days a turn, rated".
 * @param {{ variant: string, action_rules?: boolean, days_per_turn?: number | null, turn_timeout?: number | null, rated?: boolean }} game
 */
export function settingsWords(game) {
  const words = [game.variant === "basic" ? t("play.w.basic") : t("play.w.advanced")];
  if (game.action_rules) words.push(t("play.w.card_actions"));
  if (game.days_per_turn) words.push(t("play.a_turn", { time: counted("days", game.days_per_turn) }));
  else if (game.turn_timeout) words.push(t("play.a_turn", { time: durationWords(game.turn_timeout) }));
  words.push(game.rated ? t("play.w.rated") : t("play.w.casual"));
  return words.join(", ");
}

/**
 * When something is due to end, in words: "in 23 min", "in 5 h", "in 3 days".
 * @param {string} iso
 * @param {number} [now] ms since the epoch
 */
export function untilWords(iso, now = Date.now()) {
  const minutes = Math.max(0, Math.round((Date.parse(iso) - now) / 60000));
  if (minutes < 60) return t("play.in_min", { minutes });
  if (minutes < 48 * 60) return t("play.in_h", { hours: Math.round(minutes / 60) });
  return t("play.in", { time: counted("days", Math.round(minutes / 1440)) });
}

/**
 * How long a ticket waited, as a clock ("0:42", "1:02:05") or in days and hours.
 * @param {number} seconds
 */
export function clockWords(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const [d, h, m, s] = [Math.floor(whole / 86400), Math.floor(whole / 3600) % 24, Math.floor(whole / 60) % 60, whole % 60];
  /** @param {number} n */
  const two = (n) => String(n).padStart(2, "0");
  if (d) return t("play.d_h", { d, h });
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/**
 * The table sizes a ticket takes: "3 players", "2, 3 or 4 players".
 * @param {number[]} counts
 */
export function countWords(counts) {
  if (counts.length === 1) return counted("players", counts[0]);
  return t("play.counts_or", { counts: counts.slice(0, -1).join(", "), last: counted("players", counts[counts.length - 1]) });
}

/**
 * A ticket's kind of game in a few words: "2 or 3 players, basic, 1 minute a turn, rated".
 * @param {{ player_counts: number[], variant: string, action_rules: boolean, days_per_turn: number | null, turn_seconds: number, rated: boolean }} ticket
 */
export function ticketWords(ticket) {
  const words = [countWords(ticket.player_counts), ticket.variant === "basic" ? t("play.w.basic") : t("play.w.advanced")];
  if (ticket.action_rules) words.push(t("play.w.card_actions"));
  words.push(t("play.a_turn", { time: ticket.days_per_turn ? counted("days", ticket.days_per_turn) : durationWords(ticket.turn_seconds) }));
  words.push(ticket.rated ? t("play.w.rated") : t("play.w.casual"));
  return words.join(", ");
}

/**
 * Who sits in a ticket's other seats after a while: "greedy AIs after 10 s"; null when nobody does.
 * @param {{ ai_fill_after: number | null, ai_level: string }} ticket
 */
export function fillWords(ticket) {
  if (ticket.ai_fill_after === null) return null;
  const after = afterWords(Math.round(ticket.ai_fill_after), "play.after_lower");
  return t("play.ai_seats_after", { level: t("play.level." + ticket.ai_level), after });
}

/**
 * A moment to come in words: its time today, else its day and time.
 * @param {string} iso
 * @param {Date} [now]
 */
export function momentWords(iso, now = new Date()) {
  const at = new Date(iso);
  const today = at.toDateString() === now.toDateString();
  return at.toLocaleString(language(), today ? { timeStyle: "short" } : { dateStyle: "medium", timeStyle: "short" });
}

/**
 * A day in the page's language: "27 Nov 2026".
 * @param {string} iso
 */
export function dayWords(iso) {
  return new Date(iso).toLocaleDateString(language(), { year: "numeric", month: "short", day: "numeric" });
}

// --- the forms' choices: [value, label] ---

/** @typedef {[string, string]} Choice */

/** @returns {Record<string, string>} the AI levels a seat may have, by level. */
export function aiLevels() {
  return { random: t("play.ai.random"), greedy: t("play.ai.greedy"), expert: t("play.ai.expert") };
}

/** @returns {Choice[]} a game's time a turn: a live game's seconds (turn_timeout) or a correspondence game's days. */
export function timeControls() {
  return [
    ["t:60", counted("minutes", 1)], ["t:300", counted("minutes", 5)], ["t:3600", counted("hours", 1)],
    ...[1, 2, 3, 5, 7, 10, 14].map((days) => /** @type {Choice} */ ([`d:${days}`, counted("days", days)])),
  ];
}

/** @returns {Choice[]} quick match's time a turn: a live turn limit from the API's set (turn_seconds), or days. */
export function matchTimeControls() {
  return [
    ["t:30", counted("seconds", 30)], ["t:60", counted("minutes", 1)], ["t:120", counted("minutes", 2)], ["t:300", counted("minutes", 5)],
    ...[1, 2, 3, 5, 7, 10, 14].map((days) => /** @type {Choice} */ ([`d:${days}`, counted("days", days)])),
  ];
}

/** The API's reasons to decline a challenge (DeclineReason). */
export const DECLINE_KEYS = Object.freeze(["generic", "later", "too_fast", "too_slow", "time_control", "rated", "casual", "variant",
  "action_rules", "players", "no_ai"]);

/**
 * Why a challenged player declines: a short label, and the words the challenger reads ("generic" for a reason this
 * page does not know).
 * @param {string | null | undefined} key
 * @returns {[string, string]}
 */
export function declineReason(key) {
  const known = key && DECLINE_KEYS.includes(key) ? key : "generic";
  return [t(`play.decline.${known}`), t(`play.decline.${known}.said`)];
}

/** @returns {Choice[]} after how long a waiting ticket may take AI seats (ai_fill_after, seconds; "" never). */
export function aiFillChoices() {
  return [["", t("play.never")], ...[10, 30, 60, 300, 3600, 86400].map((s) => /** @type {Choice} */ ([String(s), afterWords(s, "play.after")]))];
}

/** @returns {Record<string, Choice[]>} a ticket's rating range: at first, wider each minute, at most; how long it waits. */
export function ticketChoices() {
  const anyone = t("play.anyone");
  return {
    "qm-range": [["50", "± 50"], ["100", "± 100"], ["200", "± 200"], ["400", "± 400"], ["3000", anyone]],
    "qm-widen": [["0", t("play.never_wider")], ["50", "50"], ["100", "100"], ["200", "200"]],
    "qm-range-max": [["100", "± 100"], ["200", "± 200"], ["500", "± 500"], ["1000", "± 1000"], ["3000", anyone]],
    "qm-expires": [["600", counted("minutes", 10)], ["3600", counted("hours", 1)], ["86400", counted("days", 1)],
      [String(3 * 86400), counted("days", 3)], [String(7 * 86400), counted("weeks", 1)], [String(14 * 86400), counted("weeks", 2)]],
  };
}
