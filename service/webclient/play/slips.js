// A labelled decision's turns in words, for the mistakes page: pure, so node's tests run it.

import { t } from "../core/words.js";
import { stepLabel } from "./moves.js";

const NO_VIEW = { seats: [] };  // a listed step names no seat's player: the list has no view of the game

/**
 * Steps as the table says them ("Play R5 (Red 5) to your palette; End your turn").  A discard's ``draw`` in the
 * analysis is the choice to take the advanced draw when the discard grants it (docs/rules.md 22), so it is true for
 * every discard, basic games' too: only an advanced game's discard says that you draw a card.
 * @param {Record<string, any>[]} steps
 * @param {string | null | undefined} variant the game's ("basic", "advanced")
 */
export function stepsWords(steps, variant) {
  const draws = variant === "advanced";
  return steps.map((step) => stepLabel(step, NO_VIEW) + (draws && step.type === "discard" && step.draw ? ` (${t("play.c.draw")})` : "")).join("; ");
}
