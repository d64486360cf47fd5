// Cards you touch: what a card can do (one of your hand; one of your palette when a 7 lets you pick it), and where each
// legal step lands on the table (your palette, the canvas, the deck), read from the view's legal steps.  Pure, so node's tests run it;
// touch.js puts it on the table.  The step buttons stay the way for keyboards and screen readers.

/** The steps that move a card of your hand. */
const FROM_HAND = ["play", "discard"];
/** The steps that move a card of your palette (a 7's: onto the deck or the canvas). */
const FROM_PALETTE = ["place"];
const OF_YOURS = [...FROM_HAND, ...FROM_PALETTE];
/** The steps that move no card: ending the turn, folding. */
const NO_CARD = ["end_turn", "fold"];

/**
 * A legal step with its place in the view's list (the step buttons are numbered by it).
 * @typedef {{ step: Record<string, any>, index: number }} Choice
 */

/**
 * The steps, numbered.
 * @param {Record<string, any>[]} steps
 * @returns {Choice[]}
 */
function numbered(steps) {
  return steps.map((step, index) => ({ step, index }));
}

/**
 * What ``card`` (of your hand, or of your palette) can do now, in the view's order.
 * @param {Record<string, any>[]} steps
 * @param {string} card
 */
export function cardChoices(steps, card) {
  return numbered(steps).filter(({ step }) => OF_YOURS.includes(step.type) && step.card === card);
}

/**
 * The cards of your hand that can do anything now.
 * @param {Record<string, any>[]} steps
 * @returns {Set<string>}
 */
export function playableCards(steps) {
  return new Set(steps.filter((step) => FROM_HAND.includes(step.type)).map((step) => step.card));
}

/**
 * The cards of your palette that can move now (a 7 lets you pick one).
 * @param {Record<string, any>[]} steps
 * @returns {Set<string>}
 */
export function pickableCards(steps) {
  return new Set(steps.filter((step) => FROM_PALETTE.includes(step.type)).map((step) => step.card));
}

/**
 * Where a step lands: "palette" (yours), "canvas", "deck", or "seat:<n>" (a card taken from another's palette).
 * @param {Record<string, any>} step
 */
export function landing(step) {
  if (step.type === "play") return "palette";
  if (step.type === "discard") return "canvas";
  if (step.type === "place") return step.to === "canvas" ? "canvas" : "deck";
  if (step.type === "take") return `seat:${step.seat}`;
  return null;
}

/**
 * Where the choices of ``card`` land, each place with the choices that land there (a tap on a place with one choice
 * takes it; with more, discarding with or without a draw say, the card's own list decides).
 * @param {Record<string, any>[]} steps
 * @param {string} card
 * @returns {Map<string, Choice[]>}
 */
export function targetsOf(steps, card) {
  /** @type {Map<string, Choice[]>} */
  const out = new Map();
  for (const choice of cardChoices(steps, card)) {
    const where = landing(choice.step);
    if (where) out.set(where, [...(out.get(where) || []), choice]);
  }
  return out;
}

/**
 * The cards of the others' palettes you may take now: by seat, each card's step.
 * @param {Record<string, any>[]} steps
 * @returns {Map<number, Map<string, Choice>>}
 */
export function takeTargets(steps) {
  /** @type {Map<number, Map<string, Choice>>} */
  const out = new Map();
  for (const choice of numbered(steps)) {
    if (choice.step.type !== "take") continue;
    const seat = Number(choice.step.seat);
    if (!out.has(seat)) out.set(seat, new Map());
    out.get(seat)?.set(choice.step.card, choice);
  }
  return out;
}

/**
 * The steps that move no card (end the turn, fold): the table's own buttons beside the hand.
 * @param {Record<string, any>[]} steps
 */
export function turnChoices(steps) {
  return numbered(steps).filter(({ step }) => NO_CARD.includes(step.type));
}
