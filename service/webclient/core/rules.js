// The rules and the cards as people read them (docs/rules.md): a rule's name and what wins under it, a card's name.
// The API names a rule by its colour ("red") and a card by its colour's letter and number ("R5").

import { has, t } from "./words.js";

/** The seven rules by colour, and each one's letter (docs/rules.md 3-9). */
export const RULES = Object.freeze({ red: "R", orange: "O", yellow: "Y", green: "G", blue: "B", indigo: "I", violet: "V" });

/**
 * A rule's letter, or undefined for what is no rule.
 * @param {string | null | undefined} rule
 */
function letterOf(rule) {
  return rule && Object.prototype.hasOwnProperty.call(RULES, rule) ? RULES[/** @type {keyof RULES} */ (rule)] : undefined;
}

/**
 * A rule's name in the page's language ("Red", "Czerwona"); what is no rule as it is, and nothing as "—".
 * @param {string | null | undefined} rule
 */
export function ruleName(rule) {
  const letter = letterOf(rule);
  return letter ? t("rule." + letter) : rule || "—";
}

/**
 * What wins under a rule, in one line ("Highest card wins."); "" for what is no rule.
 * @param {string | null | undefined} rule
 */
export function ruleHelp(rule) {
  return letterOf(rule) ? t("viewer.help." + rule) : "";
}

/**
 * A card's name ("R5": "Red 5"); a card of no colour the page knows as it is written.
 * @param {string} card
 */
export function cardName(card) {
  const code = "viewer.card." + card.charAt(0);
  return has(code) ? t(code, { number: card.slice(1) }) : card;
}

/** A decision's labels (engine/analysis.py), least to worst. */
export const LABELS = Object.freeze(["inaccuracy", "mistake", "blunder"]);

/**
 * A labelled decision's verdict in words: "mistake: 12.5 points of win chance lost (±1.0)".
 * @param {{ label: string, delta: number, se: number, went_out?: boolean }} decision
 */
export function verdict(decision) {
  const lost = { label: t("viewer.label." + decision.label), delta: decision.delta.toFixed(1), se: decision.se.toFixed(1) };
  return t(decision.went_out ? "viewer.verdict_went_out" : "viewer.verdict", lost);
}
