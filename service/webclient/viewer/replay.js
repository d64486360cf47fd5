// A replay document (red7-replay/1: replays/build.py) as the viewer reads it: its steps, seats, ratings and
// decision analysis, and what a seat is at a step.  Pure (no page), so node's tests run it.

import { seatLabel } from "../core/seats.js";
import { counted, t } from "../core/words.js";

/**
 * A document from its JSON; a seat's 64-bit seed keeps its digits (a JS number would round it) where the browser
 * gives the source text.  A document that does not parse, or holds no steps, is a thrown Error in words.
 * @param {string} text
 * @returns {ReplayDocument}
 */
export function parseReplay(text) {
  /** @type {(key: string, value: unknown, context?: { source?: string }) => unknown} */
  const keepSeed = (key, value, context) => (key === "seed" && typeof value === "number" && context && context.source ? context.source : value);
  let doc;
  try {
    doc = JSON.parse(text, /** @type {(key: string, value: unknown) => unknown} */ (keepSeed));
  } catch (error) {
    throw new Error(t("viewer.unreadable", { error: error instanceof Error ? error.message : String(error) }));
  }
  if (!doc || !Array.isArray(doc.steps)) throw new Error(t("viewer.no_steps_data"));
  return doc;
}

/**
 * What the viewer shows of ``doc``.
 * @param {ReplayDocument} doc
 * @returns {Replay}
 */
export function readReplay(doc) {
  const steps = doc.steps;
  const seatInfo = Array.isArray(doc.seats) ? doc.seats : [];
  // A rated game's document carries each seat's rating (outside its hash): before the game, and the change once the
  // game's ladder has it (applied); until then the rating the player has now.
  const ratings = doc.ratings && Array.isArray(doc.ratings.seats) ? doc.ratings : null;
  /** @type {SeatRating[]} */
  const rated = ratings ? ratings.seats : [];
  const ratingOf = new Map(rated.filter((r) => r && typeof r.rating === "number").map((r) => [r.seat, r]));
  // A finished game's decision analysis (outside its hash), once the workers have made it: see engine/analysis.py.
  const analysis = doc.analysis && Array.isArray(doc.analysis.decisions) ? doc.analysis : null;
  const verdictAt = new Map();
  if (analysis) for (const d of analysis.decisions) if (d.label && typeof d.step === "number") verdictAt.set(d.step, d);
  const options = doc.options || {};
  const seatCount = Math.max(seatInfo.length, options.players || 0, ...steps.map((s) => (s.state && s.state.seats ? s.state.seats.length : 0)));
  return { doc, steps, total: steps.length, options, seatInfo, ratings, ratingOf, analysis, verdictAt, seatCount };
}

/**
 * A seat's player's name; "Seat 2" for a seat the document names no one at.
 * @param {Replay} replay
 * @param {number} seat
 */
export function seatName(replay, seat) {
  const info = replay.seatInfo[seat];
  return info && info.name ? seatLabel(info, seat) : t("viewer.seat", { seat });
}

/**
 * A player's accuracy in a line: "Accuracy 87.5 · 2 mistakes · luck +3.0".
 * @param {{ accuracy?: number | null, counts?: Record<string, number>, luck: number }} player
 */
export function accuracyText(player) {
  const counts = player.counts || {};
  const accuracy = player.accuracy === null || player.accuracy === undefined ? "—" : player.accuracy.toFixed(1);
  const parts = [t("viewer.accuracy", { accuracy })];
  for (const label of ["inaccuracy", "mistake", "blunder"]) {
    const n = counts[label] || 0;
    if (n) parts.push(counted(label, n));
  }
  parts.push(t("viewer.luck", { luck: (player.luck > 0 ? "+" : "") + Number(player.luck).toFixed(1) }));
  return parts.join(" · ");
}

/**
 * A seat's state at a step in a word, and whether it won the game: "Winner", "To play", "Out"...
 * @param {Replay} replay
 * @param {Record<string, any> | null} state the step's state (null before the first step)
 * @param {number} seat
 * @param {Record<string, any>} data the seat's part of the state
 * @param {boolean} atEnd
 * @returns {[string, boolean]}
 */
export function statusOf(replay, state, seat, data, atEnd) {
  const outcome = replay.doc.outcome;
  if (atEnd && outcome && outcome.winner === seat) return [t("viewer.winner"), true];
  if (!state || state.phase === "not_started") return [t("viewer.waiting"), false];
  const inRound = state.seats.filter((/** @type {any} */ s) => s.in_round).length;
  if ((state.phase === "round_won" || state.phase === "round_scored") && data.in_round && inRound === 1) return [t("viewer.won_round"), false];
  if (state.turn === seat) return [t("viewer.to_play"), false];
  return [data.in_round ? t("viewer.in_round") : t("viewer.out"), false];
}
