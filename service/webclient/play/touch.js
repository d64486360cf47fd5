// Cards you touch, on the table: tap a card of your hand (or of your palette, when a 7 lets you pick one) and it says
// what it can do (each choice a button with where
// it leads, as the step buttons say it), while the places it can go glow (your palette, the canvas); tap one of them
// and the card goes there.  When a card action lets you take from another's palette, its cards you may take glow and a
// tap takes one.  Ending the turn and folding are buttons beside the hand.  Every choice is a legal step of the view
// (targets.js) taken as the step buttons take it (a step that puts you out asks first); the step buttons stay, the
// way for keyboards and screen readers.

import { $, h } from "../core/dom.js";
import { cardName } from "../core/rules.js";
import { t } from "../core/words.js";
import { consequences, mySeat, stepLabel } from "./moves.js";
import { cardChoices, pickableCards, playableCards, takeTargets, targetsOf, turnChoices } from "./targets.js";

/** @import { Choice } from "./targets.js" */
/** @import { View } from "./moves.js" */

/**
 * What the table's taps act on: the view of your turn (null when it is not), the card chosen, and how a step is taken.
 * @type {{ view: View | null, selected: string | null, acting: boolean, take: (step: Record<string, any>) => void }}
 */
const touch = { view: null, selected: null, acting: false, take: () => {} };

/**
 * A choice as a button: what it does and where it leads.
 * @param {Choice} choice
 * @param {View} view
 * @param {string} kind  the button's class
 */
function choiceButton(choice, view, kind) {
  const { step, index } = choice;
  return h("button", {
    type: "button", class: kind, "data-index": index, "data-type": step.type, "data-card": step.card || null,
    "data-eliminates": step.eliminates ? "true" : "false", disabled: touch.acting, onclick: () => touch.take(step),
  }, h("span", { class: "what", text: stepLabel(step, view) }), h("span", { class: "why", text: consequences(step) }));
}

/**
 * Draw what the taps act on for ``view`` (your turn: ``yourTurn``; a step on its way: ``acting``).
 * @param {View} view
 * @param {boolean} yourTurn
 * @param {boolean} acting
 */
export function showTouch(view, yourTurn, acting) {
  touch.view = yourTurn ? view : null;
  touch.acting = acting;
  const steps = yourTurn ? view.legal_steps || [] : [];
  const playable = playableCards(steps);
  const pickable = pickableCards(steps);
  if (touch.selected !== null && !playable.has(touch.selected) && !pickable.has(touch.selected)) touch.selected = null;
  const selected = touch.selected;
  const mine = mySeat(view);

  const palette = mine === null ? [] : [...document.querySelectorAll(`#seats [data-seat="${mine}"] [data-card]`)];
  for (const [cards, can] of [[[...$("hand").querySelectorAll("[data-card]")], playable], [palette, pickable]]) {
    for (const node of /** @type {HTMLElement[]} */ (cards)) {
      node.dataset.tappable = String(/** @type {Set<string>} */ (can).has(node.dataset.card || ""));
      node.dataset.selected = String(node.dataset.card === selected);
    }
  }
  $("touch-hint").hidden = !playable.size && !pickable.size;

  const menu = $("card-menu");
  menu.hidden = selected === null;
  if (selected !== null) {
    $("card-menu-h").textContent = t("play.card_can", { card: selected, name: cardName(selected) });
    $("card-choices").replaceChildren(...cardChoices(steps, selected).map((choice) => choiceButton(choice, view, "step choice")));
  } else $("card-choices").replaceChildren();
  const enders = turnChoices(steps);
  $("turn-bar").hidden = !enders.length;
  $("turn-bar").replaceChildren(...enders.map((choice) => choiceButton(choice, view, "step turn-choice")));

  // The targets: where the chosen card can go, and the cards you may take.
  for (const node of document.querySelectorAll("#table [data-target]")) node.removeAttribute("data-target");
  const targets = selected === null ? new Map() : targetsOf(steps, selected);
  if (targets.has("palette") && mine !== null) setTarget(document.querySelector(`#seats [data-seat="${mine}"]`), "palette");
  if (targets.has("canvas")) setTarget(document.getElementById("rule-box"), "canvas");
  if (targets.has("deck")) setTarget(document.getElementById("deck"), "deck");
  for (const [seat, cards] of takeTargets(steps)) {
    const box = document.querySelector(`#seats [data-seat="${seat}"]`);
    setTarget(box, "take");
    for (const card of cards.keys()) setTarget(box && box.querySelector(`[data-card="${card}"]`), "take");
  }
}

/**
 * @param {Element | null} node
 * @param {string} what
 */
function setTarget(node, what) {
  if (node) node.setAttribute("data-target", what);
}

/**
 * A tap on a place of the table: the chosen card's one step that lands there (with more than one, its list of choices
 * is where to choose: the first of them takes the focus).
 * @param {string} where
 */
function tapPlace(where) {
  const view = touch.view;
  if (!view || touch.selected === null || touch.acting) return;
  const choices = targetsOf(view.legal_steps || [], touch.selected).get(where) || [];
  if (choices.length === 1) touch.take(choices[0].step);
  else if (choices.length > 1) /** @type {HTMLElement | null} */ ($("card-choices").querySelector(`[data-index="${choices[0].index}"]`))?.focus();
}

/**
 * A tap on the seats: a card of your palette to pick, a card to take, or your palette for the chosen card.
 * @param {MouseEvent} event
 */
function tapSeats(event) {
  const view = touch.view;
  const target = /** @type {Element} */ (event.target);
  if (!view || touch.acting) return;
  if (choose(target.closest('[data-card][data-tappable="true"]'))) return;
  const card = target.closest('[data-card][data-target="take"]');
  const seat = target.closest("[data-seat]");
  if (card && seat) {
    const choice = takeTargets(view.legal_steps || []).get(Number(seat.getAttribute("data-seat")))?.get(card.getAttribute("data-card") || "");
    if (choice) touch.take(choice.step);
    return;
  }
  if (seat && seat.getAttribute("data-target") === "palette") tapPlace("palette");
}

/**
 * A tap on a card of your hand: chosen (its choices shown, its places glowing), or put back if it was.
 * @param {MouseEvent} event
 */
function tapHand(event) {
  choose(/** @type {Element} */ (event.target).closest('#hand [data-tappable="true"]'));
}

/**
 * Choose the card ``node`` shows (or put it back, if it was chosen); false if there is none to choose.
 * @param {Element | null} node
 */
function choose(node) {
  if (!node || !touch.view) return false;
  const name = node.getAttribute("data-card");
  touch.selected = touch.selected === name ? null : name;
  showTouch(touch.view, true, touch.acting);
  return true;
}

/**
 * The table's taps, set up once; ``take`` takes a step as its button would.
 * @param {(step: Record<string, any>) => void} take
 */
export function setUpTouch(take) {
  touch.take = (step) => {
    touch.selected = null;  // a card moved stays chosen no longer (a 7 just played could be picked again at once)
    take(step);
  };
  $("hand-panel").addEventListener("click", tapHand);
  $("seats").addEventListener("click", tapSeats);
  $("rule-box").addEventListener("click", () => tapPlace("canvas"));
  $("deck").addEventListener("click", () => tapPlace("deck"));
  $("card-menu-close").addEventListener("click", () => {
    touch.selected = null;
    if (touch.view) showTouch(touch.view, true, touch.acting);
  });
}
