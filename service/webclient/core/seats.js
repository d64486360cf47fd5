// A seat's name as a page shows it, in the page's language.  The server names an AI's seat "AI 1 (greedy)" and a
// resigned player's "Ana (resigned; AI greedy)" (Game.seat_label), the same in every language: names are not
// translated, but those two are a number and a level, which the new-game form already says in each language.

import { has, t } from "./words.js";

const RESIGNED = /^(.*) \(resigned; AI (\w+)\)$/s;

/**
 * ``seat``'s name in words (``number``: its place at the table); a player's own name as it is.
 * @param {{ name?: unknown, kind?: unknown, level?: unknown }} seat
 * @param {number} number
 */
export function seatLabel(seat, number) {
  const name = String(seat.name ?? "");
  const level = String(seat.level ?? "");
  if (seat.kind === "ai" && name === `AI ${number} (${level})` && has("core.ai_seat." + level)) {
    return t("core.ai_seat." + level, { number });
  }
  const resigned = RESIGNED.exec(name);
  if (resigned && has("core.resigned_seat." + resigned[2])) return t("core.resigned_seat." + resigned[2], { name: resigned[1] });
  return name;
}

/**
 * An AI's level as the new-game form says it ("AI, greedy"), or null for a level this page has no words for.
 * @param {unknown} level
 */
export function aiLevel(level) {
  return has("core.level." + level) ? t("core.level." + level) : null;
}
