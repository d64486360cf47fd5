// A turn's clock as players see it: what is left of the turn ("0:42" live; "2 d 5 h" by the day), whether it is in
// its last fifth (urgent), and when it ends in the player's own time zone.  Pure (the words come from core/words.js),
// so node's tests run it without a browser; table-clock.js puts it on the page and makes it tick.

import { t } from "../core/words.js";
import { clockWords } from "./format.js";

/**
 * What a turn's clock needs from a view: its deadline, its whole length, whether it is a correspondence turn, and a
 * pause (a weekend, the mover's vacation: the clock stands still until it ends).
 * @typedef {{ deadline: string, budget: number, correspondence: boolean, paused: boolean, left: number | null }} TurnTime
 */

/**
 * The clock of the turn being played in ``view``, or null when no turn is timed (no time control, or nobody to move).
 * @param {{ phase?: string, turn_timeout?: number | null, days_per_turn?: number | null,
 *   turn?: { deadline?: string | null, paused_until?: string | null, time_left?: number | null } | null }} view
 * @param {number} [now]
 * @returns {TurnTime | null}
 */
export function turnTime(view, now = Date.now()) {
  const turn = view.turn;
  if (view.phase !== "turn" || !turn || !turn.deadline) return null;
  const budget = view.days_per_turn ? view.days_per_turn * 86400 : view.turn_timeout || 0;
  if (!budget) return null;
  const paused = !!turn.paused_until && Date.parse(turn.paused_until) > now;
  return { deadline: turn.deadline, budget, correspondence: !!view.days_per_turn, paused, left: turn.time_left ?? null };
}

/**
 * Seconds left of the turn at ``now`` (never below 0); a paused clock shows what it had left when it stopped.
 * @param {TurnTime} time
 * @param {number} [now]
 */
export function secondsLeft(time, now = Date.now()) {
  if (time.paused && time.left !== null) return Math.max(0, time.left);
  return Math.max(0, (Date.parse(time.deadline) - now) / 1000);
}

/**
 * The face of the clock: its text (whole seconds rounded up, so "0:00" is the very end), and urgent in the last fifth.
 * @param {TurnTime} time
 * @param {number} [now]
 * @returns {{ text: string, urgent: boolean, left: number }}
 */
export function clockFace(time, now = Date.now()) {
  const left = secondsLeft(time, now);
  return { text: clockWords(Math.ceil(left)), urgent: left <= time.budget / 5, left };
}

/**
 * When the turn ends, in the player's language and time zone (the browser's own, unless ``timeZone`` names one):
 * "Sat, Nov 28, 2:00 PM CET".
 * @param {string} iso
 * @param {string} lang
 * @param {string} [timeZone]
 */
export function deadlineWords(iso, lang, timeZone) {
  const when = new Date(iso).toLocaleString(lang, {
    weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short", timeZone,
  });
  return t("play.turn_ends_at", { time: when });
}

/**
 * What a screen reader says of the clock: "Time left: 0:42".
 * @param {string} text
 */
export function clockLabel(text) {
  return t("play.time_left", { time: text });
}
